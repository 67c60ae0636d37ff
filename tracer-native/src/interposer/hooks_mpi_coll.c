/* MPI collectives, blocking and nonblocking (MPI_Ibarrier, MPI_Ibcast, MPI_Ireduce, MPI_Iallreduce,
 * MPI_Iallgather, MPI_Ialltoall: the same record with the request a Wait or Test completes),
 * through MPI's profiling interface (see hooks_mpi.c for the rules every hook
 * keeps). `bytes` is the caller's contribution, the message size of Thakur and Gropp's cost
 * formulas; `total_bytes` the receive buffer's size where it differs; `peer` the root's world
 * rank for rooted collectives; `send_buffer` and `recv_buffer` the buffers' addresses, MPI_IN_PLACE
 * recorded as `in_place` (the address 0). */
#include "hooks_mpi.h"

/* `buf` is the buffer whose memory `device_buffer` tells; `sbuf` and `rbuf` the send and receive
 * buffers as the program passed them; `req` the request of a nonblocking collective (NULL for a
 * blocking one), kept for the Wait or Test that completes it. */
static int collective_req(int op, mpi_h comm, int root, uint64_t bytes, uint64_t total, const void *buf,
                          const void *sbuf, const void *rbuf, mpi_h *req, at_call *c, int r) {
    enc_mpi m = {0};
    mpi_on_comm(&m, op, comm);
    if (r == 0) {
        m.peer = root >= 0 ? mpi_world_rank_of(comm, root) : 0;
        m.bytes = bytes;
        m.total_bytes = total;
        m.device_buffer = mpi_device_memory(buf);
        m.in_place = mpi_in_place(sbuf) || mpi_in_place(rbuf);
        m.send_buffer = mpi_in_place(sbuf) ? 0 : (uintptr_t)sbuf;
        m.recv_buffer = mpi_in_place(rbuf) ? 0 : (uintptr_t)rbuf;
        if (req != NULL && mpi_usable()) m.request = mpi_request_started(mpi_handle_at(req, 0), false, comm, NULL);
    }
    mpi_record(c, r, &m);
    at_leave(c);
    return r;
}

static int collective(int op, mpi_h comm, int root, uint64_t bytes, uint64_t total, const void *buf,
                      const void *sbuf, const void *rbuf, at_call *c, int r) {
    return collective_req(op, comm, root, bytes, total, buf, sbuf, rbuf, NULL, c, r);
}

typedef int (*barrier_fn)(mpi_h);
MPI_HOOK(int, MPI_Barrier, (mpi_h comm)) {
    PMPI_REAL(barrier_fn, MPI_Barrier);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(comm);
    int r = real(comm);
    return collective(PB_MpiOp_MPI_BARRIER, comm, -1, 0, 0, NULL, NULL, NULL, &c, r);
}

typedef int (*bcast_fn)(void *, int, mpi_h, int, mpi_h);
MPI_HOOK(int, MPI_Bcast, (void *buf, int count, mpi_h type, int root, mpi_h comm)) {
    PMPI_REAL(bcast_fn, MPI_Bcast);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(buf, count, type, root, comm);
    int r = real(buf, count, type, root, comm);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective(PB_MpiOp_MPI_BCAST, comm, root, b, 0, buf, buf, buf, &c, r);
}

typedef int (*reduce_fn)(const void *, void *, int, mpi_h, mpi_h, int, mpi_h);
MPI_HOOK(int, MPI_Reduce, (const void *s, void *rbuf, int count, mpi_h type, mpi_h op, int root, mpi_h comm)) {
    PMPI_REAL(reduce_fn, MPI_Reduce);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, rbuf, count, type, op, root, comm);
    int r = real(s, rbuf, count, type, op, root, comm);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective(PB_MpiOp_MPI_REDUCE, comm, root, b, 0, mpi_in_place(s) ? rbuf : s, s, rbuf, &c, r);
}

typedef int (*allreduce_fn)(const void *, void *, int, mpi_h, mpi_h, mpi_h);
MPI_HOOK(int, MPI_Allreduce, (const void *s, void *rbuf, int count, mpi_h type, mpi_h op, mpi_h comm)) {
    PMPI_REAL(allreduce_fn, MPI_Allreduce);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, rbuf, count, type, op, comm);
    int r = real(s, rbuf, count, type, op, comm);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective(PB_MpiOp_MPI_ALLREDUCE, comm, -1, b, 0, mpi_in_place(s) ? rbuf : s, s, rbuf, &c, r);
}

typedef int (*reduce_scatter_block_fn)(const void *, void *, int, mpi_h, mpi_h, mpi_h);
MPI_HOOK(int, MPI_Reduce_scatter_block, (const void *s, void *rbuf, int rcount, mpi_h type, mpi_h op, mpi_h comm)) {
    PMPI_REAL(reduce_scatter_block_fn, MPI_Reduce_scatter_block);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, rbuf, rcount, type, op, comm);
    int r = real(s, rbuf, rcount, type, op, comm);
    mpi_comm_info ci = {0};
    uint64_t per = r == 0 ? mpi_bytes(rcount, type) : 0;
    if (r == 0) mpi_comm(comm, &ci);
    return collective(PB_MpiOp_MPI_REDUCE_SCATTER_BLOCK, comm, -1, per * ci.size, per,
                      mpi_in_place(s) ? rbuf : s, s, rbuf, &c, r);
}

/* Allgather, Alltoall and their nonblocking forms: a rank's contribution (MPI_IN_PLACE: it has the
 * receive buffer's type and count) and the gathered vector's bytes. */
static void gathered_bytes(const void *s, int scount, mpi_h stype, int rcount, mpi_h rtype, mpi_h comm,
                           uint64_t *bytes, uint64_t *total) {
    mpi_comm_info ci = {0};
    mpi_comm(comm, &ci);
    *bytes = mpi_in_place(s) ? mpi_bytes(rcount, rtype) : mpi_bytes(scount, stype);
    *total = mpi_bytes(rcount, rtype) * ci.size;
}

/* Allgather, Alltoall: (send buffer, count, type, receive buffer, count, type, comm). */
typedef int (*gather_all_fn)(const void *, int, mpi_h, void *, int, mpi_h, mpi_h);

static int gather_all(gather_all_fn real, int op, const void *s, int scount, mpi_h stype, void *rbuf,
                      int rcount, mpi_h rtype, mpi_h comm) {
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, scount, stype, rbuf, rcount, rtype, comm);
    int r = real(s, scount, stype, rbuf, rcount, rtype, comm);
    uint64_t b = 0, total = 0;
    if (r == 0) gathered_bytes(s, scount, stype, rcount, rtype, comm, &b, &total);
    return collective(op, comm, -1, b, total, mpi_in_place(s) ? rbuf : s, s, rbuf, &c, r);
}

MPI_HOOK(int, MPI_Allgather, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                              mpi_h comm)) {
    PMPI_REAL(gather_all_fn, MPI_Allgather);
    return gather_all(real, PB_MpiOp_MPI_ALLGATHER, s, scount, stype, rbuf, rcount, rtype, comm);
}

MPI_HOOK(int, MPI_Alltoall, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                             mpi_h comm)) {
    PMPI_REAL(gather_all_fn, MPI_Alltoall);
    return gather_all(real, PB_MpiOp_MPI_ALLTOALL, s, scount, stype, rbuf, rcount, rtype, comm);
}

/* Gather, Scatter: the same with a root. */
typedef int (*rooted_fn)(const void *, int, mpi_h, void *, int, mpi_h, int, mpi_h);

MPI_HOOK(int, MPI_Gather, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                           int root, mpi_h comm)) {
    PMPI_REAL(rooted_fn, MPI_Gather);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, scount, stype, rbuf, rcount, rtype, root, comm);
    int r = real(s, scount, stype, rbuf, rcount, rtype, root, comm);
    uint64_t b = r == 0 ? (mpi_in_place(s) ? mpi_bytes(rcount, rtype) : mpi_bytes(scount, stype)) : 0;
    return collective(PB_MpiOp_MPI_GATHER, comm, root, b, 0, mpi_in_place(s) ? rbuf : s, s, rbuf, &c, r);
}

MPI_HOOK(int, MPI_Scatter, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                            int root, mpi_h comm)) {
    PMPI_REAL(rooted_fn, MPI_Scatter);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(s, scount, stype, rbuf, rcount, rtype, root, comm);
    int r = real(s, scount, stype, rbuf, rcount, rtype, root, comm);
    /* the piece each rank receives; only the root's send arguments are significant */
    uint64_t b = r == 0 && !mpi_in_place(rbuf) ? mpi_bytes(rcount, rtype) : (r == 0 ? mpi_bytes(scount, stype) : 0);
    return collective(PB_MpiOp_MPI_SCATTER, comm, root, b, 0, !mpi_in_place(rbuf) ? rbuf : s, s, rbuf, &c, r);
}

/* --- nonblocking collectives: recorded as the blocking ones, with their request ------------------ */

typedef int (*ibarrier_fn)(mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Ibarrier, (mpi_h comm, mpi_h *req)) {
    PMPI_REAL(ibarrier_fn, MPI_Ibarrier);
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(comm, req);
    int r = real(comm, req);
    return collective_req(PB_MpiOp_MPI_IBARRIER, comm, -1, 0, 0, NULL, NULL, NULL, req, &c, r);
}

typedef int (*ibcast_fn)(void *, int, mpi_h, int, mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Ibcast, (void *buf, int count, mpi_h type, int root, mpi_h comm, mpi_h *req)) {
    PMPI_REAL(ibcast_fn, MPI_Ibcast);
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(buf, count, type, root, comm, req);
    int r = real(buf, count, type, root, comm, req);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective_req(PB_MpiOp_MPI_IBCAST, comm, root, b, 0, buf, buf, buf, req, &c, r);
}

typedef int (*ireduce_fn)(const void *, void *, int, mpi_h, mpi_h, int, mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Ireduce, (const void *s, void *rbuf, int count, mpi_h type, mpi_h op, int root, mpi_h comm,
                            mpi_h *req)) {
    PMPI_REAL(ireduce_fn, MPI_Ireduce);
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(s, rbuf, count, type, op, root, comm, req);
    int r = real(s, rbuf, count, type, op, root, comm, req);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective_req(PB_MpiOp_MPI_IREDUCE, comm, root, b, 0, mpi_in_place(s) ? rbuf : s, s, rbuf, req, &c, r);
}

typedef int (*iallreduce_fn)(const void *, void *, int, mpi_h, mpi_h, mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Iallreduce, (const void *s, void *rbuf, int count, mpi_h type, mpi_h op, mpi_h comm, mpi_h *req)) {
    PMPI_REAL(iallreduce_fn, MPI_Iallreduce);
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(s, rbuf, count, type, op, comm, req);
    int r = real(s, rbuf, count, type, op, comm, req);
    uint64_t b = r == 0 ? mpi_bytes(count, type) : 0;
    return collective_req(PB_MpiOp_MPI_IALLREDUCE, comm, -1, b, 0, mpi_in_place(s) ? rbuf : s, s, rbuf, req, &c, r);
}

/* Iallgather, Ialltoall: (send buffer, count, type, receive buffer, count, type, comm, request). */
typedef int (*igather_all_fn)(const void *, int, mpi_h, void *, int, mpi_h, mpi_h, mpi_h *);

static int igather_all(igather_all_fn real, int op, const void *s, int scount, mpi_h stype, void *rbuf,
                       int rcount, mpi_h rtype, mpi_h comm, mpi_h *req) {
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(s, scount, stype, rbuf, rcount, rtype, comm, req);
    int r = real(s, scount, stype, rbuf, rcount, rtype, comm, req);
    uint64_t b = 0, total = 0;
    if (r == 0) gathered_bytes(s, scount, stype, rcount, rtype, comm, &b, &total);
    return collective_req(op, comm, -1, b, total, mpi_in_place(s) ? rbuf : s, s, rbuf, req, &c, r);
}

MPI_HOOK(int, MPI_Iallgather, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                               mpi_h comm, mpi_h *req)) {
    PMPI_REAL(igather_all_fn, MPI_Iallgather);
    return igather_all(real, PB_MpiOp_MPI_IALLGATHER, s, scount, stype, rbuf, rcount, rtype, comm, req);
}

MPI_HOOK(int, MPI_Ialltoall, (const void *s, int scount, mpi_h stype, void *rbuf, int rcount, mpi_h rtype,
                              mpi_h comm, mpi_h *req)) {
    PMPI_REAL(igather_all_fn, MPI_Ialltoall);
    return igather_all(real, PB_MpiOp_MPI_IALLTOALL, s, scount, stype, rbuf, rcount, rtype, comm, req);
}
