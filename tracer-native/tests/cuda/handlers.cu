// Signal handlers the program installs after apptrace's (in main), and the program's view of them:
//   1. a SIGINT handler (signal()) that counts; SIGINT raised twice: the program goes on
//   2. sigaction(SIGSEGV) reports the default action before the program installs its handler,
//      and the program's own handler after
//   3. N cudaMemsetAsync calls (argv[1], default 300), no synchronizing call
//   4. a real fault; the program's SIGSEGV handler (SA_SIGINFO | SA_RESETHAND) says so and
//      returns, so the fault happens again under the default action: death by SIGSEGV
// Prints "sigint 2", "view ok", "handler ran" (write(2)-ed: nothing is lost in a stdio buffer).
#include <signal.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include "check.h"

static volatile sig_atomic_t interrupts;
int *volatile nowhere = nullptr;

static void say(const char *s) {
    if (write(1, s, strlen(s)) < 0) exit(3);
}

static void on_sigint(int) {
    interrupts = interrupts + 1;
}

static void on_segv(int, siginfo_t *info, void *) {
    say(info->si_addr == nullptr ? "handler ran\n" : "handler ran (wrong address)\n");
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 300;
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    signal(SIGINT, on_sigint);
    raise(SIGINT);
    raise(SIGINT);
    say(interrupts == 2 ? "sigint 2\n" : "sigint lost\n");

    struct sigaction before, sa, after;
    sigaction(SIGSEGV, NULL, &before);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGSEGV, NULL, &after);
    bool view = !(before.sa_flags & SA_SIGINFO) && before.sa_handler == SIG_DFL &&
                (after.sa_flags & SA_SIGINFO) && after.sa_sigaction == on_segv;
    say(view ? "view ok\n" : "view wrong\n");

    for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(d, i & 0xff, 4096, 0));
    *nowhere = 1;
    return 0;
}
