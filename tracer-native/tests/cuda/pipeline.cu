// Multi-stream pipeline with pinned memory, events and cudaStreamWaitEvent: four streams each copy
// a chunk in and run a kernel on it, each records an event; a fifth stream waits for all four
// events and copies the whole result back. 4 chunks of 64 KiB.
#include "check.h"

#define STREAMS 4
#define CHUNK (16 * 1024)

__global__ void square(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

int main() {
    size_t bytes = STREAMS * CHUNK * sizeof(float);
    float *h, *d;
    CHECK(cudaHostAlloc(&h, bytes, cudaHostAllocDefault));
    CHECK(cudaMalloc(&d, bytes));
    cudaStream_t s[STREAMS], gather;
    cudaEvent_t done[STREAMS];
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    }
    CHECK(cudaStreamCreate(&gather));
    for (int i = 0; i < STREAMS; i++) {
        float *hc = h + i * CHUNK, *dc = d + i * CHUNK;
        CHECK(cudaMemcpyAsync(dc, hc, CHUNK * sizeof(float), cudaMemcpyHostToDevice, s[i]));
        square<<<CHUNK / 256, 256, 0, s[i]>>>(dc, CHUNK);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(done[i], s[i]));
    }
    for (int i = 0; i < STREAMS; i++) CHECK(cudaStreamWaitEvent(gather, done[i], 0));
    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, gather));
    CHECK(cudaStreamSynchronize(gather));
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaEventDestroy(done[i]));
        CHECK(cudaStreamDestroy(s[i]));
    }
    CHECK(cudaStreamDestroy(gather));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    return 0;
}
