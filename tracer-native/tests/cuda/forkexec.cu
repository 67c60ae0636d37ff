// A parent that uses CUDA, then forks and execs itself as a child that also uses CUDA:
//   parent: cudaMalloc, cudaMemset, then fork; child: execv(self, "child"); parent waits, cudaFree
//   child:  cudaMalloc, cudaMemset, cudaMemset, cudaFree, exit 0
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include "check.h"

int main(int argc, char **argv) {
    int *d;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        CHECK(cudaMalloc(&d, 1 << 20));
        CHECK(cudaMemset(d, 1, 1 << 20));
        CHECK(cudaMemset(d, 2, 1 << 19));
        CHECK(cudaFree(d));
        return 0;
    }
    CHECK(cudaMalloc(&d, 1 << 16));
    CHECK(cudaMemset(d, 0, 1 << 16));
    pid_t pid = fork();
    if (pid == 0) {
        char *child_argv[] = {argv[0], (char *)"child", NULL};
        execv("/proc/self/exe", child_argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(cudaFree(d));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
