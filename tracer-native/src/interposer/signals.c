/* Fatal signals: apptrace's handler records how the process ended and sends every buffer, and
 * stays in place whatever the program installs later. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hook.h"

/* apptrace's handler stays installed for the fatal signals below, whatever the program installs
 * later: sigaction, signal, bsd_signal and sysv_signal are interposed. For each signal the program
 * has an action of its own (what it installed, or what it found), which those calls report and
 * change, and which the handler carries out:
 *   - a handler of the program's: the handler calls it, with the mask and flags the program asked
 *     for (ours is installed with them), and records nothing: the program decides whether the
 *     process ends, and the way it then ends (exit, _exit, abort, the default action) is recorded;
 *   - the default action: the handler records ProcessEnd, sends every buffer, restores the
 *     default and lets it happen;
 *   - ignored: installed as ignored; nothing of ours runs.
 * Nothing here takes a lock: the program's action is kept twice and switched atomically, so the
 * handler always reads a complete one. */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGSYS, SIGTRAP,
                                    SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ};
static struct sigaction program_action[NSIG][2];
static _Atomic int program_current[NSIG];
static _Atomic bool managed[NSIG];
typedef void (*at_sighandler)(int);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static at_sighandler (*real_signal)(int, at_sighandler);
static at_sighandler (*real_bsd_signal)(int, at_sighandler);
static at_sighandler (*real_sysv_signal)(int, at_sighandler);

/* Resolved at load time: a program may first call these from a signal handler, where dlsym must
 * not run. */
__attribute__((constructor)) static void resolve(void) {
    real_signal = (at_sighandler(*)(int, at_sighandler))dlsym(RTLD_NEXT, "signal");
    real_bsd_signal = (at_sighandler(*)(int, at_sighandler))dlsym(RTLD_NEXT, "bsd_signal");
    real_sysv_signal = (at_sighandler(*)(int, at_sighandler))dlsym(RTLD_NEXT, "sysv_signal");
    real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
}

static bool is_ignore(const struct sigaction *a) {
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

static bool is_default(const struct sigaction *a) {
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static struct sigaction program_action_of(int sig) {
    return program_action[sig][atomic_load(&program_current[sig])];
}

static void set_program_action(int sig, const struct sigaction *a) {
    int next = 1 - atomic_load(&program_current[sig]);
    program_action[sig][next] = *a;
    atomic_store(&program_current[sig], next);
}

static void fatal_handler(int sig, siginfo_t *info, void *ctx);

/* Puts in place what carries out the program's action `a` for `sig`. */
static int install_for(int sig, const struct sigaction *a) {
    if (is_ignore(a)) return real_sigaction(sig, a, NULL);
    struct sigaction sa = {.sa_sigaction = fatal_handler};
    if (is_default(a)) {
        /* An alternate stack lets the handler run after a stack overflow of the main thread. */
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigemptyset(&sa.sa_mask);
    } else {
        /* The kernel applies the program's mask and flags; SA_RESETHAND is emulated. */
        sa.sa_flags = (a->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
        sa.sa_mask = a->sa_mask;
    }
    return real_sigaction(sig, &sa, NULL);
}

static void fatal_handler(int sig, siginfo_t *info, void *ctx) {
    struct sigaction a = program_action_of(sig);
    if (is_ignore(&a)) return; /* changed to ignored while this signal was on its way */
    if (!is_default(&a)) {
        if (a.sa_flags & SA_RESETHAND) {
            struct sigaction dfl = {.sa_handler = SIG_DFL};
            set_program_action(sig, &dfl);
        }
        if (a.sa_flags & SA_SIGINFO) {
            a.sa_sigaction(sig, info, ctx);
        } else {
            a.sa_handler(sig);
        }
        return;
    }
    int saved = errno;
    at_process_end(128 + sig, sig);
    /* Restore the default action and let it happen: a fault re-executes and faults again, abort()
     * and kill() deliver the pending signal once this handler returns. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    real_sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

static bool is_fatal(int sig) {
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        if (fatal_signals[i] == sig) return true;
    }
    return false;
}

void at_signals_install(void) {
    if (real_sigaction == NULL) resolve();
    if (real_sigaction == NULL) return;
    size_t alt = 64 * 1024;
    void *stack = mmap(NULL, alt, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack != MAP_FAILED) {
        stack_t ss = {.ss_sp = stack, .ss_size = alt};
        stack_t old;
        if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) sigaltstack(&ss, NULL);
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        int sig = fatal_signals[i];
        struct sigaction old;
        if (real_sigaction(sig, NULL, &old) != 0) continue;
        set_program_action(sig, &old);
        /* A program that ignores a signal keeps ignoring it, untouched. */
        if (!is_ignore(&old) && install_for(sig, &old) != 0) continue;
        atomic_store(&managed[sig], true);
    }
}

/* The program's view of a managed signal: reads and changes its own action. A vfork child (a
 * different process sharing this memory) changes only its own, never the parent's record. */
static bool program_manages(int sig) {
    return sig > 0 && sig < NSIG && is_fatal(sig) && atomic_load(&managed[sig]) &&
           (uint32_t)syscall(SYS_getpid) == at_pid();
}

static int program_sigaction(int sig, const struct sigaction *act, struct sigaction *oldact) {
    struct sigaction old = program_action_of(sig);
    if (act != NULL) {
        struct sigaction a = *act;
        set_program_action(sig, &a);
        if (install_for(sig, &a) != 0) {
            int err = errno;
            set_program_action(sig, &old);
            errno = err;
            return -1;
        }
    }
    if (oldact != NULL) *oldact = old;
    return 0;
}

APPTRACE_HOOK(sigaction, int, (int sig, const struct sigaction *act, struct sigaction *oldact)) {
    if (AT_UNLIKELY(real_sigaction == NULL)) resolve();
    if (!program_manages(sig)) return real_sigaction(sig, act, oldact);
    return program_sigaction(sig, act, oldact);
}

/* signal() as glibc's: BSD semantics (the handler's own signal blocked while it runs, interrupted
 * system calls restarted). */
static at_sighandler set_handler(int sig, at_sighandler handler, int flags, bool block_self) {
    struct sigaction a = {.sa_handler = handler, .sa_flags = flags}, old;
    sigemptyset(&a.sa_mask);
    if (block_self) sigaddset(&a.sa_mask, sig);
    if (program_sigaction(sig, &a, &old) != 0) return SIG_ERR;
    return old.sa_handler;
}

#define SIGNAL_HOOK(name, flags, block_self)                                                     \
    APPTRACE_HOOK(name, at_sighandler, (int sig, at_sighandler handler)) {                      \
        if (AT_UNLIKELY(real_##name == NULL)) resolve();                                        \
        if (!program_manages(sig) || handler == SIG_ERR) return real_##name(sig, handler);     \
        return set_handler(sig, handler, (flags), (block_self));                                \
    }
SIGNAL_HOOK(signal, SA_RESTART, true)
SIGNAL_HOOK(bsd_signal, SA_RESTART, true)
SIGNAL_HOOK(sysv_signal, SA_RESETHAND | SA_NODEFER, false)

