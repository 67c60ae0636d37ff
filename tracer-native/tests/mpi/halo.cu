// A 1D halo exchange with CUDA-aware MPI: each rank owns N cells on the device with a halo of H
// cells on each side, and every iteration exchanges halos with both neighbours of a ring
// (Irecv, Isend, Waitall, device buffers), then updates its cells with a kernel. Then one
// MPI_Sendrecv ring shift of a host int, and rank 0 sends 100 doubles (host) to the last rank.
// Each rank uses simulated device (node-local rank) % devices. MpiCaptureTest counts the messages.
#include <mpi.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define ITERS 5
#define H 256
#define N 4096

__global__ void relax(const double *u, double *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[H + i] = 0.5 * (u[H + i - 1] + u[H + i + 1]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int local, devices;
    MPI_Comm_rank(node, &local);
    CHECK(cudaGetDeviceCount(&devices));
    CHECK(cudaSetDevice(local % devices));
    // a collective on the node communicator: recorded with its own id and size
    int on_node = 0;
    MPI_Allreduce(&local, &on_node, 1, MPI_INT, MPI_MAX, node);

    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double *u, *v;
    size_t bytes = (N + 2 * H) * sizeof(double);
    CHECK(cudaMalloc(&u, bytes));
    CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMemset(u, 0, bytes));
    for (int it = 0; it < ITERS; it++) {
        MPI_Request rq[4];
        MPI_Irecv(u, H, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(u + H + N, H, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(u + H, H, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(u + N, H, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        relax<<<(N + 255) / 256, 256>>>(u, v, N);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        double *t = u;
        u = v;
        v = t;
    }
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (got != left) {
        fprintf(stderr, "rank %d got %d from %d\n", rank, got, left);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double result[100];
    if (size > 1 && rank == 0) {
        for (int i = 0; i < 100; i++) result[i] = i;
        MPI_Send(result, 100, MPI_DOUBLE, size - 1, 9, MPI_COMM_WORLD);
    } else if (size > 1 && rank == size - 1) {
        MPI_Status st;
        MPI_Recv(result, 100, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    }
    CHECK(cudaFree(u));
    CHECK(cudaFree(v));
    MPI_Comm_free(&node);
    MPI_Finalize();
    if (rank == 0) printf("halo: %d ranks, %d iterations\n", size, ITERS);
    return 0;
}
