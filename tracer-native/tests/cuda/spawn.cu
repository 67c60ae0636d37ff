// A parent that uses CUDA and starts children in the ways that share its memory or skip fork():
//   spawn vfork         vfork, and in the child reset SIGINT to the default and exec itself as
//                       "child"; then vfork a child whose exec fails, so it calls _exit(127)
//   spawn posix_spawn   posix_spawn itself as "child"
//   spawn fork          fork without exec: the child makes 20 host allocations of 65,659 bytes
//                       (traced as pageable memory) and is killed by SIGKILL before sending them
// parent: cudaMalloc, 10 cudaMemset, its children (waited for), 10 cudaMemset, raise(SIGINT)
//         (its own handler counts it), cudaFree; prints "parent ok" when every child ended as
//         expected and the handler ran; exits 0
// child:  cudaMalloc, 3 cudaMemset, cudaFree; exits 0
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include "check.h"

extern char **environ;
static volatile sig_atomic_t interrupts;

static void on_sigint(int) {
    interrupts = interrupts + 1;
}

static int wait_for(pid_t pid) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

static bool children_vfork(char *self) {
    char *argv[] = {self, (char *)"child", NULL};
    pid_t pid = vfork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL); /* what a shell does before exec; must not touch the parent's */
        execv("/proc/self/exe", argv);
        _exit(126);
    }
    bool ok = wait_for(pid) == 0;
    pid = vfork();
    if (pid == 0) {
        execv("/no/such/program", argv);
        _exit(127); /* the exec failed: this ends the child, not the parent */
    }
    return wait_for(pid) == 127 && ok;
}

static bool children_fork() {
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 20; i++) {
            if (malloc(65659) == NULL) _exit(1);
        }
        kill(getpid(), SIGKILL);
    }
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static bool children_posix_spawn(char *self) {
    char *argv[] = {self, (char *)"child", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0) return false;
    return wait_for(pid) == 0;
}

int main(int argc, char **argv) {
    int *d;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        CHECK(cudaMalloc(&d, 1 << 20));
        for (int i = 0; i < 3; i++) CHECK(cudaMemset(d, i, 1 << 20));
        CHECK(cudaFree(d));
        return 0;
    }
    signal(SIGINT, on_sigint);
    CHECK(cudaMalloc(&d, 1 << 16));
    for (int i = 0; i < 10; i++) CHECK(cudaMemset(d, 0, 1 << 16));
    const char *how = argc > 1 ? argv[1] : "";
    bool ok = strcmp(how, "vfork") == 0         ? children_vfork(argv[0])
              : strcmp(how, "posix_spawn") == 0 ? children_posix_spawn(argv[0])
              : strcmp(how, "fork") == 0        ? children_fork()
                                                : false;
    for (int i = 0; i < 10; i++) CHECK(cudaMemset(d, 1, 1 << 16));
    raise(SIGINT);
    CHECK(cudaFree(d));
    printf(ok && interrupts == 1 ? "parent ok\n" : "parent failed\n");
    return 0;
}
