// Makes 10 cudaMemsetAsync calls, then ends as argv[1] and argv[2] say:
//   return N   returns N from main (return -1 is exit status 255)
//   exit N     calls exit(N)
//   _exit N    calls _exit(N) (no atexit handlers)
//   kill N     sends itself signal N (SIGKILL: no handler sees it)
// Exit statuses above 128 must not be taken for signals, nor signals for exit statuses.
#include <signal.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include "check.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: exit_status return|exit|_exit|kill N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < 10; i++) CHECK(cudaMemsetAsync(d, i, 4096, 0));
    CHECK(cudaDeviceSynchronize());
    if (strcmp(argv[1], "exit") == 0) exit(n);
    if (strcmp(argv[1], "_exit") == 0) _exit(n);
    if (strcmp(argv[1], "kill") == 0) {
        kill(getpid(), n);
        pause();
    }
    return n;
}
