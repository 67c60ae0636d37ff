// Two GPUs: a buffer filled on GPU 1, copied to GPU 0 with cudaMemcpyPeer, then back to the host.
// Asks the simulated runtime for two devices itself (APPTRACE_SIM_DEVICES, read at its first call);
// on a real machine it needs two GPUs.
#include <cstdlib>
#include "check.h"

#define N (1 << 20)

__global__ void fill(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

int main() {
    setenv("APPTRACE_SIM_DEVICES", "2", 0);
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        fprintf(stderr, "multigpu: needs 2 devices, found %d\n", count);
        return 2;
    }
    float *a, *b, *h;
    size_t bytes = N * sizeof(float);
    CHECK(cudaMallocHost(&h, bytes));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&a, bytes));
    fill<<<N / 256, 256>>>(a, N);
    CHECK(cudaGetLastError());
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemcpyPeer(b, 0, a, 1, bytes));
    CHECK(cudaMemcpy(h, b, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(b));
    CHECK(cudaSetDevice(1));
    CHECK(cudaFree(a));
    CHECK(cudaFreeHost(h));
    printf("multigpu: done\n");
    return 0;
}
