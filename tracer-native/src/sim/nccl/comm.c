/* The simulated NCCL's communicators (see simnccl.h): unique ids, the shared region their ranks
 * join, the queries, destruction, versions and error strings. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "simnccl.h"

/* A unique id: this prefix, then the shared region's name. */
static const char ID_PREFIX[16] = "apptrace-nccl-1";

static size_t region_size(int nranks) {
    size_t n = (size_t)nranks;
    return sizeof(simnccl_head) + n * sizeof(simnccl_ctl) + n * SIMNCCL_SLOT_BYTES +
           n * n * (sizeof(simnccl_mailbox) + SIMNCCL_MAILBOX_BYTES);
}

simnccl_ctl *simnccl_ctl_of(struct ncclComm *c, int rank) {
    return (simnccl_ctl *)(c->base + sizeof(simnccl_head)) + rank;
}

uint8_t *simnccl_slot_of(struct ncclComm *c, int rank) {
    return c->base + sizeof(simnccl_head) + (size_t)c->nranks * sizeof(simnccl_ctl) +
           (size_t)rank * SIMNCCL_SLOT_BYTES;
}

simnccl_mailbox *simnccl_mailbox_of(struct ncclComm *c, int from, int to) {
    uint8_t *boxes = simnccl_slot_of(c, c->nranks);
    size_t i = (size_t)from * (size_t)c->nranks + (size_t)to;
    return (simnccl_mailbox *)(boxes + i * (sizeof(simnccl_mailbox) + SIMNCCL_MAILBOX_BYTES));
}

uint8_t *simnccl_mailbox_data(simnccl_mailbox *m) {
    return (uint8_t *)(m + 1);
}

struct ncclComm *simnccl_comm(ncclComm_t comm) {
    if (comm == NULL || comm->magic != SIMNCCL_COMM_MAGIC || atomic_load(&comm->destroyed)) return NULL;
    return comm;
}

SIMNCCL_API ncclResult_t ncclGetVersion(int *version) {
    if (version == NULL) return ncclInvalidArgument;
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    if (id == NULL) return ncclInvalidArgument;
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        nonce = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30);
    }
    memset(id, 0, sizeof *id);
    memcpy(id->internal, ID_PREFIX, sizeof ID_PREFIX);
    snprintf(id->internal + sizeof ID_PREFIX, sizeof id->internal - sizeof ID_PREFIX, "/apptrace-nccl-%d-%016llx",
             (int)getpid(), (unsigned long long)nonce);
    return ncclSuccess;
}

/* Waits a little longer each time (the other ranks are processes that need the CPU). */
static void pause_for(unsigned *rounds) {
    if (++*rounds < 64) {
        sched_yield();
        return;
    }
    unsigned us = *rounds < 256 ? 20 : 200;
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* Maps the region of `id` and takes rank `rank` in it; the caller waits for the others. */
static ncclResult_t attach(const ncclUniqueId *id, int nranks, int rank, int device, struct ncclComm **out) {
    if (memcmp(id->internal, ID_PREFIX, sizeof ID_PREFIX) != 0) return ncclInvalidArgument;
    char name[sizeof id->internal];
    memcpy(name, id->internal + sizeof ID_PREFIX, sizeof id->internal - sizeof ID_PREFIX);
    name[sizeof name - sizeof ID_PREFIX - 1] = '\0';
    if (name[0] != '/') return ncclInvalidArgument;
    size_t size = region_size(nranks);
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0) return ncclSystemError;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return ncclSystemError;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) return ncclSystemError;
    simnccl_head *head = base;
    uint32_t expected = 0;
    if (!atomic_compare_exchange_strong(&head->nranks, &expected, (uint32_t)nranks) && expected != (uint32_t)nranks) {
        munmap(base, size);
        return ncclInvalidUsage; /* the ranks disagree on the communicator's size */
    }
    uint32_t free_rank = 0;
    if (!atomic_compare_exchange_strong(&head->claimed[rank], &free_rank, 1)) {
        munmap(base, size);
        return ncclInvalidUsage; /* two ranks with the same number */
    }
    struct ncclComm *c = calloc(1, sizeof *c);
    if (c == NULL) {
        munmap(base, size);
        return ncclSystemError;
    }
    c->magic = SIMNCCL_COMM_MAGIC;
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    c->base = base;
    c->size = size;
    atomic_fetch_add(&head->joined, 1);
    *out = c;
    return ncclSuccess;
}

/* Waits until every rank of c's region has joined; the last one to see it removes the name. */
static void wait_joined(struct ncclComm *c, const ncclUniqueId *id) {
    simnccl_head *head = (simnccl_head *)c->base;
    unsigned rounds = 0;
    while (atomic_load(&head->joined) < (uint32_t)c->nranks) pause_for(&rounds);
    /* every rank has the region mapped: its name is no longer needed */
    if (c->rank == 0) shm_unlink(id->internal + sizeof ID_PREFIX);
}

static int current_device(void) {
    int d = 0;
    return cudaGetDevice(&d) == cudaSuccess ? d : 0;
}

SIMNCCL_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank) {
    if (comm == NULL || nranks < 1 || nranks > SIMNCCL_MAX_RANKS || rank < 0 || rank >= nranks) {
        return ncclInvalidArgument;
    }
    struct ncclComm *c;
    ncclResult_t r = attach(&id, nranks, rank, current_device(), &c);
    if (r != ncclSuccess) return r;
    wait_joined(c, &id);
    *comm = c;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist) {
    if (comms == NULL || ndev < 1 || ndev > SIMNCCL_MAX_RANKS) return ncclInvalidArgument;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) return ncclUnhandledCudaError;
    for (int i = 0; i < ndev; i++) {
        int d = devlist != NULL ? devlist[i] : i;
        if (d < 0 || d >= count) return ncclInvalidArgument;
    }
    ncclUniqueId id;
    ncclResult_t r = ncclGetUniqueId(&id);
    for (int i = 0; i < ndev && r == ncclSuccess; i++) {
        r = attach(&id, ndev, i, devlist != NULL ? devlist[i] : i, &comms[i]);
        if (r != ncclSuccess) {
            while (i-- > 0) {
                munmap(comms[i]->base, comms[i]->size);
                free(comms[i]);
            }
            shm_unlink(id.internal + sizeof ID_PREFIX);
            return r;
        }
    }
    for (int i = 0; i < ndev; i++) wait_joined(comms[i], &id);
    return ncclSuccess;
}

/* Waits until the tasks queued on c have run (NCCL: destroying waits for its operations). */
static void drain(struct ncclComm *c) {
    unsigned rounds = 0;
    while (atomic_load(&c->pending) > 0) pause_for(&rounds);
}

SIMNCCL_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
    struct ncclComm *c = simnccl_comm(comm);
    if (c == NULL) return ncclInvalidArgument;
    drain(c);
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    if (comm == NULL) return ncclSuccess;
    struct ncclComm *c = simnccl_comm(comm);
    if (c == NULL) return ncclInvalidArgument;
    drain(c);
    atomic_store(&c->destroyed, true);
    munmap(c->base, c->size);
    c->magic = 0;
    free(c);
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *error) {
    if (simnccl_comm(comm) == NULL || error == NULL) return ncclInvalidArgument;
    *error = ncclSuccess;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
    struct ncclComm *c = simnccl_comm(comm);
    if (c == NULL || count == NULL) return ncclInvalidArgument;
    *count = c->nranks;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
    struct ncclComm *c = simnccl_comm(comm);
    if (c == NULL || device == NULL) return ncclInvalidArgument;
    *device = c->device;
    return ncclSuccess;
}

SIMNCCL_API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
    struct ncclComm *c = simnccl_comm(comm);
    if (c == NULL || rank == NULL) return ncclInvalidArgument;
    *rank = c->rank;
    return ncclSuccess;
}

/* NCCL's own texts (src/misc/utils.cc, ncclGetErrorString). */
SIMNCCL_API const char *ncclGetErrorString(ncclResult_t result) {
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

SIMNCCL_API const char *ncclGetLastError(ncclComm_t comm) {
    (void)comm;
    return "";
}

void simnccl_pause(unsigned *rounds) {
    pause_for(rounds);
}
