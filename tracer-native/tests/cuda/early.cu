// A thread started before apptrace initializes: libearly.so's constructor (tests/cuda/lib/early.c)
// starts it, and it calls the runtime at once (cudaMalloc, 100 cudaMemsetAsync, then 100 more
// once main lets it). main makes 50 cudaMemsetAsync of its own in between. Every one of the
// 1 + 200 + 50 calls must be traced. Prints "early ok".
#include "check.h"

extern "C" int early_finish(void);

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < 50; i++) CHECK(cudaMemsetAsync(d, 0, 4096, 0));
    int failures = early_finish();
    CHECK(cudaFree(d));
    printf(failures == 0 ? "early ok\n" : "early failed\n");
    return 0;
}
