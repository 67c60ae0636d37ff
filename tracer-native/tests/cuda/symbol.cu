// Copies to and from __device__ and __constant__ variables, one with an offset, and one to an
// address that is not a symbol (which must fail with cudaErrorInvalidSymbol).
#include "check.h"

__device__ float table[256];
__constant__ int coeffs[16];

__global__ void use(float *out) {
    out[threadIdx.x] = table[threadIdx.x] * coeffs[threadIdx.x % 16];
}

int main() {
    float host[256];
    int c[16];
    for (int i = 0; i < 256; i++) host[i] = i;
    for (int i = 0; i < 16; i++) c[i] = i;
    CHECK(cudaMemcpyToSymbol(table, host, sizeof host));
    CHECK(cudaMemcpyToSymbol(coeffs, c, 8 * sizeof(int), 8 * sizeof(int)));
    float *out;
    CHECK(cudaMalloc(&out, sizeof host));
    use<<<1, 256>>>(out);
    CHECK(cudaGetLastError());
    float back[256];
    CHECK(cudaMemcpyFromSymbol(back, table, sizeof back));
    for (int i = 0; i < 256; i++) {
        if (back[i] != i) {
            fprintf(stderr, "symbol round trip lost data at %d\n", i);
            return 1;
        }
    }
    static int not_a_symbol[4];
    cudaError_t e = cudaMemcpyToSymbol(not_a_symbol, c, sizeof not_a_symbol);
    if (e != cudaErrorInvalidSymbol) {
        fprintf(stderr, "expected cudaErrorInvalidSymbol, got %s\n", cudaGetErrorName(e));
        return 1;
    }
    cudaGetLastError(); /* clear it */
    CHECK(cudaFree(out));
    return 0;
}
