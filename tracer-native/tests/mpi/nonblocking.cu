// Nonblocking collectives, the completions that poll and the probes, each iteration on a ring of
// ranks (left and right neighbours), every result checked:
//   A  MPI_Iallreduce of a device vector, a kernel on other data meanwhile, MPI_Wait;
//   B  MPI_Ibcast of host ints from rank it % size and MPI_Ibarrier, completed by MPI_Waitsome;
//   C  MPI_Irecv from the left and MPI_Isend to the right (device buffers), polled by MPI_Testall;
//   D  MPI_Ireduce to rank 0, MPI_Iallgather and MPI_Ialltoall (host ints), polled by MPI_Testany;
//   E  MPI_Send of a length the receiver does not know: MPI_Probe, MPI_Get_count, MPI_Recv;
//   F  MPI_Isend to the right; MPI_Iprobe(MPI_ANY_SOURCE) polled until found, MPI_Recv, MPI_Wait;
//   G  MPI_Irecv and MPI_Isend (tag 7), polled by MPI_Testsome.
// Then one MPI_Scan, which apptrace does not record (counted at MPI_Finalize). MpiOpsCaptureTest
// counts every call, completion, message and collective. The data are put on the device by copies:
// the simulated device runs no kernel (docs/SIMULATED-DEVICE.md).
#include <mpi.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

#define ITERS 3
#define N 4096
#define M 512
#define POLL_US 50 // a poll that found nothing waits this long before the next (work a program would do)

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "rank %d, iteration %d: ", rank, it);           \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
            MPI_Abort(MPI_COMM_WORLD, 2);                                   \
        }                                                                   \
    } while (0)

__global__ void scale(double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2 * y[i] + 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, it = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int devices;
    CHECK(cudaGetDeviceCount(&devices));
    CHECK(cudaSetDevice(rank % devices));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    float *xs, *xr, h[N];
    double *other, *ring_out, *ring_in, hd[M];
    CHECK(cudaMalloc(&xs, N * sizeof(float)));
    CHECK(cudaMalloc(&xr, N * sizeof(float)));
    CHECK(cudaMalloc(&other, M * sizeof(double)));
    CHECK(cudaMalloc(&ring_out, M * sizeof(double)));
    CHECK(cudaMalloc(&ring_in, M * sizeof(double)));
    CHECK(cudaMemset(other, 0, M * sizeof(double)));

    for (it = 0; it < ITERS; it++) {
        // A: the sum over the ranks of (rank + 1 + it), while a kernel runs on other data
        MPI_Request rq[3];
        for (int i = 0; i < N; i++) h[i] = (float)(rank + 1 + it);
        CHECK(cudaMemcpy(xs, h, sizeof h, cudaMemcpyHostToDevice)); // (the simulated device runs no kernel)
        MPI_Iallreduce(xs, xr, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
        scale<<<(M + 255) / 256, 256>>>(other, M);
        CHECK(cudaGetLastError());
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        CHECK(cudaMemcpy(h, xr, sizeof h, cudaMemcpyDeviceToHost));
        float want = (float)(size * (size + 1) / 2 + size * it);
        for (int i = 0; i < N; i++) EXPECT(h[i] == want, "Iallreduce: %g, not %g", h[i], want);

        // B: Ibcast from a root that moves each iteration, and a barrier, completed by Waitsome
        int root = it % size, params[64];
        for (int i = 0; i < 64; i++) params[i] = rank == root ? root * 100 + i + it : -1;
        MPI_Ibcast(params, 64, MPI_INT, root, MPI_COMM_WORLD, &rq[0]);
        MPI_Ibarrier(MPI_COMM_WORLD, &rq[1]);
        for (int done = 0; done < 2;) {
            int out, idx[2];
            MPI_Waitsome(2, rq, &out, idx, MPI_STATUSES_IGNORE);
            EXPECT(out >= 1 && out <= 2, "Waitsome completed %d", out);
            done += out;
        }
        for (int i = 0; i < 64; i++) EXPECT(params[i] == root * 100 + i + it, "Ibcast: %d", params[i]);

        // C: a ring shift of device doubles, polled by Testall
        for (int i = 0; i < M; i++) hd[i] = rank * 1000 + i + it;
        CHECK(cudaMemcpy(ring_out, hd, sizeof hd, cudaMemcpyHostToDevice));
        MPI_Irecv(ring_in, M, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(ring_out, M, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[1]);
        for (int flag = 0; !flag;) {
            MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
            if (!flag) usleep(POLL_US);
        }
        CHECK(cudaMemcpy(hd, ring_in, sizeof hd, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; i++) EXPECT(hd[i] == left * 1000 + i + it, "ring: %g", hd[i]);

        // D: Ireduce, Iallgather, Ialltoall, polled by Testany until none is left
        double mine = rank + it, total = -1;
        int *gathered = (int *)malloc(size * sizeof(int)), *to = (int *)malloc(size * sizeof(int)),
            *from = (int *)malloc(size * sizeof(int)), contribution = rank * 10 + it;
        for (int j = 0; j < size; j++) to[j] = rank * 100 + j;
        MPI_Ireduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, &rq[0]);
        MPI_Iallgather(&contribution, 1, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD, &rq[1]);
        MPI_Ialltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD, &rq[2]);
        for (int done = 0; done < 3;) {
            int index, flag;
            MPI_Testany(3, rq, &index, &flag, MPI_STATUS_IGNORE);
            if (flag) {
                EXPECT(index >= 0 && index < 3, "Testany index %d", index);
                done++;
            } else {
                usleep(POLL_US);
            }
        }
        if (rank == 0) EXPECT(total == size * (size - 1) / 2.0 + size * it, "Ireduce: %g", total);
        for (int j = 0; j < size; j++) {
            EXPECT(gathered[j] == j * 10 + it, "Iallgather: %d", gathered[j]);
            EXPECT(from[j] == j * 100 + rank, "Ialltoall: %d", from[j]);
        }
        free(gathered);
        free(to);
        free(from);

        // E: a length only the sender knows: Probe, then a receive of what it said
        int sent_len = (it + 1) * (rank + 1), *msg = (int *)malloc(sent_len * sizeof(int));
        for (int i = 0; i < sent_len; i++) msg[i] = rank + i;
        MPI_Request srq;
        MPI_Isend(msg, sent_len, MPI_INT, right, 5, MPI_COMM_WORLD, &srq);
        MPI_Status st;
        MPI_Probe(left, 5, MPI_COMM_WORLD, &st);
        int len;
        MPI_Get_count(&st, MPI_INT, &len);
        EXPECT(len == (it + 1) * (left + 1), "Probe: %d ints", len);
        int *in = (int *)malloc(len * sizeof(int));
        MPI_Recv(in, len, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < len; i++) EXPECT(in[i] == left + i, "Probe's message: %d", in[i]);
        MPI_Wait(&srq, MPI_STATUS_IGNORE);
        free(in);
        free(msg);

        // F: Iprobe from any source until the message is there, then receive it
        int token = rank * 7 + it, got = -1, flag = 0;
        MPI_Isend(&token, 1, MPI_INT, right, 6, MPI_COMM_WORLD, &srq);
        for (;;) {
            MPI_Iprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &flag, &st);
            if (flag) break;
            usleep(POLL_US);
        }
        EXPECT(st.MPI_SOURCE == left, "Iprobe: source %d", st.MPI_SOURCE);
        MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT(got == left * 7 + it, "Iprobe's message: %d", got);
        MPI_Wait(&srq, MPI_STATUS_IGNORE);

        // G: Testsome until both requests are done
        double a = rank + 0.5 * it, b = -1;
        MPI_Irecv(&b, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&a, 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &rq[1]);
        for (int done = 0; done < 2;) {
            int out, idx[2];
            MPI_Testsome(2, rq, &out, idx, MPI_STATUSES_IGNORE);
            EXPECT(out != MPI_UNDEFINED, "Testsome: no active request");
            done += out;
            if (out == 0) usleep(POLL_US);
        }
        EXPECT(b == left + 0.5 * it, "Testsome's message: %g", b);
    }
    int one = 1, prefix = 0;
    MPI_Scan(&one, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    it = ITERS;
    EXPECT(prefix == rank + 1, "Scan: %d", prefix);
    CHECK(cudaFree(xs));
    CHECK(cudaFree(xr));
    CHECK(cudaFree(other));
    CHECK(cudaFree(ring_out));
    CHECK(cudaFree(ring_in));
    MPI_Finalize();
    if (rank == 0) printf("nonblocking: %d ranks, %d iterations, all results as expected\n", size, ITERS);
    return 0;
}
