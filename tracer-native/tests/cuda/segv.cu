// Issues exactly N (argv[1], default 1000) cudaMemsetAsync calls with no synchronizing call, then
// crashes with SIGSEGV. Every one of the N calls must be in the trace.
#include <cstdlib>
#include "check.h"

/* volatile: the compiler cannot see that it is null, so it emits a plain store. */
int *volatile nowhere = nullptr;

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < n; i++) CHECK(cudaMemsetAsync(d, i & 0xff, 4096, 0));
    *nowhere = 1; /* a real fault, not raise(): the handler sees what a crash looks like */
    return 0;
}
