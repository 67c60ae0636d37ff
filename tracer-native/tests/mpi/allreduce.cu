// The iteration of a conjugate-gradient solver (MiniFE's shape): a kernel, then a dot product
// reduced over the ranks with MPI_Allreduce on a host double, and a vector of the device
// reduced in place with CUDA-aware MPI_Allreduce on device memory; then a broadcast from rank 0
// and a barrier. MpiCaptureTest counts the collectives.
#include <mpi.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define ITERS 4
#define N 1024

__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 0.5f;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    float *x;
    if (cudaMalloc(&x, N * sizeof(float)) != cudaSuccess) MPI_Abort(MPI_COMM_WORLD, 1);
    cudaMemset(x, 0, N * sizeof(float));
    double dot = 0;
    for (int it = 0; it < ITERS; it++) {
        scale<<<(N + 255) / 256, 256>>>(x, N);
        cudaDeviceSynchronize();
        double local = rank + it, global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        dot += global;
        MPI_Allreduce(MPI_IN_PLACE, x, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    int params[256] = {0};
    MPI_Bcast(params, 256, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    cudaFree(x);
    MPI_Finalize();
    if (rank == 0) printf("allreduce: %d ranks, dot %g\n", size, dot);
    return 0;
}
