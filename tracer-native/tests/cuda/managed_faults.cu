// Managed memory without prefetches: the host fills 4 MiB, a kernel doubles it where it lies (on a
// GPU it faults the pages in), a second kernel adds one (now resident), the host reads the sum.
#include "check.h"

__global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

__global__ void plus_one(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

int main() {
    const int n = 1024 * 1024;
    float *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(float), cudaMemAttachGlobal));
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    twice<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    plus_one<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    printf("managed_faults: sum %.0f\n", sum);
    CHECK(cudaFree(x));
    return 0;
}
