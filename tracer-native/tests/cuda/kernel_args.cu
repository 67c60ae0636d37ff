// Kernel arguments the graph must decode: an interior pointer (base + offset), a by-value struct
// holding a device pointer, an extern "C" kernel (no mangled signature), a pointer to const, and
// a template kernel. Prints the device pointers it passed, one "name=0x..." per line, so the test
// can compare them with what the trace recorded.
#include "check.h"

struct Params {
    float *data;
    int n;
    float scale;
};

__global__ void interior(float *p, int n) {
    if (threadIdx.x < n) p[threadIdx.x] = 0;
}

__global__ void by_struct(Params p) {
    if (threadIdx.x < p.n) p.data[threadIdx.x] *= p.scale;
}

extern "C" __global__ void plain_c(float *out, const float *in, int n) {
    if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x];
}

template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n) {
    if (threadIdx.x < n) y[threadIdx.x] += a * x[threadIdx.x];
}

int main() {
    float *a, *b;
    CHECK(cudaMalloc(&a, 4096 * sizeof(float)));
    CHECK(cudaMalloc(&b, 4096 * sizeof(float)));
    float *inside = a + 1000;
    interior<<<1, 32>>>(inside, 32);
    CHECK(cudaGetLastError());
    Params p = {b, 64, 3.0f};
    by_struct<<<1, 64>>>(p);
    CHECK(cudaGetLastError());
    plain_c<<<1, 128>>>(a, b, 128);
    CHECK(cudaGetLastError());
    axpy<float><<<1, 256>>>(a, b, 2.0f, 256);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("a=%p\nb=%p\ninside=%p\n", (void *)a, (void *)b, (void *)inside);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
