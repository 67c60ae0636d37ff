// Killed with SIGKILL, which no handler sees: 500 cudaMemsetAsync calls, a cudaDeviceSynchronize
// (the last completed synchronizing call), then 200 more calls, then SIGKILL to itself. Every event
// before and including the synchronize must be in the trace.
#include <signal.h>
#include <unistd.h>
#include "check.h"

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < 500; i++) CHECK(cudaMemsetAsync(d, 0, 4096, 0));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 200; i++) CHECK(cudaMemsetAsync(d, 1, 4096, 0));
    kill(getpid(), SIGKILL);
    return 0;
}
