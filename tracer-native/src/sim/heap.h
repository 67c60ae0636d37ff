/* Address ranges and the allocator behind device and managed memory, and the ordered table of
 * pinned and registered host regions. All functions require sim_mem_lock. */
#ifndef APPTRACE_SIM_HEAP_H
#define APPTRACE_SIM_HEAP_H

#include "sim.h"

/* A segment of a range (free or allocated), or a host region. Kept in a treap ordered by address
 * and augmented with the largest free segment of each subtree, for first-fit in O(log n). */
typedef struct sim_seg {
    uintptr_t addr;
    size_t size; /* bytes the segment spans (allocations: rounded up to SIM_ALIGN) */
    uint32_t prio;
    bool free;
    size_t max_free;
    struct sim_seg *left, *right;
    /* allocations and host regions */
    sim_memtype type;
    int device;
    unsigned flags;
    size_t requested; /* size the program asked for */
    void *pool;       /* cudaMemPool_t of stream-ordered allocations */
    int resident;     /* managed memory: last prefetch location (-1 host) */
    bool registered;  /* host region from cudaHostRegister (else cudaHostAlloc) */
} sim_seg;

typedef struct {
    uintptr_t base;
    size_t size;     /* bytes reserved */
    size_t capacity; /* bytes that may be allocated */
    size_t used;
    sim_seg *root;
    int state; /* 0: not yet reserved, 1: reserved, -1: reservation failed */
} sim_heap;

int sim_heap_reserve(sim_heap *h, uintptr_t hint, size_t capacity);
sim_seg *sim_heap_alloc(sim_heap *h, size_t size);
int sim_heap_release(sim_heap *h, sim_seg *s); /* frees an allocated segment, coalescing */
sim_seg *sim_heap_find(const sim_heap *h, uintptr_t p); /* allocated segment containing p */
bool sim_heap_contains(const sim_heap *h, uintptr_t p);
/* Calls fn on every allocated segment; fn returns true to have it released. */
void sim_heap_sweep(sim_heap *h, bool (*fn)(sim_seg *s, void *ctx), void *ctx);

/* The host region table: a treap of non-overlapping [addr, addr+size) regions. */
sim_seg *sim_regions_find(sim_seg *root, uintptr_t p);
bool sim_regions_overlap(sim_seg *root, uintptr_t addr, size_t size);
sim_seg *sim_regions_insert(sim_seg *root, sim_seg *n);
sim_seg *sim_regions_remove(sim_seg *root, uintptr_t addr, sim_seg **removed);

#endif
