// Two non-blocking streams share a buffer: a kernel in stream A fills it, a kernel in stream B
// sums it. With no argument nothing orders the two (a race); with "safe", stream B waits for an
// event recorded in stream A after the fill.
#include <cstring>
#include "check.h"

#define N 4096

__global__ void fill(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

__global__ void total(const float *x, float *sum, int n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float s = 0;
        for (int i = 0; i < n; i++) s += x[i];
        *sum = s;
    }
}

int main(int argc, char **argv) {
    bool safe = argc > 1 && strcmp(argv[1], "safe") == 0;
    float *buf, *sum, result = 0;
    CHECK(cudaMalloc(&buf, N * sizeof(float)));
    CHECK(cudaMalloc(&sum, sizeof(float)));
    cudaStream_t a, b;
    cudaEvent_t filled;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    fill<<<N / 256, 256, 0, a>>>(buf, N);
    CHECK(cudaGetLastError());
    if (safe) {
        CHECK(cudaEventRecord(filled, a));
        CHECK(cudaStreamWaitEvent(b, filled, 0));
    }
    total<<<1, 1, 0, b>>>(buf, sum, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(&result, sum, sizeof(float), cudaMemcpyDeviceToHost, b));
    CHECK(cudaStreamSynchronize(b));
    CHECK(cudaDeviceSynchronize());
    printf("sum %.0f\n", result);
    CHECK(cudaEventDestroy(filled));
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(buf));
    CHECK(cudaFree(sum));
    return 0;
}
