/* The simulated NCCL (libnccl.so.2): its communicators and the work they run.
 *
 * The ranks of a communicator are processes (or, through ncclCommInitAll, communicators of one
 * process) on one machine. They share one POSIX shared memory region named in the ncclUniqueId
 * (comm.c): a control word pair per rank and a staging slot per rank for collectives, and a
 * mailbox per ordered pair of ranks for ncclSend/ncclRecv. A call validates its arguments and
 * returns; its work runs in stream order: every call of a group (a call outside a group is a group
 * of one) becomes one task, queued with cudaLaunchHostFunc on its stream (group.c), which the
 * simulated runtime runs when the stream reaches it. The task moves the bytes chunk by chunk
 * through the shared region (ops.c), with NCCL's reductions (reduce.c). */
#ifndef APPTRACE_SIMNCCL_H
#define APPTRACE_SIMNCCL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nccl.h"

#define SIMNCCL_API __attribute__((visibility("default")))
#define SIMNCCL_MAX_RANKS 64
/* Bytes of a rank's collective slot and of a pair's mailbox. */
#define SIMNCCL_SLOT_BYTES (256u * 1024u)
#define SIMNCCL_MAILBOX_BYTES (64u * 1024u)

/* One rank's control words: the generation of the last chunk it wrote into its slot, and of the
 * last chunk it finished reading from everyone's. */
typedef struct {
    _Atomic uint64_t written, read;
    char pad[48];
} simnccl_ctl;

/* A mailbox from one rank to another: `sent` counts the chunks put in, `taken` those taken out;
 * it holds one chunk when sent == taken + 1. */
typedef struct {
    _Atomic uint64_t sent, taken;
    uint64_t len;
    char pad[40];
} simnccl_mailbox;

typedef struct {
    _Atomic uint32_t nranks; /* set by the first rank to arrive; every rank must agree */
    _Atomic uint32_t joined;
    _Atomic uint32_t claimed[SIMNCCL_MAX_RANKS];
} simnccl_head;

struct ncclComm {
    uint32_t magic;
    int rank, nranks, device;
    uint8_t *base; /* the shared region */
    size_t size;
    uint64_t gen;              /* collective chunks this rank has taken part in */
    uint64_t sent[SIMNCCL_MAX_RANKS], received[SIMNCCL_MAX_RANKS]; /* mailbox chunks, per peer */
    _Atomic int pending;       /* tasks queued or running on it */
    _Atomic bool destroyed;
};
#define SIMNCCL_COMM_MAGIC 0x4e43434cu

simnccl_ctl *simnccl_ctl_of(struct ncclComm *c, int rank);
uint8_t *simnccl_slot_of(struct ncclComm *c, int rank);
simnccl_mailbox *simnccl_mailbox_of(struct ncclComm *c, int from, int to);
uint8_t *simnccl_mailbox_data(simnccl_mailbox *m);
/* The communicator, or NULL when it is not a live one. */
struct ncclComm *simnccl_comm(ncclComm_t comm);
/* Waits a little longer each round (the other ranks are processes that need the CPU). */
void simnccl_pause(unsigned *rounds);

/* ---- reduce.c ---- */
/* Size of a data type in bytes; 0 for an unknown type. */
size_t simnccl_type_size(int type);
bool simnccl_op_valid(int op);
/* dst[i] = src[i] for the first contribution, dst[i] = dst[i] op src[i] after. */
void simnccl_reduce(void *dst, const void *src, size_t n, int type, int op, bool first);
/* ncclAvg: divides the sum of nranks contributions. */
void simnccl_average(void *dst, size_t n, int type, int nranks);

/* ---- ops.c ---- */
typedef enum { SIMNCCL_ALL_REDUCE, SIMNCCL_BROADCAST, SIMNCCL_REDUCE, SIMNCCL_ALL_GATHER,
               SIMNCCL_REDUCE_SCATTER, SIMNCCL_SEND, SIMNCCL_RECV } simnccl_kind;
typedef struct {
    simnccl_kind kind;
    struct ncclComm *comm;
    const void *send;
    void *recv;
    size_t count; /* elements: of each rank's part for AllGather (send) and ReduceScatter (recv) */
    int type, op, peer; /* peer: the root, or the other end of a send or receive */
    cudaStream_t stream;
    /* progress */
    size_t done;   /* elements finished */
    int phase;     /* collectives: 0 write the next chunk, 1 read everyone's */
    size_t chunk;  /* elements of the current chunk */
    bool finished;
} simnccl_op;
/* Advances op by at most one step without waiting; true when it moved. */
bool simnccl_op_progress(simnccl_op *op);
/* Runs ops together until all are finished, each after the earlier ones it must follow. */
void simnccl_run(simnccl_op *ops, size_t n);

/* ---- group.c ---- */
/* Checks op and queues it (in a group: keeps it for ncclGroupEnd). */
ncclResult_t simnccl_submit(const simnccl_op *op);

#endif
