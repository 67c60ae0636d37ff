// A program with the shape of Rodinia's streamcluster (pgain): per iteration about 41 CUDA calls
// around one kernel: a device allocation and its free, synchronous pageable copies to and from the
// GPU, two memsets, a device synchronization, and CUDA-event timing of every phase (create,
// record, synchronize, elapsed time, destroy). 30,000 iterations make about 1.2 million calls,
// 30,000 kernels and, with the default sizes, 84 GiB of copies: the replay benchmark's long trace
// (docs/BENCHMARKS.md, "Replay: a long trace").
//
//   long_trace [--iterations N] [--points P]      (default 30000 iterations, 73,000 points)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM 16

__global__ void compute_cost(const float *coord, const int *center_table, char *switch_membership,
                             float *work_mem, int num, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num) {
        return;
    }
    float d = 0;
    for (int k = 0; k < dim; k++) {
        d += coord[k * num + i];
    }
    work_mem[i] = d + (float)center_table[i % 64];
    switch_membership[i] = d > 0;
}

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "long_trace: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

// One timed phase's end, as streamcluster times each of its phases.
static float lap(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0;
    check(cudaEventRecord(stop, 0), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    check(cudaEventRecord(start, 0), "cudaEventRecord");
    return ms;
}

int main(int argc, char **argv) {
    long iterations = 30000;
    int num = 73000;
    for (int a = 1; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--iterations") == 0) {
            iterations = atol(argv[a + 1]);
        } else if (strcmp(argv[a], "--points") == 0) {
            num = atoi(argv[a + 1]);
        }
    }
    size_t coordBytes = (size_t)num * DIM * sizeof(float) / 2; // half the points move each time
    float *coord_h = (float *)calloc((size_t)num * DIM, sizeof(float));
    int *center_h = (int *)calloc(num, sizeof(int));
    char *switch_h = (char *)calloc(num, 1);
    float *work_h = (float *)calloc(num, sizeof(float));
    float *coord_d;
    int *center_d;
    char *switch_d;
    check(cudaMalloc(&coord_d, (size_t)num * DIM * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(&center_d, num * sizeof(int)), "cudaMalloc");
    check(cudaMalloc(&switch_d, num), "cudaMalloc");
    double total = 0;
    for (long it = 0; it < iterations; it++) {
        cudaEvent_t start, stop;
        check(cudaEventCreate(&start), "cudaEventCreate");
        check(cudaEventCreate(&stop), "cudaEventCreate");
        check(cudaEventRecord(start, 0), "cudaEventRecord");
        total += lap(start, stop); // serial part
        float *work_d;
        check(cudaMalloc(&work_d, num * sizeof(float)), "cudaMalloc");
        total += lap(start, stop); // allocation
        check(cudaMemcpy(coord_d + (it % 2) * (coordBytes / sizeof(float)), coord_h, coordBytes,
                         cudaMemcpyHostToDevice), "cudaMemcpy");
        check(cudaMemcpy(center_d, center_h, num * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
        check(cudaMemset(switch_d, 0, num), "cudaMemset");
        check(cudaMemset(work_d, 0, num * sizeof(float)), "cudaMemset");
        total += lap(start, stop); // CPU to GPU
        compute_cost<<<(num + 511) / 512, 512>>>(coord_d, center_d, switch_d, work_d, num, DIM);
        check(cudaGetLastError(), "launch");
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        total += lap(start, stop); // kernel
        check(cudaMemcpy(work_h, work_d, num * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        check(cudaMemcpy(switch_h, switch_d, num, cudaMemcpyDeviceToHost), "cudaMemcpy");
        total += lap(start, stop); // GPU to CPU
        check(cudaFree(work_d), "cudaFree");
        total += lap(start, stop); // free
        check(cudaEventDestroy(start), "cudaEventDestroy");
        check(cudaEventDestroy(stop), "cudaEventDestroy");
    }
    check(cudaFree(coord_d), "cudaFree");
    check(cudaFree(center_d), "cudaFree");
    check(cudaFree(switch_d), "cudaFree");
    printf("long_trace: %ld iterations, %.1f ms timed\n", iterations, total);
    return 0;
}
