// The apptrace demo program: a copy/compute pipeline, the canonical pattern of van Werkhoven et
// al. (for each stream, a host-to-device chunk, a kernel on it, a device-to-host chunk), with
// pinned host memory and events around it, and one pageable copy for contrast.
//
// Build: nvcc -cudart shared -O2 -o pipeline pipeline.cu
// Run:   ./pipeline [elements] [streams]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                      \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

__global__ void scale(float *out, const float *in, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i];
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
    int nstreams = argc > 2 ? atoi(argv[2]) : 4;
    if (n <= 0 || nstreams <= 0 || n % nstreams != 0) {
        fprintf(stderr, "usage: %s [elements] [streams], elements a multiple of streams\n", argv[0]);
        return 2;
    }
    size_t bytes = (size_t)n * sizeof(float);
    int chunk = n / nstreams;
    size_t chunk_bytes = (size_t)chunk * sizeof(float);

    float *h_in, *h_out, *d_in, *d_out;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; i++) h_in[i] = (float)i;

    cudaStream_t *streams = (cudaStream_t *)malloc(nstreams * sizeof(cudaStream_t));
    for (int s = 0; s < nstreams; s++) CHECK(cudaStreamCreate(&streams[s]));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < nstreams; s++) {
        size_t off = (size_t)s * chunk;
        CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk_bytes, cudaMemcpyHostToDevice, streams[s]));
        scale<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d_out + off, d_in + off, 2.0f, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    // The same input again, from pageable memory: the driver stages it through a pinned buffer.
    float *pageable = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) pageable[i] = (float)i;
    CHECK(cudaMemcpy(d_in, pageable, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());

    printf("pipeline: %d elements in %d streams, %.3f ms between the events\n", n, nstreams, ms);

    free(pageable);
    for (int s = 0; s < nstreams; s++) CHECK(cudaStreamDestroy(streams[s]));
    free(streams);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    return 0;
}
