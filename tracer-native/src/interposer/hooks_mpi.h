/* What the MPI hooks of hooks_mpi.c (point to point) and hooks_mpi_coll.c (collectives) share. */
#ifndef APPTRACE_HOOKS_MPI_H
#define APPTRACE_HOOKS_MPI_H

#include "hook.h"
#include "mpi_state.h"

#define MPI_HOOK(ret, name, params) APPTRACE_EXPORT ret name params
/* Returned when the MPI library has no such function (any nonzero code is an MPI error). */
#define NO_MPI_FUNCTION 16

/* The real function: PMPI_<name>, else the next MPI_<name>. */
#define PMPI_REAL(type, name)                                                           \
    static type real;                                                                   \
    if (AT_UNLIKELY(real == NULL)) {                                                    \
        real = (type)at_resolve("P" #name);                                             \
        if (real == NULL) real = (type)at_resolve(#name);                               \
        if (real == NULL) return NO_MPI_FUNCTION;                                       \
    }

/* The buffer is device memory, as the CUDA runtime says. */
bool mpi_device_memory(const void *p);
/* Records the call (a no-op when it cannot be written). */
void mpi_record(const at_call *c, int result, const enc_mpi *m);
/* The fields every call on a communicator has: op, caller's rank, communicator id and size. */
void mpi_on_comm(enc_mpi *m, int op, mpi_h comm);

/* The functions of hooks_mpi_unrecorded.c the process called (at most `max`), in a fixed order. */
#define MPI_UNRECORDED_MAX 128
uint32_t mpi_unrecorded_calls(enc_mpi_unrecorded *out, uint32_t max);

#endif
