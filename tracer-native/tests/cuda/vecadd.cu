// The vector add of Pearson 2018, Fig. 6.1: three host buffers (malloc), three device buffers, two
// host-to-device copies, one kernel, one device-to-host copy. 1024 floats = 4096 bytes each, so
// the host buffers reach the default 4 KiB malloc threshold and are recorded.
#include <cstdlib>
#include "check.h"

#define N 1024

__global__ void vector_add(float *s, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i] = a[i] + b[i];
}

int main() {
    size_t bytes = N * sizeof(float);
    float *a_h = (float *)malloc(bytes);
    float *b_h = (float *)malloc(bytes);
    float *s_h = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) {
        a_h[i] = i;
        b_h[i] = 2 * i;
    }
    float *a_d, *b_d, *s_d;
    CHECK(cudaMalloc(&a_d, bytes));
    CHECK(cudaMalloc(&b_d, bytes));
    CHECK(cudaMalloc(&s_d, bytes));
    CHECK(cudaMemcpy(a_d, a_h, bytes, cudaMemcpyDefault));
    CHECK(cudaMemcpy(b_d, b_h, bytes, cudaMemcpyDefault));
    vector_add<<<(N + 255) / 256, 256>>>(s_d, a_d, b_d, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(s_h, s_d, bytes, cudaMemcpyDefault));
    CHECK(cudaFree(a_d));
    CHECK(cudaFree(b_d));
    CHECK(cudaFree(s_d));
    free(a_h);
    free(b_h);
    free(s_h);
    return 0;
}
