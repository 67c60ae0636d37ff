/* How the simulated NCCL's operations move bytes through a communicator's shared region (see
 * simnccl.h), one chunk per step, each step taken only when it need not wait.
 *
 * Collectives: every rank takes part in every chunk, in the same order (NCCL requires the same
 * calls, in the same order, on every rank). Chunk g: a rank waits until every rank has read
 * chunk g-1 (its slot is free), writes its part into its slot and sets its `written` to g; once
 * every rank's `written` is g, it reads the slots it needs, computes its result and sets its
 * `read` to g. Send and receive: the sender puts a chunk into the pair's mailbox when it is
 * empty, the receiver takes it out. */
#include <string.h>

#include "simnccl.h"

/* Elements of the operation's current chunk (ReduceScatter: per rank). */
static size_t chunk_elements(const simnccl_op *op) {
    size_t es = simnccl_type_size(op->type);
    size_t per = op->kind == SIMNCCL_REDUCE_SCATTER ? SIMNCCL_SLOT_BYTES / ((size_t)op->comm->nranks * es)
                                                    : SIMNCCL_SLOT_BYTES / es;
    size_t left = op->count - op->done;
    return left < per ? left : per;
}

/* Writes this rank's part of the current chunk into its slot. */
static void write_part(simnccl_op *op) {
    struct ncclComm *c = op->comm;
    size_t es = simnccl_type_size(op->type), n = op->chunk;
    uint8_t *slot = simnccl_slot_of(c, c->rank);
    const uint8_t *send = op->send;
    switch (op->kind) {
    case SIMNCCL_BROADCAST:
        if (c->rank == op->peer) memcpy(slot, send + op->done * es, n * es);
        break;
    case SIMNCCL_REDUCE_SCATTER:
        for (int t = 0; t < c->nranks; t++) {
            memcpy(slot + (size_t)t * n * es, send + ((size_t)t * op->count + op->done) * es, n * es);
        }
        break;
    default: /* AllReduce, Reduce, AllGather */
        memcpy(slot, send + op->done * es, n * es);
        break;
    }
}

/* Reads everyone's part of the current chunk into this rank's result. */
static void read_parts(simnccl_op *op) {
    struct ncclComm *c = op->comm;
    size_t es = simnccl_type_size(op->type), n = op->chunk;
    uint8_t *recv = op->recv;
    switch (op->kind) {
    case SIMNCCL_BROADCAST:
        memmove(recv + op->done * es, simnccl_slot_of(c, op->peer), n * es);
        break;
    case SIMNCCL_ALL_GATHER:
        for (int r = 0; r < c->nranks; r++) {
            memcpy(recv + ((size_t)r * op->count + op->done) * es, simnccl_slot_of(c, r), n * es);
        }
        break;
    case SIMNCCL_REDUCE:
        if (c->rank != op->peer) break;
        __attribute__((fallthrough)); /* the root reduces as AllReduce does */
    case SIMNCCL_ALL_REDUCE:
    case SIMNCCL_REDUCE_SCATTER: {
        uint8_t *dst = recv + op->done * es;
        size_t at = op->kind == SIMNCCL_REDUCE_SCATTER ? (size_t)c->rank * n * es : 0;
        for (int r = 0; r < c->nranks; r++) simnccl_reduce(dst, simnccl_slot_of(c, r) + at, n, op->type, op->op, r == 0);
        if (op->op == ncclAvg) simnccl_average(dst, n, op->type, c->nranks);
        break;
    }
    default:
        break;
    }
}

static bool collective_step(simnccl_op *op) {
    struct ncclComm *c = op->comm;
    if (op->phase == 0) {
        uint64_t g = c->gen + 1;
        for (int r = 0; r < c->nranks; r++) {
            if (atomic_load_explicit(&simnccl_ctl_of(c, r)->read, memory_order_acquire) < g - 1) return false;
        }
        op->chunk = chunk_elements(op);
        write_part(op);
        c->gen = g;
        atomic_store_explicit(&simnccl_ctl_of(c, c->rank)->written, g, memory_order_release);
        op->phase = 1;
        return true;
    }
    for (int r = 0; r < c->nranks; r++) {
        if (atomic_load_explicit(&simnccl_ctl_of(c, r)->written, memory_order_acquire) < c->gen) return false;
    }
    read_parts(op);
    atomic_store_explicit(&simnccl_ctl_of(c, c->rank)->read, c->gen, memory_order_release);
    op->done += op->chunk;
    op->phase = 0;
    op->finished = op->done >= op->count;
    return true;
}

static bool send_step(simnccl_op *op) {
    struct ncclComm *c = op->comm;
    simnccl_mailbox *m = simnccl_mailbox_of(c, c->rank, op->peer);
    if (atomic_load_explicit(&m->taken, memory_order_acquire) != c->sent[op->peer]) return false; /* full */
    size_t es = simnccl_type_size(op->type), bytes = op->count * es, at = op->done * es;
    size_t n = bytes - at < SIMNCCL_MAILBOX_BYTES ? bytes - at : SIMNCCL_MAILBOX_BYTES;
    memcpy(simnccl_mailbox_data(m), (const uint8_t *)op->send + at, n);
    m->len = n;
    atomic_store_explicit(&m->sent, ++c->sent[op->peer], memory_order_release);
    op->done += n / es;
    op->finished = op->done >= op->count;
    return true;
}

static bool recv_step(simnccl_op *op) {
    struct ncclComm *c = op->comm;
    simnccl_mailbox *m = simnccl_mailbox_of(c, op->peer, c->rank);
    if (atomic_load_explicit(&m->sent, memory_order_acquire) == c->received[op->peer]) return false; /* empty */
    size_t es = simnccl_type_size(op->type), bytes = op->count * es, at = op->done * es;
    size_t n = m->len < bytes - at ? m->len : bytes - at; /* a longer message is cut to the buffer */
    memcpy((uint8_t *)op->recv + at, simnccl_mailbox_data(m), n);
    atomic_store_explicit(&m->taken, ++c->received[op->peer], memory_order_release);
    op->done += m->len / es;
    op->finished = op->done >= op->count;
    return true;
}

bool simnccl_op_progress(simnccl_op *op) {
    if (op->finished) return false;
    if (op->count == 0) {
        op->finished = true;
        return true;
    }
    switch (op->kind) {
    case SIMNCCL_SEND: return send_step(op);
    case SIMNCCL_RECV: return recv_step(op);
    default: return collective_step(op);
    }
}

/* Op i must wait for an earlier unfinished op on the same communicator of the same family: the
 * collectives run in call order, and so do the sends (and receives) to one peer. */
static bool blocked(const simnccl_op *ops, size_t i) {
    const simnccl_op *op = &ops[i];
    bool p2p = op->kind == SIMNCCL_SEND || op->kind == SIMNCCL_RECV;
    for (size_t j = 0; j < i; j++) {
        const simnccl_op *e = &ops[j];
        if (e->finished || e->comm != op->comm) continue;
        if (!p2p && e->kind != SIMNCCL_SEND && e->kind != SIMNCCL_RECV) return true;
        if (p2p && e->kind == op->kind && e->peer == op->peer) return true;
    }
    return false;
}

void simnccl_run(simnccl_op *ops, size_t n) {
    unsigned idle = 0;
    for (;;) {
        bool left = false, moved = false;
        for (size_t i = 0; i < n; i++) {
            if (ops[i].finished) continue;
            left = true;
            if (!blocked(ops, i) && simnccl_op_progress(&ops[i])) moved = true;
        }
        if (!left) return;
        if (moved) {
            idle = 0;
        } else {
            simnccl_pause(&idle);
        }
    }
}
