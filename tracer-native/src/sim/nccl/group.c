/* The simulated NCCL's calls (see simnccl.h): each checks its arguments as NCCL does and becomes
 * an operation; ncclGroupStart and ncclGroupEnd gather a thread's operations, and at the end of
 * the outermost group (at once, outside a group) they are queued as one task in stream order. */
#include <stdlib.h>
#include <string.h>

#include "simnccl.h"

/* The calling thread's group: its depth and the operations gathered since it began. */
static __thread struct {
    int depth;
    simnccl_op *ops;
    size_t n, cap;
    ncclResult_t error; /* the first error of a call in the group: the group is dropped */
} group;

typedef struct {
    size_t n;
    simnccl_op ops[];
} task;

/* Runs on the simulated runtime's worker when the stream gets there (cudaLaunchHostFunc). */
static void run_task(void *arg) {
    task *t = arg;
    simnccl_run(t->ops, t->n);
    for (size_t i = 0; i < t->n; i++) atomic_fetch_sub(&t->ops[i].comm->pending, 1);
    free(t);
}

/* Makes `to` wait for the work queued so far on `from` (the event is made on from's device, as
 * CUDA requires to record it there). */
static cudaError_t order_after(cudaStream_t to, cudaStream_t from) {
    int current, device;
    cudaError_t r = cudaGetDevice(&current);
    if (r == cudaSuccess) r = cudaStreamGetDevice(from, &device);
    if (r == cudaSuccess && device != current) r = cudaSetDevice(device);
    if (r != cudaSuccess) return r;
    cudaEvent_t e;
    r = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    if (r == cudaSuccess) {
        r = cudaEventRecord(e, from);
        if (r == cudaSuccess) r = cudaStreamWaitEvent(to, e, 0);
        cudaEventDestroy(e);
    }
    if (device != current) cudaSetDevice(current);
    return r;
}

/* Queues ops as one task on the first one's stream, after the work already queued on every
 * stream they name and before any work queued on those streams later. */
static ncclResult_t launch(const simnccl_op *ops, size_t n) {
    task *t = malloc(sizeof *t + n * sizeof *ops);
    if (t == NULL) return ncclSystemError;
    t->n = n;
    memcpy(t->ops, ops, n * sizeof *ops);
    cudaStream_t first = ops[0].stream;
    for (size_t i = 1; i < n; i++) {
        if (ops[i].stream != first && order_after(first, ops[i].stream) != cudaSuccess) {
            free(t);
            return ncclUnhandledCudaError;
        }
    }
    for (size_t i = 0; i < n; i++) atomic_fetch_add(&ops[i].comm->pending, 1);
    if (cudaLaunchHostFunc(first, run_task, t) != cudaSuccess) {
        for (size_t i = 0; i < n; i++) atomic_fetch_sub(&ops[i].comm->pending, 1);
        free(t);
        return ncclUnhandledCudaError;
    }
    for (size_t i = 1; i < n; i++) {
        if (ops[i].stream != first && order_after(ops[i].stream, first) != cudaSuccess) return ncclUnhandledCudaError;
    }
    return ncclSuccess;
}

static ncclResult_t check(const simnccl_op *op) {
    if (op->comm == NULL || simnccl_type_size(op->type) == 0) return ncclInvalidArgument;
    bool reduces = op->kind == SIMNCCL_ALL_REDUCE || op->kind == SIMNCCL_REDUCE || op->kind == SIMNCCL_REDUCE_SCATTER;
    if (reduces && !simnccl_op_valid(op->op)) return ncclInvalidArgument;
    bool rooted = op->kind == SIMNCCL_BROADCAST || op->kind == SIMNCCL_REDUCE || op->kind == SIMNCCL_SEND ||
                  op->kind == SIMNCCL_RECV;
    if (rooted && (op->peer < 0 || op->peer >= op->comm->nranks)) return ncclInvalidArgument;
    if (op->count == 0) return ncclSuccess;
    bool sends = op->kind != SIMNCCL_RECV && !(op->kind == SIMNCCL_BROADCAST && op->comm->rank != op->peer);
    bool receives = op->kind != SIMNCCL_SEND && !(op->kind == SIMNCCL_REDUCE && op->comm->rank != op->peer);
    if ((sends && op->send == NULL) || (receives && op->recv == NULL)) return ncclInvalidArgument;
    return ncclSuccess;
}

ncclResult_t simnccl_submit(const simnccl_op *op) {
    ncclResult_t r = check(op);
    if (group.depth == 0) return r != ncclSuccess ? r : launch(op, 1);
    if (r != ncclSuccess) {
        if (group.error == ncclSuccess) group.error = r;
        return r;
    }
    if (group.n == group.cap) {
        size_t cap = group.cap ? 2 * group.cap : 16;
        simnccl_op *ops = realloc(group.ops, cap * sizeof *ops);
        if (ops == NULL) return ncclSystemError;
        group.ops = ops;
        group.cap = cap;
    }
    group.ops[group.n++] = *op;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclGroupStart(void) {
    group.depth++;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclGroupEnd(void) {
    if (group.depth == 0) return ncclInvalidUsage;
    if (--group.depth > 0) return ncclSuccess;
    ncclResult_t r = group.error;
    if (r == ncclSuccess && group.n > 0) r = launch(group.ops, group.n);
    group.n = 0;
    group.error = ncclSuccess;
    return r;
}

static ncclResult_t submit(simnccl_kind kind, const void *send, void *recv, size_t count, int type, int op, int peer,
                           ncclComm_t comm, cudaStream_t stream) {
    simnccl_op o = {.kind = kind, .comm = simnccl_comm(comm), .send = send, .recv = recv, .count = count,
                    .type = type, .op = op, .peer = peer, .stream = stream};
    return simnccl_submit(&o);
}

SIMNCCL_API ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                       ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
    return submit(SIMNCCL_ALL_REDUCE, sendbuff, recvbuff, count, datatype, op, 0, comm, stream);
}

SIMNCCL_API ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                       int root, ncclComm_t comm, cudaStream_t stream) {
    return submit(SIMNCCL_BROADCAST, sendbuff, recvbuff, count, datatype, ncclSum, root, comm, stream);
}

SIMNCCL_API ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                    ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
    return submit(SIMNCCL_REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

SIMNCCL_API ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                       ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
    return submit(SIMNCCL_ALL_GATHER, sendbuff, recvbuff, sendcount, datatype, ncclSum, 0, comm, stream);
}

SIMNCCL_API ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                           cudaStream_t stream) {
    return submit(SIMNCCL_REDUCE_SCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0, comm, stream);
}

SIMNCCL_API ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                                  ncclComm_t comm, cudaStream_t stream) {
    return submit(SIMNCCL_SEND, sendbuff, NULL, count, datatype, ncclSum, peer, comm, stream);
}

SIMNCCL_API ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                                  cudaStream_t stream) {
    return submit(SIMNCCL_RECV, NULL, recvbuff, count, datatype, ncclSum, peer, comm, stream);
}
