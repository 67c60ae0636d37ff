// The pattern of Rodinia's huffman: two non-blocking streams each count half of an input into
// one histogram with atomicAdd, and nothing orders the two kernels. A real race: the result is
// right only because atomics commute, and the graph must keep reporting it.
#include "check.h"

#define N (64 * 1024)
#define BINS 256

__global__ void histo(const unsigned char *in, int n, unsigned int *hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i]], 1u);
}

int main() {
    unsigned char *h_in, *d_in;
    unsigned int *d_hist, h_hist[BINS];
    CHECK(cudaMallocHost(&h_in, N));
    for (int i = 0; i < N; i++) h_in[i] = (unsigned char)(i * 7);
    CHECK(cudaMalloc(&d_in, N));
    CHECK(cudaMalloc(&d_hist, BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_in, h_in, N, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, BINS * sizeof(unsigned int)));
    cudaStream_t s[2];
    for (int i = 0; i < 2; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        histo<<<N / 2 / 256, 256, 0, s[i]>>>(d_in + i * N / 2, N / 2, d_hist);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_hist, d_hist, sizeof h_hist, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2; i++) CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_hist));
    CHECK(cudaFreeHost(h_in));
    return 0;
}
