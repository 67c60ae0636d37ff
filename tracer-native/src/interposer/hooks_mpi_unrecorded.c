/* MPI communication functions the hooks do not record, counted: each is passed through to its
 * PMPI_X unchanged, and MPI_Finalize's record (hooks_mpi.c) names those the process called with how
 * many times (MpiCall.unrecorded), so that a trace says what its MPI calls leave out: one-sided
 * communication, persistent requests, the large-count (_c) functions, the v-collectives,
 * matched probes, neighbourhood collectives, communicator creation (docs/CAPTURE.md).
 *
 * One hook serves every signature: on x86-64 (System V) the first six integer or pointer arguments
 * are in registers and the rest on the stack in order, so a function declared with 16 words and
 * called with fewer receives the caller's arguments in its first words (the others are whatever the
 * registers and the caller's frame hold, read and never used) and passes them on in the same places.
 * None of these functions takes a floating-point argument, is variadic or has more than 16
 * arguments (MPI_Isendrecv has 13), and all return an int. */
#include <stdatomic.h>

#include "hooks_mpi.h"

#define UNRECORDED_LIST(X)                                                                         \
    /* point to point */                                                                           \
    X(MPI_Bsend) X(MPI_Rsend) X(MPI_Ibsend) X(MPI_Irsend) X(MPI_Issend) X(MPI_Sendrecv_replace)    \
    X(MPI_Isendrecv) X(MPI_Isendrecv_replace) X(MPI_Mprobe) X(MPI_Improbe) X(MPI_Mrecv)            \
    X(MPI_Imrecv) X(MPI_Cancel) X(MPI_Request_free) X(MPI_Request_get_status)                      \
    /* persistent requests */                                                                      \
    X(MPI_Send_init) X(MPI_Bsend_init) X(MPI_Rsend_init) X(MPI_Ssend_init) X(MPI_Recv_init)        \
    X(MPI_Start) X(MPI_Startall) X(MPI_Psend_init) X(MPI_Precv_init) X(MPI_Pready)                 \
    X(MPI_Parrived) X(MPI_Barrier_init) X(MPI_Bcast_init) X(MPI_Reduce_init)                       \
    X(MPI_Allreduce_init) X(MPI_Allgather_init) X(MPI_Alltoall_init)                               \
    /* collectives not recorded */                                                                 \
    X(MPI_Gatherv) X(MPI_Scatterv) X(MPI_Allgatherv) X(MPI_Alltoallv) X(MPI_Alltoallw)             \
    X(MPI_Reduce_scatter) X(MPI_Scan) X(MPI_Exscan) X(MPI_Igather) X(MPI_Igatherv) X(MPI_Iscatter) \
    X(MPI_Iscatterv) X(MPI_Iallgatherv) X(MPI_Ialltoallv) X(MPI_Ialltoallw) X(MPI_Ireduce_scatter) \
    X(MPI_Ireduce_scatter_block) X(MPI_Iscan) X(MPI_Iexscan)                                       \
    X(MPI_Neighbor_allgather) X(MPI_Neighbor_allgatherv) X(MPI_Neighbor_alltoall)                  \
    X(MPI_Neighbor_alltoallv) X(MPI_Neighbor_alltoallw) X(MPI_Ineighbor_allgather)                 \
    X(MPI_Ineighbor_alltoall)                                                                      \
    /* one-sided */                                                                                \
    X(MPI_Win_create) X(MPI_Win_allocate) X(MPI_Win_allocate_shared) X(MPI_Win_create_dynamic)     \
    X(MPI_Win_free) X(MPI_Put) X(MPI_Get) X(MPI_Accumulate) X(MPI_Get_accumulate)                  \
    X(MPI_Fetch_and_op) X(MPI_Compare_and_swap) X(MPI_Rput) X(MPI_Rget) X(MPI_Raccumulate)         \
    X(MPI_Win_fence) X(MPI_Win_start) X(MPI_Win_complete) X(MPI_Win_post) X(MPI_Win_wait)          \
    X(MPI_Win_lock) X(MPI_Win_unlock) X(MPI_Win_lock_all) X(MPI_Win_unlock_all) X(MPI_Win_flush)   \
    X(MPI_Win_flush_all) X(MPI_Win_flush_local) X(MPI_Win_sync)                                    \
    /* large count (MPI 4.0) */                                                                    \
    X(MPI_Send_c) X(MPI_Ssend_c) X(MPI_Recv_c) X(MPI_Isend_c) X(MPI_Irecv_c) X(MPI_Sendrecv_c)     \
    X(MPI_Bcast_c) X(MPI_Reduce_c) X(MPI_Allreduce_c) X(MPI_Allgather_c) X(MPI_Alltoall_c)         \
    X(MPI_Gather_c) X(MPI_Scatter_c) X(MPI_Reduce_scatter_block_c) X(MPI_Ibcast_c)                 \
    X(MPI_Ireduce_c) X(MPI_Iallreduce_c) X(MPI_Iallgather_c) X(MPI_Ialltoall_c) X(MPI_Put_c)       \
    X(MPI_Get_c) X(MPI_Accumulate_c)                                                               \
    /* communicators made by a collective call of the parent's members */                          \
    X(MPI_Comm_dup) X(MPI_Comm_split) X(MPI_Comm_split_type) X(MPI_Comm_create)                    \
    X(MPI_Cart_create) X(MPI_Intercomm_create) X(MPI_Intercomm_merge)

enum {
#define INDEX(name) UNRECORDED_##name,
    UNRECORDED_LIST(INDEX) UNRECORDED_COUNT
#undef INDEX
};

static const char *const names[UNRECORDED_COUNT] = {
#define NAME(name) #name,
    UNRECORDED_LIST(NAME)
#undef NAME
};

static _Atomic uint64_t calls[UNRECORDED_COUNT];

typedef uintptr_t w;
typedef int (*any_fn)(w, w, w, w, w, w, w, w, w, w, w, w, w, w, w, w);

#define PASS(name)                                                                                  \
    MPI_HOOK(int, name, (w a0, w a1, w a2, w a3, w a4, w a5, w a6, w a7, w a8, w a9, w a10, w a11,  \
                         w a12, w a13, w a14, w a15)) {                                             \
        PMPI_REAL(any_fn, name);                                                                    \
        atomic_fetch_add_explicit(&calls[UNRECORDED_##name], 1, memory_order_relaxed);              \
        return real(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15);          \
    }
UNRECORDED_LIST(PASS)
#undef PASS

uint32_t mpi_unrecorded_calls(enc_mpi_unrecorded *out, uint32_t max) {
    uint32_t n = 0;
    for (int i = 0; i < UNRECORDED_COUNT && n < max; i++) {
        uint64_t c = atomic_load_explicit(&calls[i], memory_order_relaxed);
        if (c > 0) out[n++] = (enc_mpi_unrecorded){.function = names[i], .calls = c};
    }
    return n;
}
