// Data parallelism with NCCL under MPI: rank 0 makes the NCCL unique id and MPI_Bcast gives it to
// every rank; each rank reduces a device vector in place with ncclAllReduce, ITERS times on its
// stream; then a ring of ncclSend/ncclRecv inside a group, an ncclBroadcast, an ncclAllGather and
// an ncclReduceScatter. Every result is checked on the host (exit 3 with a message if wrong).
// Sizes are chosen to take several chunks of the simulated NCCL's staging buffers. The NCCL
// capture test (NcclJobCaptureTest) counts the calls.
#include <mpi.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define ITERS 3
#define N 100000  // floats reduced (400 KB)
#define M 20000   // ints sent around the ring (80 KB)
#define B 4096    // doubles broadcast
#define G 1000    // ints each rank gives the gather
#define R 3000    // floats each rank gets from the reduce-scatter

#define NCCL(x)                                                                           \
    do {                                                                                  \
        ncclResult_t r_ = (x);                                                            \
        if (r_ != ncclSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_));   \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                 \
        }                                                                                 \
    } while (0)

static int rank;

static void expect(bool ok, const char *what, long i, double got, double want) {
    if (!ok) {
        fprintf(stderr, "rank %d: %s[%ld] is %g, not %g\n", rank, what, i, got, want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size, devices;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(cudaGetDeviceCount(&devices));
    CHECK(cudaSetDevice(rank % devices));

    ncclUniqueId id;
    if (rank == 0) NCCL(ncclGetUniqueId(&id));
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    NCCL(ncclCommInitRank(&comm, size, id, rank));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    // ncclAllReduce in place, ITERS times: each time every element is summed over the ranks
    float *x, *hx = (float *)malloc(N * sizeof(float));
    CHECK(cudaMalloc(&x, N * sizeof(float)));
    for (int i = 0; i < N; i++) hx[i] = (float)(rank + 1 + i % 7);
    CHECK(cudaMemcpy(x, hx, N * sizeof(float), cudaMemcpyHostToDevice));
    for (int it = 0; it < ITERS; it++) NCCL(ncclAllReduce(x, x, N, ncclFloat, ncclSum, comm, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(hx, x, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        double want = size * (size + 1) / 2.0 + (double)size * (i % 7);
        for (int it = 1; it < ITERS; it++) want *= size;
        expect(hx[i] == want, "allreduce", i, hx[i], want);
    }

    // a ring: each rank sends to its right and receives from its left, in one group
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sendb, *recvb, *h = (int *)malloc(M * sizeof(int));
    CHECK(cudaMalloc(&sendb, M * sizeof(int)));
    CHECK(cudaMalloc(&recvb, M * sizeof(int)));
    for (int i = 0; i < M; i++) h[i] = rank * M + i;
    CHECK(cudaMemcpy(sendb, h, M * sizeof(int), cudaMemcpyHostToDevice));
    NCCL(ncclGroupStart());
    NCCL(ncclSend(sendb, M, ncclInt32, right, comm, s));
    NCCL(ncclRecv(recvb, M, ncclInt32, left, comm, s));
    NCCL(ncclGroupEnd());
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h, recvb, M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++) expect(h[i] == left * M + i, "ring", i, h[i], left * M + i);

    // ncclBroadcast from the last rank
    double *bd, *hb = (double *)malloc(B * sizeof(double));
    CHECK(cudaMalloc(&bd, B * sizeof(double)));
    for (int i = 0; i < B; i++) hb[i] = rank == size - 1 ? 0.5 * i : -1;
    CHECK(cudaMemcpy(bd, hb, B * sizeof(double), cudaMemcpyHostToDevice));
    NCCL(ncclBroadcast(bd, bd, B, ncclDouble, size - 1, comm, s));
    CHECK(cudaMemcpyAsync(hb, bd, B * sizeof(double), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < B; i++) expect(hb[i] == 0.5 * i, "broadcast", i, hb[i], 0.5 * i);

    // ncclAllGather: rank r gives G ints r*G + i
    int *gs, *gr, *hg = (int *)malloc((size_t)size * G * sizeof(int));
    CHECK(cudaMalloc(&gs, G * sizeof(int)));
    CHECK(cudaMalloc(&gr, (size_t)size * G * sizeof(int)));
    for (int i = 0; i < G; i++) hg[i] = rank * G + i;
    CHECK(cudaMemcpy(gs, hg, G * sizeof(int), cudaMemcpyHostToDevice));
    NCCL(ncclAllGather(gs, gr, G, ncclInt32, comm, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(hg, gr, (size_t)size * G * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < size * G; i++) expect(hg[i] == i, "allgather", i, hg[i], i);

    // ncclReduceScatter with ncclMax: element j of rank r's input is r + j
    float *rs, *rr, *hr = (float *)malloc((size_t)size * R * sizeof(float));
    CHECK(cudaMalloc(&rs, (size_t)size * R * sizeof(float)));
    CHECK(cudaMalloc(&rr, R * sizeof(float)));
    for (int j = 0; j < size * R; j++) hr[j] = (float)(rank + j);
    CHECK(cudaMemcpy(rs, hr, (size_t)size * R * sizeof(float), cudaMemcpyHostToDevice));
    NCCL(ncclReduceScatter(rs, rr, R, ncclFloat, ncclMax, comm, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(hr, rr, R * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < R; i++) {
        double want = size - 1 + rank * R + i;
        expect(hr[i] == want, "reducescatter", i, hr[i], want);
    }

    NCCL(ncclCommDestroy(comm));
    CHECK(cudaFree(x));
    CHECK(cudaFree(sendb));
    CHECK(cudaFree(recvb));
    CHECK(cudaFree(bd));
    CHECK(cudaFree(gs));
    CHECK(cudaFree(gr));
    CHECK(cudaFree(rs));
    CHECK(cudaFree(rr));
    CHECK(cudaStreamDestroy(s));
    MPI_Finalize();
    if (rank == 0) printf("nccl_allreduce: %d ranks, every result checked\n", size);
    return 0;
}
