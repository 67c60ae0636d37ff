// A loop that copies the same, unchanged input to the GPU on every iteration, in two adjacent
// halves, from pageable memory with cudaMemcpy, scales it, and reads the result back: what the
// application what-ifs of 'apptrace replay --what-if' change (keep-resident drops the repeated
// input copies, merge-copies joins the halves, pin-pageable and async-copies change how they move).
#include <cstdio>
#include <cstdlib>
#include "check.h"

#define N (1 << 18)
#define ITERATIONS 8

__global__ void scale(float *out, const float *in, float f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f * in[i];
}

int main() {
    size_t bytes = N * sizeof(float);
    float *in = (float *)malloc(bytes);
    float *out = (float *)malloc(bytes);
    for (int i = 0; i < N; i++) in[i] = (float)i;
    float *in_d, *out_d;
    CHECK(cudaMalloc(&in_d, bytes));
    CHECK(cudaMalloc(&out_d, bytes));
    for (int it = 0; it < ITERATIONS; it++) {
        CHECK(cudaMemcpy(in_d, in, bytes / 2, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(in_d + N / 2, in + N / 2, bytes / 2, cudaMemcpyHostToDevice));
        scale<<<(N + 255) / 256, 256>>>(out_d, in_d, (float)(it + 1), N);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out, out_d, bytes, cudaMemcpyDeviceToHost));
    }
    CHECK(cudaFree(in_d));
    CHECK(cudaFree(out_d));
    free(in);
    free(out);
    printf("whatif_loop: %d iterations ok\n", ITERATIONS);
    return 0;
}
