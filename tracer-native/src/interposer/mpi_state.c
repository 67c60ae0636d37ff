/* See mpi_state.h. Every PMPI function is found with dlsym, never linked: the interposer loads in
 * programs that have no MPI at all. Locks guard the tables only, never a call into MPI. */
#include "mpi_state.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

typedef int (*initialized_fn)(int *);
typedef int (*comm_int_fn)(mpi_h, int *);
typedef int (*comm_group_fn)(mpi_h, mpi_h *);
typedef int (*translate_fn)(mpi_h, int, const int *, mpi_h, int *);
typedef int (*group_free_fn)(mpi_h *);
typedef int (*type_size_fn)(mpi_h, int *);
typedef int (*get_count_fn)(const mpi_status *, mpi_h, int *);

static struct {
    initialized_fn initialized, finalized;
    comm_int_fn comm_size, comm_rank;
    comm_group_fn comm_group;
    translate_fn translate;
    group_free_fn group_free;
    type_size_fn type_size;
    get_count_fn get_count;
    mpi_h world;
} pmpi;

/* Open MPI 4.1, mpi.h: MPI_Comm is a pointer (MPI_COMM_WORLD is &ompi_mpi_comm_world); struct
 * ompi_status_public_t is {MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, size_t _ucount};
 * MPI_IN_PLACE (void *)1; MPI_STATUS_IGNORE NULL; MPI_ANY_SOURCE -1, MPI_PROC_NULL -2,
 * MPI_ANY_TAG -1; MPI_UNDEFINED -32766; MPI_BYTE &ompi_mpi_byte (set when recognized). */
static mpi_abi open_mpi_abi = {
    .name = "Open MPI", .handle_size = sizeof(void *), .status_size = 4 * sizeof(int) + sizeof(size_t),
    .source_offset = 0, .tag_offset = sizeof(int), .in_place = (const void *)1, .status_ignore = NULL,
    .proc_null = -2, .any_source = -1, .any_tag = -1, .undefined = -32766};
/* MPICH 4.0, mpi.h: MPI_Comm, MPI_Request... are int (MPI_COMM_WORLD 0x44000000); MPI_Status is
 * {count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR}; MPI_IN_PLACE (void *)-1;
 * MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE (MPI_Status *)1; MPI_PROC_NULL -1, MPI_ANY_SOURCE -2,
 * MPI_ANY_TAG -1; MPI_UNDEFINED (-32766); MPI_BYTE 0x4c00010d. */
static const mpi_abi mpich_abi = {
    .name = "MPICH", .world = (mpi_h)(uintptr_t)0x44000000, .handle_size = sizeof(int),
    .status_size = 5 * sizeof(int), .source_offset = 2 * sizeof(int), .tag_offset = 3 * sizeof(int),
    .in_place = (const void *)(intptr_t)-1, .status_ignore = (const void *)1, .proc_null = -1,
    .any_source = -2, .any_tag = -1, .undefined = -32766, .byte_type = (mpi_h)(uintptr_t)0x4c00010d};

static const mpi_abi *_Atomic abi;
static _Atomic bool abi_known;
static _Atomic int live = -1; /* -1: not known yet; 1 between MPI_Init and MPI_Finalize; 0 not */
static _Atomic int32_t world_rank = -1;
static _Atomic uint32_t world_size;

/* Which MPI the program linked, by a symbol only it exports; NULL for none or another. */
static const mpi_abi *recognize(void) {
    void *ompi_world = at_dlsym_on(RTLD_DEFAULT, "ompi_mpi_comm_world");
    if (ompi_world != NULL) {
        open_mpi_abi.world = ompi_world;
        open_mpi_abi.byte_type = at_dlsym_on(RTLD_DEFAULT, "ompi_mpi_byte");
        return &open_mpi_abi;
    }
    if (at_dlsym_on(RTLD_DEFAULT, "MPII_Version_string") != NULL) return &mpich_abi;
    return NULL;
}

const mpi_abi *mpi_flavour(void) {
    if (AT_LIKELY(atomic_load(&abi_known))) return atomic_load(&abi);
    const mpi_abi *a = recognize();
    pmpi.initialized = (initialized_fn)at_resolve("PMPI_Initialized");
    pmpi.finalized = (initialized_fn)at_resolve("PMPI_Finalized");
    pmpi.comm_size = (comm_int_fn)at_resolve("PMPI_Comm_size");
    pmpi.comm_rank = (comm_int_fn)at_resolve("PMPI_Comm_rank");
    pmpi.comm_group = (comm_group_fn)at_resolve("PMPI_Comm_group");
    pmpi.translate = (translate_fn)at_resolve("PMPI_Group_translate_ranks");
    pmpi.group_free = (group_free_fn)at_resolve("PMPI_Group_free");
    pmpi.type_size = (type_size_fn)at_resolve("PMPI_Type_size");
    pmpi.get_count = (get_count_fn)at_resolve("PMPI_Get_count");
    bool ok = a != NULL && pmpi.initialized != NULL && pmpi.finalized != NULL && pmpi.comm_size != NULL &&
              pmpi.comm_rank != NULL && pmpi.comm_group != NULL && pmpi.translate != NULL &&
              pmpi.group_free != NULL && pmpi.type_size != NULL && pmpi.get_count != NULL;
    if (!ok) {
        at_log("apptrace: the program's MPI is neither Open MPI nor MPICH: its calls are passed through unrecorded");
        a = NULL;
    } else {
        pmpi.world = a->world;
    }
    atomic_store(&abi, a);
    atomic_store(&abi_known, true);
    return a;
}

static bool known(void) {
    return mpi_flavour() != NULL;
}

/* A handle as MPI gave it: MPICH's are ints, so a word from an int argument keeps only its low 32
 * bits (the upper ones are whatever the caller's register held). */
static mpi_h norm(mpi_h h) {
    const mpi_abi *a = atomic_load(&abi);
    return a != NULL && a->handle_size == sizeof(int) ? (mpi_h)(uintptr_t)(uint32_t)(uintptr_t)h : h;
}

bool mpi_in_place(const void *buf) {
    const mpi_abi *a = mpi_flavour();
    return a != NULL && buf == a->in_place;
}

mpi_status *mpi_status_arg(mpi_status *st, mpi_status *own) {
    const mpi_abi *a = mpi_flavour();
    return a != NULL && (const void *)st == a->status_ignore ? own : st;
}

const mpi_status *mpi_status_at(const mpi_status *st, int i) {
    const mpi_abi *a = mpi_flavour();
    return (const mpi_status *)((const char *)st + (size_t)i * (a != NULL ? a->status_size : 0));
}

static int status_int(const mpi_status *st, size_t offset) {
    int v;
    memcpy(&v, (const char *)st + offset, sizeof v);
    return v;
}

int32_t mpi_status_source(const mpi_status *st, mpi_h comm) {
    const mpi_abi *a = mpi_flavour();
    return a == NULL ? -3 : mpi_world_rank_of(comm, status_int(st, a->source_offset));
}

int32_t mpi_status_tag(const mpi_status *st) {
    const mpi_abi *a = mpi_flavour();
    return a == NULL ? -1 : mpi_tag(status_int(st, a->tag_offset));
}

mpi_h mpi_handle_at(const void *handles, int i) {
    const mpi_abi *a = mpi_flavour();
    if (a == NULL || handles == NULL) return NULL;
    if (a->handle_size == sizeof(int)) {
        unsigned v;
        memcpy(&v, (const char *)handles + (size_t)i * sizeof v, sizeof v);
        return (mpi_h)(uintptr_t)v;
    }
    mpi_h h;
    memcpy(&h, (const char *)handles + (size_t)i * sizeof h, sizeof h);
    return h;
}

int mpi_undefined(void) {
    const mpi_abi *a = mpi_flavour();
    return a != NULL ? a->undefined : -32766;
}

uint64_t mpi_probed_bytes(const mpi_status *st) {
    const mpi_abi *a = mpi_flavour();
    return a == NULL || a->byte_type == NULL ? 0 : mpi_received_bytes(st, a->byte_type);
}

int32_t mpi_tag(int tag) {
    const mpi_abi *a = mpi_flavour();
    return a != NULL && tag == a->any_tag ? -1 : tag;
}

mpi_h mpi_world(void) {
    return known() ? pmpi.world : NULL;
}

void mpi_started(void) {
    if (!known()) return;
    int r = -1, n = 0;
    if (pmpi.comm_rank(pmpi.world, &r) == 0 && pmpi.comm_size(pmpi.world, &n) == 0) {
        atomic_store(&world_rank, r);
        atomic_store(&world_size, (uint32_t)n);
    }
    atomic_store(&live, 1);
}

void mpi_finishing(void) {
    atomic_store(&live, 0);
}

bool mpi_usable(void) {
    if (!known()) return false;
    int l = atomic_load(&live);
    if (AT_LIKELY(l >= 0)) return l == 1;
    /* MPI_Init ran before tracing began (or through a path not hooked): ask */
    int init = 0, fin = 0;
    if (pmpi.initialized(&init) != 0 || pmpi.finalized(&fin) != 0 || !init || fin) return false;
    mpi_started();
    return true;
}

int32_t mpi_world_rank(void) {
    return atomic_load(&world_rank);
}

uint32_t mpi_world_size(void) {
    return atomic_load(&world_size);
}

/* Communicators other than MPI_COMM_WORLD, with their members' world ranks. */
#define COMM_SLOTS 32
typedef struct {
    mpi_h handle;
    uint64_t id;
    uint32_t size;
    int *world; /* malloc'd: the world rank of each rank */
} comm_entry;
static comm_entry comms[COMM_SLOTS];
static int ncomms;
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;

/* FNV-1a over the members' world ranks, never 0 (0 is MPI_COMM_WORLD). */
static uint64_t comm_hash(const int *world, uint32_t n) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)world[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    }
    return h == 0 ? 1 : h;
}

/* Asks MPI for the world ranks of every member of `comm` (outside any lock). */
static bool ask_comm(mpi_h comm, comm_entry *e) {
    int n = 0;
    if (pmpi.comm_size(comm, &n) != 0 || n <= 0) return false;
    mpi_h group = NULL, wgroup = NULL;
    if (pmpi.comm_group(comm, &group) != 0) return false;
    if (pmpi.comm_group(pmpi.world, &wgroup) != 0) {
        pmpi.group_free(&group);
        return false;
    }
    int *ranks = malloc((size_t)n * sizeof(int));
    int *world = malloc((size_t)n * sizeof(int));
    bool ok = ranks != NULL && world != NULL;
    if (ok) {
        for (int i = 0; i < n; i++) ranks[i] = i;
        ok = pmpi.translate(group, n, ranks, wgroup, world) == 0;
    }
    pmpi.group_free(&group);
    pmpi.group_free(&wgroup);
    free(ranks);
    if (!ok) {
        free(world);
        return false;
    }
    e->handle = comm;
    e->size = (uint32_t)n;
    e->world = world;
    e->id = comm_hash(world, (uint32_t)n);
    return true;
}

/* Copies the cached entry of `comm` (without its ranks), or asks MPI and caches it. */
static bool find_comm(mpi_h comm, comm_entry *out, int r, int32_t *world_of_r) {
    pthread_mutex_lock(&comm_lock);
    for (int i = 0; i < ncomms; i++) {
        if (comms[i].handle == comm) {
            *out = comms[i];
            if (world_of_r != NULL) *world_of_r = r >= 0 && (uint32_t)r < comms[i].size ? comms[i].world[r] : -3;
            pthread_mutex_unlock(&comm_lock);
            return true;
        }
    }
    pthread_mutex_unlock(&comm_lock);
    comm_entry e;
    if (!ask_comm(comm, &e)) return false;
    if (world_of_r != NULL) *world_of_r = r >= 0 && (uint32_t)r < e.size ? e.world[r] : -3;
    *out = e;
    pthread_mutex_lock(&comm_lock);
    if (ncomms < COMM_SLOTS) {
        comms[ncomms++] = e;
        e.world = NULL;
    }
    pthread_mutex_unlock(&comm_lock);
    free(e.world); /* not cached: the table is full */
    out->world = NULL;
    return true;
}

bool mpi_comm(mpi_h comm, mpi_comm_info *out) {
    if (!mpi_usable()) return false;
    comm = norm(comm);
    if (comm == pmpi.world) {
        out->id = 0;
        out->size = mpi_world_size();
        return true;
    }
    comm_entry e;
    if (!find_comm(comm, &e, -1, NULL)) return false;
    out->id = e.id;
    out->size = e.size;
    return true;
}

int32_t mpi_world_rank_of(mpi_h comm, int r) {
    if (r < 0) {
        const mpi_abi *a = mpi_flavour();
        if (a != NULL && r == a->any_source) return -1;
        if (a != NULL && r == a->proc_null) return -2;
        return r;
    }
    if (!mpi_usable()) return -3;
    comm = norm(comm);
    if (comm == pmpi.world) return r;
    comm_entry e;
    int32_t w = -3;
    return find_comm(comm, &e, r, &w) ? w : -3;
}

void mpi_comm_forget(mpi_h comm) {
    comm = norm(comm);
    pthread_mutex_lock(&comm_lock);
    for (int i = 0; i < ncomms; i++) {
        if (comms[i].handle == comm) {
            free(comms[i].world);
            comms[i] = comms[--ncomms];
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
}

uint64_t mpi_bytes(int count, mpi_h type) {
    int size = 0;
    if (count <= 0 || !mpi_usable() || pmpi.type_size(type, &size) != 0 || size <= 0) return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t mpi_received_bytes(const mpi_status *st, mpi_h type) {
    int count = 0;
    if (!mpi_usable() || pmpi.get_count(st, type, &count) != 0 || count < 0) return 0;
    return mpi_bytes(count, type);
}

/* Open addressing on the handle; a slot's handle is NULL when free, TOMB after a removal. */
#define REQ_SLOTS 8192
#define TOMB ((mpi_h)(uintptr_t)1)
static struct {
    mpi_h handle;
    mpi_request r;
} reqs[REQ_SLOTS];
static uint64_t next_request = 1;
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t slot_of(mpi_h h) {
    uint64_t x = (uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 51) & (REQ_SLOTS - 1);
}

uint64_t mpi_request_started(mpi_h handle, bool receive, mpi_h comm, mpi_h type) {
    handle = norm(handle);
    if (handle == NULL || handle == TOMB) return 0;
    uint64_t number = 0;
    pthread_mutex_lock(&req_lock);
    uint32_t s = slot_of(handle);
    for (uint32_t i = 0; i < REQ_SLOTS; i++, s = (s + 1) & (REQ_SLOTS - 1)) {
        /* a handle still in the table was freed without a Wait we saw (MPI_Request_free): replace */
        if (reqs[s].handle == NULL || reqs[s].handle == TOMB || reqs[s].handle == handle) {
            number = next_request++;
            reqs[s].handle = handle;
            reqs[s].r = (mpi_request){.number = number, .receive = receive, .comm = comm, .type = type};
            break;
        }
    }
    pthread_mutex_unlock(&req_lock);
    return number;
}

bool mpi_request_done(mpi_h handle, mpi_request *out) {
    handle = norm(handle);
    if (handle == NULL || handle == TOMB) return false;
    bool found = false;
    pthread_mutex_lock(&req_lock);
    uint32_t s = slot_of(handle);
    for (uint32_t i = 0; i < REQ_SLOTS && reqs[s].handle != NULL; i++, s = (s + 1) & (REQ_SLOTS - 1)) {
        if (reqs[s].handle == handle) {
            *out = reqs[s].r;
            reqs[s].handle = TOMB;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&req_lock);
    return found;
}
