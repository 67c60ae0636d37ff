/* NCCL calls: the program's ncclX resolves to the hook below (the interposer is preloaded), which
 * calls the next ncclX, the NCCL library's, and records what the call did (docs/CAPTURE.md, "MPI
 * and NCCL").
 *
 * The functions are declared here from NCCL's documented API (NCCL 2.x, nccl.h, "NCCL API" in
 * NVIDIA's NCCL documentation), never from its header, which the interposer must not need:
 * ncclComm_t is a pointer, ncclUniqueId a struct of NCCL_UNIQUE_ID_BYTES (128) bytes passed by
 * value, ncclDataType_t, ncclRedOp_t and ncclResult_t are enums (ints). The rules of the MPI hooks
 * hold: every hook calls NCCL with the program's own arguments and returns its result whatever
 * happens to recording; the communicator's rank and size are asked (ncclCommUserRank,
 * ncclCommCount) only after the call succeeded. Without an NCCL library nothing here is called. */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"

typedef void *nccl_comm;
typedef struct {
    char internal[128];
} nccl_unique_id;
typedef int nccl_result;
/* Returned when the NCCL library has no such function: ncclInternalError. */
#define NCCL_NO_FUNCTION 3

#define NCCL_HOOK(name, params) APPTRACE_EXPORT nccl_result name params

#define NCCL_REAL(type, name)                                                           \
    static type real;                                                                   \
    if (AT_UNLIKELY(real == NULL)) {                                                    \
        real = (type)at_resolve(#name);                                                 \
        if (real == NULL) return NCCL_NO_FUNCTION;                                      \
    }

/* ncclDataType_t's sizes in bytes: ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64,
 * ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16, ncclFloat8e4m3,
 * ncclFloat8e5m2 (0 to 11); 0 for another value. */
static uint64_t type_size(int type) {
    static const uint8_t size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return type >= 0 && type < (int)sizeof size ? size[type] : 0;
}

/* --- communicators: the id of each, by handle ------------------------------------------------ */

#define COMM_SLOTS 256
static struct {
    nccl_comm handle;
    uint64_t id;
} comms[COMM_SLOTS];
static int ncomms;
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const void *p, size_t n, uint64_t h) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void comm_keep(nccl_comm handle, uint64_t id) {
    pthread_mutex_lock(&comm_lock);
    int i = 0;
    while (i < ncomms && comms[i].handle != handle) i++;
    if (i < COMM_SLOTS) {
        comms[i].handle = handle;
        comms[i].id = id;
        if (i == ncomms) ncomms++;
    }
    pthread_mutex_unlock(&comm_lock);
}

static uint64_t comm_id(nccl_comm handle) {
    uint64_t id = 0;
    pthread_mutex_lock(&comm_lock);
    for (int i = 0; i < ncomms; i++) {
        if (comms[i].handle == handle) {
            id = comms[i].id;
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
    return id;
}

static void comm_forget(nccl_comm handle) {
    pthread_mutex_lock(&comm_lock);
    for (int i = 0; i < ncomms; i++) {
        if (comms[i].handle == handle) {
            comms[i] = comms[--ncomms];
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
}

/* --- recording ------------------------------------------------------------------------------- */

typedef nccl_result (*comm_int_fn)(nccl_comm, int *);

/* The caller's rank in `comm` and its size, asked of NCCL (after a call on it succeeded). */
static void ask_comm(nccl_comm comm, enc_nccl *m) {
    static comm_int_fn user_rank, count;
    if (user_rank == NULL) user_rank = (comm_int_fn)at_resolve("ncclCommUserRank");
    if (count == NULL) count = (comm_int_fn)at_resolve("ncclCommCount");
    int r = -1, n = 0;
    if (user_rank != NULL && user_rank(comm, &r) == 0) m->rank = r;
    if (count != NULL && count(comm, &n) == 0 && n > 0) m->comm_size = (uint32_t)n;
}

/* Records a call on `comm` that returned r, and leaves the hook. ncclReduceScatter comes with
 * the receive buffer's bytes in m->bytes; the buffers' addresses are kept only when it succeeded
 * (as the MPI hooks keep theirs). */
static nccl_result on_comm(at_call *c, nccl_result r, enc_nccl *m, nccl_comm comm) {
    m->comm = (uint64_t)(uintptr_t)comm;
    if (r != 0) m->send_buffer = m->recv_buffer = 0;
    m->comm_id = comm_id(comm);
    m->rank = -1;
    if (r == 0 && comm != NULL) ask_comm(comm, m);
    if (m->op == PB_NcclOp_NCCL_ALL_GATHER) m->total_bytes = m->bytes * m->comm_size;
    if (m->op == PB_NcclOp_NCCL_REDUCE_SCATTER) {
        m->total_bytes = m->bytes;
        m->bytes *= m->comm_size;
    }
    AT_RECORD(c, r, enc_nccl_body, m);
    at_leave(c);
    return r;
}

/* --- communicators --------------------------------------------------------------------------- */

typedef nccl_result (*init_rank_fn)(nccl_comm *, int, nccl_unique_id, int);
NCCL_HOOK(ncclCommInitRank, (nccl_comm *comm, int nranks, nccl_unique_id id, int rank)) {
    NCCL_REAL(init_rank_fn, ncclCommInitRank);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(comm, nranks, id, rank);
    nccl_result r = real(comm, nranks, id, rank);
    enc_nccl m = {.op = PB_NcclOp_NCCL_COMM_INIT_RANK};
    nccl_comm made = r == 0 && comm != NULL ? *comm : NULL;
    if (made != NULL) {
        uint64_t h = fnv1a(id.internal, sizeof id.internal, 1469598103934665603ull);
        comm_keep(made, h == 0 ? 1 : h);
    }
    return on_comm(&c, r, &m, made);
}

typedef nccl_result (*init_all_fn)(nccl_comm *, int, const int *);
NCCL_HOOK(ncclCommInitAll, (nccl_comm *comms_out, int ndev, const int *devlist)) {
    NCCL_REAL(init_all_fn, ncclCommInitAll);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(comms_out, ndev, devlist);
    nccl_result r = real(comms_out, ndev, devlist);
    enc_nccl m = {.op = PB_NcclOp_NCCL_COMM_INIT_ALL, .rank = -1};
    if (r == 0 && comms_out != NULL && ndev > 0) {
        /* the communicators of one call share an id: the process and the call's time */
        uint32_t pid = (uint32_t)getpid();
        uint64_t h = fnv1a(&pid, sizeof pid, 1469598103934665603ull);
        h = fnv1a(&c.entry_ns, sizeof c.entry_ns, h);
        h = h == 0 ? 1 : h;
        for (int i = 0; i < ndev; i++) comm_keep(comms_out[i], h);
        m.comm = (uint64_t)(uintptr_t)comms_out[0];
        m.comm_id = h;
        m.comm_size = (uint32_t)ndev;
    }
    AT_RECORD(&c, r, enc_nccl_body, &m);
    at_leave(&c);
    return r;
}

typedef nccl_result (*destroy_fn)(nccl_comm);
NCCL_HOOK(ncclCommDestroy, (nccl_comm comm)) {
    NCCL_REAL(destroy_fn, ncclCommDestroy);
    at_call c;
    if (!AT_ENTER(&c, 0)) {
        comm_forget(comm);
        return real(comm);
    }
    /* rank and size are asked before: the handle is gone after the call */
    enc_nccl m = {.op = PB_NcclOp_NCCL_COMM_DESTROY, .comm = (uint64_t)(uintptr_t)comm, .comm_id = comm_id(comm),
                  .rank = -1};
    if (comm != NULL) ask_comm(comm, &m);
    nccl_result r = real(comm);
    comm_forget(comm);
    AT_RECORD(&c, r, enc_nccl_body, &m);
    at_leave(&c);
    return r;
}

/* --- collectives and point to point ---------------------------------------------------------- */

typedef nccl_result (*all_reduce_fn)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
NCCL_HOOK(ncclAllReduce, (const void *send, void *recv, size_t count, int type, int op, nccl_comm comm,
                          cudaStream_t stream)) {
    NCCL_REAL(all_reduce_fn, ncclAllReduce);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(send, recv, count, type, op, comm, stream);
    nccl_result r = real(send, recv, count, type, op, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_ALL_REDUCE, .bytes = count * type_size(type), .stream = at_stream(stream),
                  .send_buffer = (uintptr_t)send, .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

typedef nccl_result (*broadcast_fn)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
NCCL_HOOK(ncclBroadcast, (const void *send, void *recv, size_t count, int type, int root, nccl_comm comm,
                          cudaStream_t stream)) {
    NCCL_REAL(broadcast_fn, ncclBroadcast);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(send, recv, count, type, root, comm, stream);
    nccl_result r = real(send, recv, count, type, root, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_BROADCAST, .peer = root, .bytes = count * type_size(type),
                  .stream = at_stream(stream), .send_buffer = (uintptr_t)send, .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

typedef nccl_result (*reduce_fn)(const void *, void *, size_t, int, int, int, nccl_comm, cudaStream_t);
NCCL_HOOK(ncclReduce, (const void *send, void *recv, size_t count, int type, int op, int root, nccl_comm comm,
                       cudaStream_t stream)) {
    NCCL_REAL(reduce_fn, ncclReduce);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(send, recv, count, type, op, root, comm, stream);
    nccl_result r = real(send, recv, count, type, op, root, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_REDUCE, .peer = root, .bytes = count * type_size(type),
                  .stream = at_stream(stream), .send_buffer = (uintptr_t)send, .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

typedef nccl_result (*all_gather_fn)(const void *, void *, size_t, int, nccl_comm, cudaStream_t);
NCCL_HOOK(ncclAllGather, (const void *send, void *recv, size_t sendcount, int type, nccl_comm comm,
                          cudaStream_t stream)) {
    NCCL_REAL(all_gather_fn, ncclAllGather);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(send, recv, sendcount, type, comm, stream);
    nccl_result r = real(send, recv, sendcount, type, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_ALL_GATHER, .bytes = sendcount * type_size(type),
                  .stream = at_stream(stream), .send_buffer = (uintptr_t)send, .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

typedef nccl_result (*reduce_scatter_fn)(const void *, void *, size_t, int, int, nccl_comm, cudaStream_t);
NCCL_HOOK(ncclReduceScatter, (const void *send, void *recv, size_t recvcount, int type, int op, nccl_comm comm,
                              cudaStream_t stream)) {
    NCCL_REAL(reduce_scatter_fn, ncclReduceScatter);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(send, recv, recvcount, type, op, comm, stream);
    nccl_result r = real(send, recv, recvcount, type, op, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_REDUCE_SCATTER, .bytes = recvcount * type_size(type),
                  .stream = at_stream(stream), .send_buffer = (uintptr_t)send, .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

/* ncclSend and ncclRecv: (buffer, count, type, peer, comm, stream). */
typedef nccl_result (*p2p_fn)(void *, size_t, int, int, nccl_comm, cudaStream_t);

NCCL_HOOK(ncclSend, (const void *send, size_t count, int type, int peer, nccl_comm comm, cudaStream_t stream)) {
    NCCL_REAL(p2p_fn, ncclSend);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real((void *)send, count, type, peer, comm, stream);
    nccl_result r = real((void *)send, count, type, peer, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_SEND, .peer = peer, .bytes = count * type_size(type),
                  .stream = at_stream(stream), .send_buffer = (uintptr_t)send};
    return on_comm(&c, r, &m, comm);
}

NCCL_HOOK(ncclRecv, (void *recv, size_t count, int type, int peer, nccl_comm comm, cudaStream_t stream)) {
    NCCL_REAL(p2p_fn, ncclRecv);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(recv, count, type, peer, comm, stream);
    nccl_result r = real(recv, count, type, peer, comm, stream);
    enc_nccl m = {.op = PB_NcclOp_NCCL_RECV, .peer = peer, .bytes = count * type_size(type),
                  .stream = at_stream(stream), .recv_buffer = (uintptr_t)recv};
    return on_comm(&c, r, &m, comm);
}

/* --- groups ---------------------------------------------------------------------------------- */

typedef nccl_result (*group_fn)(void);

static nccl_result group(group_fn real, int op) {
    at_call c;
    if (!AT_ENTER(&c, 0)) return real();
    nccl_result r = real();
    enc_nccl m = {.op = op, .rank = -1};
    AT_RECORD(&c, r, enc_nccl_body, &m);
    at_leave(&c);
    return r;
}

NCCL_HOOK(ncclGroupStart, (void)) {
    NCCL_REAL(group_fn, ncclGroupStart);
    return group(real, PB_NcclOp_NCCL_GROUP_START);
}

NCCL_HOOK(ncclGroupEnd, (void)) {
    NCCL_REAL(group_fn, ncclGroupEnd);
    return group(real, PB_NcclOp_NCCL_GROUP_END);
}
