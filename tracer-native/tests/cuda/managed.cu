// Managed memory with prefetch and advice: allocate 1 MiB managed, write it on the host, advise
// and prefetch it to device 0, run a kernel, prefetch it back to the host, read it.
#include "check.h"

__global__ void inc(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main() {
    const int n = 256 * 1024;
    int *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(int), cudaMemAttachGlobal));
    for (int i = 0; i < n; i++) x[i] = i;
    cudaMemLocation dev = {cudaMemLocationTypeDevice, 0};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CHECK(cudaMemAdvise(x, n * sizeof(int), cudaMemAdviseSetPreferredLocation, dev));
    CHECK(cudaMemPrefetchAsync(x, n * sizeof(int), dev, 0, 0));
    inc<<<n / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemPrefetchAsync(x, n * sizeof(int), host, 0, 0));
    CHECK(cudaDeviceSynchronize());
    long sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    printf("managed: sum %ld\n", sum);
    CHECK(cudaFree(x));
    return 0;
}
