/* What the MPI hooks (hooks_mpi.c) keep about the MPI library the program linked: its handles
 * seen as opaque words, the communicators' world ranks, the requests started and not yet
 * completed (mpi_state.c).
 *
 * Nothing here includes mpi.h: the interposer must load in programs without MPI, and must not
 * depend on any one MPI's headers. Handles (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request) are
 * passed through as pointer-sized words, which carries both Open MPI's pointers and MPICH's ints
 * unchanged on x86-64. What a call means is only read from an Open MPI library (recognized by its
 * symbol ompi_mpi_comm_world); in front of another MPI the hooks pass every call through and
 * record nothing. */
#ifndef APPTRACE_MPI_STATE_H
#define APPTRACE_MPI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void *mpi_h;

/* Open MPI's MPI_Status (mpi.h, struct ompi_status_public_t). */
typedef struct {
    int source, tag, error, cancelled;
    size_t ucount;
} mpi_status;

/* A communicator as recorded: its id (0 for MPI_COMM_WORLD), size, and its ranks' world ranks. */
typedef struct {
    uint64_t id;
    uint32_t size;
} mpi_comm_info;

/* True when the program's MPI is Open MPI and is initialized (and not finalized): only then do
 * the hooks ask it anything beyond the call itself. */
bool mpi_usable(void);
/* MPI_COMM_WORLD's handle (Open MPI: &ompi_mpi_comm_world). */
mpi_h mpi_world(void);
/* The caller's rank in MPI_COMM_WORLD and its size; -1 and 0 before MPI_Init. */
int32_t mpi_world_rank(void);
uint32_t mpi_world_size(void);
/* After MPI_Init: reads the caller's world rank and size. Before MPI_Finalize: stops asking. */
void mpi_started(void);
void mpi_finishing(void);

/* The communicator's id and size; false when it cannot be asked. */
bool mpi_comm(mpi_h comm, mpi_comm_info *out);
/* The world rank of rank `r` of `comm`; `r` itself for negative ranks (MPI_ANY_SOURCE,
 * MPI_PROC_NULL) and -3 when it cannot be known. */
int32_t mpi_world_rank_of(mpi_h comm, int r);
/* MPI_Comm_free: the handle may be reused for another communicator. */
void mpi_comm_forget(mpi_h comm);

/* count x the size of `type`; 0 when it cannot be asked. */
uint64_t mpi_bytes(int count, mpi_h type);
/* The bytes a completed receive got, from its status. */
uint64_t mpi_received_bytes(const mpi_status *st, mpi_h type);

/* Requests started by Isend or Irecv, by handle, until a Wait or Test completes them. */
typedef struct {
    uint64_t number;  /* from 1 in each process */
    bool receive;
    mpi_h comm, type;
} mpi_request;
/* Keeps a new request; its number (0 when the table is full). */
uint64_t mpi_request_started(mpi_h handle, bool receive, mpi_h comm, mpi_h type);
/* Takes a request out of the table; false when it was never kept. */
bool mpi_request_done(mpi_h handle, mpi_request *out);

#endif
