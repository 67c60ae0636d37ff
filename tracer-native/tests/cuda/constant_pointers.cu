// The pattern of Rodinia's heartwall: a kernel with no parameters reaches device memory through
// pointers in a __constant__ struct that cudaMemcpyToSymbol filled. Then a kernel that touches
// no memory at all (its reads and writes are truly none).
#include "check.h"

#define N 1024

struct Params {
    const float *in;
    float *out;
    int n;
};

__constant__ Params d_params;

__global__ void scale() {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < d_params.n) d_params.out[i] = 2.0f * d_params.in[i];
}

__global__ void idle(int n) {
    int x = threadIdx.x;
    for (int i = 0; i < n; i++) x = x * 3 + 1;
    if (x == 42) __trap();
}

int main() {
    float h[N], *d_in, *d_out;
    for (int i = 0; i < N; i++) h[i] = (float)i;
    CHECK(cudaMalloc(&d_in, N * sizeof(float)));
    CHECK(cudaMalloc(&d_out, N * sizeof(float)));
    CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
    Params p = {d_in, d_out, N};
    CHECK(cudaMemcpyToSymbol(d_params, &p, sizeof p));
    scale<<<N / 256, 256>>>();
    CHECK(cudaGetLastError());
    idle<<<1, 32>>>(8);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
