// Issues exactly N (argv[2], default 1000) cudaMemsetAsync calls with no synchronizing call, then
// dies the way argv[1] names. Every one of the N calls must be in the trace.
//   abort   abort()                                                        SIGABRT
//   throw   a C++ exception nothing catches: std::terminate, then abort    SIGABRT
//   bus     a store to a page of a mapping past the end of its file        SIGBUS (a real fault)
#include <sys/mman.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include "check.h"

static void die(const char *how) {
    if (strcmp(how, "abort") == 0) abort();
    if (strcmp(how, "throw") == 0) throw std::runtime_error("nobody catches this");
    if (strcmp(how, "bus") == 0) {
        int fd = memfd_create("empty", 0); /* size 0: every page of the mapping is past its end */
        volatile char *p = (volatile char *)mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) exit(2);
        p[0] = 1;
    }
    fprintf(stderr, "usage: crash abort|throw|bus [N]\n");
    exit(2);
}

int main(int argc, char **argv) {
    int n = argc > 2 ? atoi(argv[2]) : 1000;
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(d, i & 0xff, 4096, 0));
    die(argc > 1 ? argv[1] : "");
    return 0;
}
