/* Hooks on the process's own lifetime: fork (the child gets its own connection and trace), the
 * exec family (buffers are sent before the image is replaced), _exit (which skips atexit), and
 * dlopen (new modules for symbolizing call sites). */
#include <dlfcn.h>
#include <stdarg.h>
#include <unistd.h>

#include "hook.h"

#define MAX_EXEC_ARGS 4096

APPTRACE_HOOK(fork, pid_t, (void)) {
    static pid_t (*real)(void);
    if (real == NULL) real = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
    if (real == NULL) return -1;
    at_tls.depth++; /* nothing recorded until the child has its own buffers (init.c) */
    pid_t pid = real(); /* the child is set up by the pthread_atfork handler (init.c) */
    at_tls.depth--;
    if (pid > 0 && atomic_load(&at_active) && at_tls.depth == 0) {
        at_event e;
        if (at_begin_record(&e, at_now_ns())) {
            enc_fork_body(&e.w, (uint32_t)pid);
            at_commit(&e);
        }
    }
    return pid;
}

/* The exec family: send everything first, the new image starts a new trace connection. A vfork
 * child about to exec leaves the parent's buffers to the parent. */
static void before_exec(void) {
    if (atomic_load(&at_active) && !at_is_other_process()) at_flush_all();
}

#define EXEC_V_HOOK(name, proto, args)                                                           \
    APPTRACE_HOOK(name, int, proto) {                                                           \
        static int (*real) proto;                                                                \
        if (real == NULL) real = (int(*) proto)dlsym(RTLD_NEXT, #name);                          \
        before_exec();                                                                           \
        return real args;                                                                        \
    }
EXEC_V_HOOK(execve, (const char *path, char *const argv[], char *const envp[]), (path, argv, envp))
EXEC_V_HOOK(execv, (const char *path, char *const argv[]), (path, argv))
EXEC_V_HOOK(execvp, (const char *file, char *const argv[]), (file, argv))
EXEC_V_HOOK(execvpe, (const char *file, char *const argv[], char *const envp[]), (file, argv, envp))
EXEC_V_HOOK(fexecve, (int fd, char *const argv[], char *const envp[]), (fd, argv, envp))

/* execl, execlp and execle gather their variadic arguments into the vector forms, which is what
 * glibc does too (internally, where a preload library cannot see it). */
static int collect(const char *arg0, va_list ap, char **argv, char ***envp) {
    int n = 0;
    argv[n++] = (char *)arg0;
    while (arg0 != NULL && n < MAX_EXEC_ARGS) {
        char *a = va_arg(ap, char *);
        argv[n++] = a;
        if (a == NULL) break;
    }
    if (n == MAX_EXEC_ARGS) argv[n - 1] = NULL;
    if (envp != NULL) *envp = va_arg(ap, char **);
    return n;
}

APPTRACE_HOOK(execl, int, (const char *path, const char *arg, ...)) {
    char *argv[MAX_EXEC_ARGS];
    va_list ap;
    va_start(ap, arg);
    collect(arg, ap, argv, NULL);
    va_end(ap);
    return execv(path, argv);
}

APPTRACE_HOOK(execlp, int, (const char *file, const char *arg, ...)) {
    char *argv[MAX_EXEC_ARGS];
    va_list ap;
    va_start(ap, arg);
    collect(arg, ap, argv, NULL);
    va_end(ap);
    return execvp(file, argv);
}

APPTRACE_HOOK(execle, int, (const char *path, const char *arg, ...)) {
    char *argv[MAX_EXEC_ARGS];
    char **envp;
    va_list ap;
    va_start(ap, arg);
    collect(arg, ap, argv, &envp);
    va_end(ap);
    return execve(path, argv, envp);
}

#define EXIT_HOOK(name)                                                                          \
    APPTRACE_HOOK(name, void, (int status)) {                                                   \
        static void (*real)(int);                                                                \
        if (real == NULL) real = (void (*)(int))dlsym(RTLD_NEXT, #name);                         \
        at_process_end(status, 0);                                                               \
        real(status);                                                                            \
        __builtin_unreachable();                                                                 \
    }
EXIT_HOOK(_exit)
EXIT_HOOK(_Exit)

APPTRACE_HOOK(dlopen, void *, (const char *file, int mode)) {
    static void *(*real)(const char *, int);
    if (real == NULL) real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    void *h = real(file, mode);
    if (h != NULL && file != NULL && !(mode & RTLD_NOLOAD) && atomic_load(&at_active)) at_send_modules();
    return h;
}
