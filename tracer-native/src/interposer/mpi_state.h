/* What the MPI hooks (hooks_mpi.c) keep about the MPI library the program linked: its handles
 * seen as opaque words, the communicators' world ranks, the requests started and not yet
 * completed (mpi_state.c).
 *
 * Nothing here includes mpi.h: the interposer must load in programs without MPI, and must not
 * depend on any one MPI's headers. Handles (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request) are
 * passed through as pointer-sized words, which carries both Open MPI's pointers and MPICH's ints
 * unchanged on x86-64. Where the two ABIs differ (the layout of MPI_Status, the size of a handle
 * in an array, MPI_COMM_WORLD, MPI_IN_PLACE, MPI_STATUS_IGNORE and the negative ranks) the hooks
 * ask the flavour recognized at run time (mpi_abi below): Open MPI by its symbol
 * ompi_mpi_comm_world, MPICH (and the MPIs built on it, which keep its ABI) by MPII_Version_string.
 * In front of another MPI the hooks pass every call through and record nothing. */
#ifndef APPTRACE_MPI_STATE_H
#define APPTRACE_MPI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void *mpi_h;

/* Room for one MPI_Status of either flavour (Open MPI's is 24 bytes, MPICH's 20), for the hooks'
 * own statuses; a status is only read through mpi_status_source and mpi_status_tag, and an array
 * of the program's is indexed with mpi_status_at. */
typedef struct {
    int64_t words[4];
} mpi_status;

/* What differs between the MPI ABIs the hooks read, taken from each flavour's mpi.h and chosen
 * once, at the first question (MPI_Init). */
typedef struct {
    const char *name;
    mpi_h world;                          /* MPI_COMM_WORLD */
    size_t handle_size;                   /* of MPI_Request, MPI_Comm in the program's memory */
    size_t status_size;                   /* sizeof(MPI_Status) */
    size_t source_offset, tag_offset;     /* of MPI_SOURCE and MPI_TAG in MPI_Status */
    const void *in_place;                 /* MPI_IN_PLACE */
    const void *status_ignore;            /* MPI_STATUS_IGNORE (and MPI_STATUSES_IGNORE) */
    int proc_null, any_source, any_tag;   /* MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ANY_TAG */
    int undefined;                        /* MPI_UNDEFINED (Waitany, Testany, Waitsome, Testsome) */
    mpi_h byte_type;                      /* MPI_BYTE: a probed message's bytes */
} mpi_abi;

/* The program's MPI, or NULL when it is neither Open MPI nor MPICH (or there is no MPI). */
const mpi_abi *mpi_flavour(void);
/* The buffer argument is MPI_IN_PLACE. */
bool mpi_in_place(const void *buf);
/* The status a hook passes MPI: the program's, or `own` where the program passed
 * MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE (MPI then fills `own`, which must hold as many
 * statuses as the call completes requests). */
mpi_status *mpi_status_arg(mpi_status *st, mpi_status *own);
/* Status `i` of an array of MPI_Status. */
const mpi_status *mpi_status_at(const mpi_status *st, int i);
/* MPI_SOURCE as a world rank of `comm`, and MPI_TAG as recorded, of a status MPI filled. */
int32_t mpi_status_source(const mpi_status *st, mpi_h comm);
int32_t mpi_status_tag(const mpi_status *st);
/* Handle `i` of an array of MPI_Request (or the MPI_Comm an argument points to); NULL when the
 * MPI is not known. */
mpi_h mpi_handle_at(const void *handles, int i);
/* MPI_UNDEFINED of the program's MPI (an index or count that says "no active request"). */
int mpi_undefined(void);
/* The bytes of the message a probe's status describes (PMPI_Get_count with MPI_BYTE). */
uint64_t mpi_probed_bytes(const mpi_status *st);
/* A tag argument as recorded: MPI_ANY_TAG is -1. */
int32_t mpi_tag(int tag);

/* A communicator as recorded: its id (0 for MPI_COMM_WORLD), size, and its ranks' world ranks. */
typedef struct {
    uint64_t id;
    uint32_t size;
} mpi_comm_info;

/* True when the program's MPI is a known flavour and is initialized (and not finalized): only
 * then do the hooks ask it anything beyond the call itself. */
bool mpi_usable(void);
/* MPI_COMM_WORLD's handle (Open MPI: &ompi_mpi_comm_world; MPICH: 0x44000000); NULL when the
 * MPI is not known. */
mpi_h mpi_world(void);
/* The caller's rank in MPI_COMM_WORLD and its size; -1 and 0 before MPI_Init. */
int32_t mpi_world_rank(void);
uint32_t mpi_world_size(void);
/* After MPI_Init: reads the caller's world rank and size. Before MPI_Finalize: stops asking. */
void mpi_started(void);
void mpi_finishing(void);

/* The communicator's id and size; false when it cannot be asked. */
bool mpi_comm(mpi_h comm, mpi_comm_info *out);
/* The world rank of rank `r` of `comm`; for the negative ranks, as recorded whatever the
 * flavour: -1 for MPI_ANY_SOURCE, -2 for MPI_PROC_NULL; -3 when it cannot be known. */
int32_t mpi_world_rank_of(mpi_h comm, int r);
/* MPI_Comm_free: the handle may be reused for another communicator. */
void mpi_comm_forget(mpi_h comm);

/* count x the size of `type`; 0 when it cannot be asked. */
uint64_t mpi_bytes(int count, mpi_h type);
/* The bytes a completed receive got, from its status. */
uint64_t mpi_received_bytes(const mpi_status *st, mpi_h type);

/* Requests started by Isend, Irecv or a nonblocking collective (receive false, type NULL), by
 * handle, until a Wait or Test completes them. */
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
