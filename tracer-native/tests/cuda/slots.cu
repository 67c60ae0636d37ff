// The pattern of the CUDA sample simpleHyperQ: eight streams, each running two one-thread kernels
// that each write one element of a small array (kernel_a element 2i, kernel_b element 2i + 1),
// then a kernel in the legacy default stream that sums the array. Race-free: no two streams
// touch the same element, and the legacy stream waits for them all.
#include "check.h"

#define NSTREAMS 8

__global__ void kernel_a(long long *d_o, long long value) { d_o[0] = value; }

__global__ void kernel_b(long long *d_o, long long value) { d_o[0] = value + 1; }

__global__ void sum(long long *d_clocks, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++) s += d_clocks[i];
    d_clocks[0] = s;
}

int main() {
    long long *d_a, result = 0;
    CHECK(cudaMalloc(&d_a, 2 * NSTREAMS * sizeof(long long)));
    cudaStream_t streams[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) CHECK(cudaStreamCreate(&streams[i]));
    for (int i = 0; i < NSTREAMS; i++) {
        kernel_a<<<1, 1, 0, streams[i]>>>(&d_a[2 * i], 10 * i);
        CHECK(cudaGetLastError());
        kernel_b<<<1, 1, 0, streams[i]>>>(&d_a[2 * i + 1], 10 * i);
        CHECK(cudaGetLastError());
    }
    sum<<<1, 1>>>(d_a, 2 * NSTREAMS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&result, d_a, sizeof result, cudaMemcpyDeviceToHost));
    for (int i = 0; i < NSTREAMS; i++) CHECK(cudaStreamDestroy(streams[i]));
    CHECK(cudaFree(d_a));
    printf("sum %lld\n", result);
    return 0;
}
