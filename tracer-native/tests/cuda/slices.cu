// The pattern of the CUDA sample simpleStreams: one buffer cut into four slices, one stream per
// slice, each stream's kernel given base + k * chunk, every kernel reading a non-const int *factor
// it never writes. First one kernel over the whole buffer in the legacy default stream (a launch
// of another shape: it is not one of the slices). Race-free: each stream touches its own slice.
#include "check.h"

#define NSTREAMS 4
#define N (4 * 1024)
#define THREADS 256

__global__ void init_array(int *g_data, int *factor, int num_iterations) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < num_iterations; i++) g_data[idx] += *factor;
}

int main() {
    int *a, *d_a, *d_c;
    int c = 5;
    CHECK(cudaMallocHost(&a, N * sizeof(int)));
    CHECK(cudaMalloc(&d_a, N * sizeof(int)));
    CHECK(cudaMalloc(&d_c, sizeof(int)));
    CHECK(cudaMemcpy(d_c, &c, sizeof(int), cudaMemcpyHostToDevice));
    cudaStream_t streams[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) CHECK(cudaStreamCreate(&streams[i]));
    CHECK(cudaMemset(d_a, 0, N * sizeof(int)));
    init_array<<<N / THREADS, THREADS>>>(d_a, d_c, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < NSTREAMS; i++) {
            init_array<<<N / NSTREAMS / THREADS, THREADS, 0, streams[i]>>>(d_a + i * N / NSTREAMS, d_c, 1);
            CHECK(cudaGetLastError());
        }
        for (int i = 0; i < NSTREAMS; i++)
            CHECK(cudaMemcpyAsync(a + i * N / NSTREAMS, d_a + i * N / NSTREAMS, N / NSTREAMS * sizeof(int),
                                  cudaMemcpyDeviceToHost, streams[i]));
    }
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < NSTREAMS; i++) CHECK(cudaStreamDestroy(streams[i]));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_c));
    CHECK(cudaFreeHost(a));
    return 0;
}
