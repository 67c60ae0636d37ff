/* Device and managed memory: cudaMalloc and friends, cudaFree, cudaMemGetInfo and the pointer
 * table every copy validates against (cudaPointerGetAttributes).
 *
 * Device d's memory is a range of its own capacity starting near 16 TiB + d TiB, so device
 * addresses are stable from run to run and cannot be mistaken for heap or stack addresses;
 * managed memory has a range of its own near 8 TiB, and the allocations of graph alloc nodes one
 * near 4 TiB. A graph allocation gets its address when its node is created and keeps it; it is
 * mapped (an allocation of its device, counted in its memory) while a launch has allocated it.
 * Its pages stay accessible to the simulator in between (their contents are dropped on unmap),
 * so that no graph node can fault the simulator whatever it touches. */
#include "heap.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEVICE_RANGE_BASE 0x100000000000ull
#define DEVICE_RANGE_STRIDE 0x10000000000ull
#define MANAGED_RANGE_BASE 0x080000000000ull
#define MANAGED_CAPACITY (256ull << 30)
#define GRAPH_RANGE_BASE 0x040000000000ull
#define GRAPH_CAPACITY (1ull << 40)
#define PITCH_ALIGN 512u

/* Flags of graph allocations (segments of graph_heap). */
#define GRAPH_MAPPED 0x1u
#define GRAPH_RELEASE 0x2u /* give the address back once unmapped */

static sim_heap device_heap[SIM_MAX_DEVICES];
static sim_heap managed_heap;
static sim_heap graph_heap;
static size_t graph_mapped[SIM_MAX_DEVICES], graph_high[SIM_MAX_DEVICES];
sim_seg *sim_host_regions;

static sim_heap *heap_for(int device, sim_memtype type) {
    sim_heap *h = type == SIM_MEM_MANAGED ? &managed_heap : &device_heap[device];
    if (h->state == 0) {
        if (type == SIM_MEM_MANAGED)
            sim_heap_reserve(h, MANAGED_RANGE_BASE, MANAGED_CAPACITY);
        else
            sim_heap_reserve(h, DEVICE_RANGE_BASE + (uintptr_t)device * DEVICE_RANGE_STRIDE,
                             sim_cfg.dev[device].prop.totalGlobalMem);
    }
    return h->state == 1 ? h : NULL;
}

void *sim_mem_alloc(int device, size_t size, sim_memtype type, unsigned flags) {
    sim_heap *h = heap_for(device, type);
    if (h && type != SIM_MEM_MANAGED && graph_mapped[device] > 0 &&
        size > sim_graph_mem_available(device)) /* mapped graph memory takes room too */
        return NULL;
    sim_seg *s = h ? sim_heap_alloc(h, size) : NULL;
    if (s == NULL)
        return NULL;
    s->type = type;
    s->device = device;
    s->flags = flags;
    s->requested = size;
    s->pool = NULL;
    s->resident = type == SIM_MEM_MANAGED ? -1 : device;
    return (void *)s->addr;
}

static sim_seg *find_alloc(uintptr_t a, sim_heap **heap) {
    for (int d = 0; d < sim_cfg.device_count; d++) {
        if (sim_heap_contains(&device_heap[d], a)) {
            *heap = &device_heap[d];
            return sim_heap_find(&device_heap[d], a);
        }
    }
    if (sim_heap_contains(&managed_heap, a)) {
        *heap = &managed_heap;
        return sim_heap_find(&managed_heap, a);
    }
    if (sim_heap_contains(&graph_heap, a)) {
        *heap = &graph_heap;
        return sim_heap_find(&graph_heap, a);
    }
    *heap = NULL;
    return NULL;
}

/* ---- graph allocations --------------------------------------------------------------------- */

static sim_seg *graph_seg(const void *p) {
    sim_seg *s = sim_heap_contains(&graph_heap, (uintptr_t)p)
                     ? sim_heap_find(&graph_heap, (uintptr_t)p)
                     : NULL;
    return s && s->addr == (uintptr_t)p ? s : NULL;
}

void *sim_graph_mem_reserve(int device, size_t size) {
    if (graph_heap.state == 0)
        sim_heap_reserve(&graph_heap, GRAPH_RANGE_BASE, GRAPH_CAPACITY);
    sim_seg *s = graph_heap.state == 1 ? sim_heap_alloc(&graph_heap, size) : NULL;
    if (s == NULL)
        return NULL;
    s->type = SIM_MEM_DEVICE;
    s->device = device;
    s->flags = 0;
    s->requested = size;
    s->pool = NULL;
    s->resident = device;
    return (void *)s->addr;
}

/* Mapped graph memory is taken out of what the device can allocate. */
size_t sim_graph_mem_available(int device) {
    sim_heap *h = heap_for(device, SIM_MEM_DEVICE);
    size_t room = h ? h->capacity - h->used : 0;
    return room > graph_mapped[device] ? room - graph_mapped[device] : 0;
}

cudaError_t sim_graph_mem_map(void *p) {
    sim_seg *s = graph_seg(p);
    if (s == NULL)
        return cudaErrorInvalidValue;
    if (s->flags & GRAPH_MAPPED)
        return cudaSuccess;
    s->flags |= GRAPH_MAPPED;
    graph_mapped[s->device] += s->size;
    if (graph_mapped[s->device] > graph_high[s->device])
        graph_high[s->device] = graph_mapped[s->device];
    return cudaSuccess;
}

static void graph_unmap(sim_seg *s) {
    if (!(s->flags & GRAPH_MAPPED))
        return;
    uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (s->addr + ps - 1) & ~(ps - 1), hi = (s->addr + s->size) & ~(ps - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
    s->flags &= ~GRAPH_MAPPED;
    graph_mapped[s->device] -= s->size;
    if (s->flags & GRAPH_RELEASE)
        sim_heap_release(&graph_heap, s);
}

void sim_graph_mem_release(void *p) {
    sim_seg *s = graph_seg(p);
    if (s == NULL)
        return;
    if (s->flags & GRAPH_MAPPED)
        s->flags |= GRAPH_RELEASE;
    else
        sim_heap_release(&graph_heap, s);
}

bool sim_graph_mem_is_graph(const void *p, bool *mapped) {
    sim_seg *s = graph_seg(p);
    if (mapped)
        *mapped = s && (s->flags & GRAPH_MAPPED);
    return s != NULL;
}

void sim_graph_mem_stats(int device, size_t *current, size_t *high) {
    *current = graph_mapped[device];
    *high = graph_high[device];
}

void sim_graph_mem_reset_high(int device) {
    graph_high[device] = graph_mapped[device];
}

int sim_mem_free(void *p) {
    sim_heap *h;
    sim_seg *s = find_alloc((uintptr_t)p, &h);
    if (h == &graph_heap) {
        if (s == NULL || s->addr != (uintptr_t)p || !(s->flags & GRAPH_MAPPED))
            return -1;
        graph_unmap(s);
        return 0;
    }
    if (s == NULL || s->addr != (uintptr_t)p || s->type == SIM_MEM_MODULE ||
        (s->flags & SIM_FLAG_MODULE_VAR))
        return -1;
    if (s->pool)
        sim_pool_note_free(s->pool, s->size);
    return sim_heap_release(h, s);
}

void sim_mem_set_pool(void *p, void *pool) {
    sim_heap *h;
    sim_seg *s = find_alloc((uintptr_t)p, &h);
    if (s)
        s->pool = pool;
}

static bool forget_pool(sim_seg *s, void *pool) {
    if (s->pool == pool)
        s->pool = NULL;
    return false;
}

void sim_mem_forget_pool(int device, void *pool) {
    sim_heap_sweep(&device_heap[device], forget_pool, pool);
}

bool sim_is_device_side(sim_memtype t) {
    return t == SIM_MEM_DEVICE || t == SIM_MEM_MANAGED || t == SIM_MEM_MODULE;
}

void sim_mem_lookup(const void *p, sim_ptrinfo *out) {
    sim_mem_lookup_ex(p, out, false);
}

void sim_mem_lookup_ex(const void *p, sim_ptrinfo *out, bool graph_mem) {
    uintptr_t a = (uintptr_t)p;
    sim_heap *h;
    memset(out, 0, sizeof *out);
    out->type = SIM_MEM_UNREGISTERED;
    out->device = cudaInvalidDeviceId;
    sim_seg *s = find_alloc(a, &h);
    if (h != NULL)
        out->in_device_range = h != &managed_heap;
    if (h == &graph_heap && s && !(s->flags & GRAPH_MAPPED) && !graph_mem)
        return; /* not allocated now */
    if (s == NULL)
        s = h == NULL ? sim_regions_find(sim_host_regions, a) : NULL;
    if (s == NULL)
        return;
    out->type = s->type;
    out->device = s->device;
    out->base = s->addr;
    out->size = s->requested;
    out->flags = h == &graph_heap ? 0 : s->flags;
    out->registered = s->registered;
}

size_t sim_mem_used(int device) {
    return (device_heap[device].state == 1 ? device_heap[device].used : 0) +
           graph_mapped[device];
}

size_t sim_mem_capacity(int device) {
    return sim_cfg.dev[device].prop.totalGlobalMem;
}

/* Everything of the device except managed variables, which the program reaches through plain
 * pointers set at registration. Module variables are given fresh memory on next use. */
static bool on_device(sim_seg *s, void *ctx) {
    int device = *(int *)ctx;
    return s->device == device && !(s->flags & SIM_FLAG_MODULE_VAR);
}

void sim_mem_free_device(int device) {
    sim_heap_sweep(&device_heap[device], on_device, &device);
    sim_heap_sweep(&managed_heap, on_device, &device);
}

void sim_mem_set_resident(const void *p, int location) {
    sim_heap *h;
    sim_seg *s = find_alloc((uintptr_t)p, &h);
    if (s)
        s->resident = location;
}

int sim_mem_resident(const void *p) {
    sim_heap *h;
    sim_seg *s = find_alloc((uintptr_t)p, &h);
    return s ? s->resident : -1;
}

/* ---- public API ---------------------------------------------------------------------------- */

static cudaError_t device_alloc(void **ptr, size_t size, sim_memtype type, unsigned flags) {
    pthread_mutex_lock(&sim_mem_lock);
    void *p = sim_mem_alloc(sim_current_device, size, type, flags);
    pthread_mutex_unlock(&sim_mem_lock);
    if (p == NULL)
        return cudaErrorMemoryAllocation;
    *ptr = p;
    return cudaSuccess;
}

SIM_API cudaError_t cudaMalloc(void **devPtr, size_t size) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    if (e != cudaSuccess)
        return sim_result(e);
    if (devPtr == NULL)
        return sim_result(cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return cudaSuccess;
    }
    return sim_result(device_alloc(devPtr, size, SIM_MEM_DEVICE, 0));
}

static size_t pitch_of(size_t width) {
    return (width + PITCH_ALIGN - 1) & ~(size_t)(PITCH_ALIGN - 1);
}

SIM_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    if (e != cudaSuccess)
        return sim_result(e);
    if (devPtr == NULL || pitch == NULL)
        return sim_result(cudaErrorInvalidValue);
    size_t p = pitch_of(width);
    if (width == 0 || height == 0) {
        *devPtr = NULL;
        *pitch = p;
        return cudaSuccess;
    }
    if (height > SIZE_MAX / p)
        return sim_result(cudaErrorMemoryAllocation);
    e = device_alloc(devPtr, p * height, SIM_MEM_DEVICE, 0);
    if (e == cudaSuccess)
        *pitch = p;
    return sim_result(e);
}

SIM_API cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    if (e != cudaSuccess)
        return sim_result(e);
    if (pitchedDevPtr == NULL)
        return sim_result(cudaErrorInvalidValue);
    size_t p = pitch_of(extent.width);
    struct cudaPitchedPtr r = {NULL, p, extent.width, extent.height};
    size_t rows = extent.height * extent.depth;
    if (extent.depth != 0 && rows / extent.depth != extent.height)
        return sim_result(cudaErrorMemoryAllocation);
    if (extent.width != 0 && rows != 0) {
        if (rows > SIZE_MAX / p)
            return sim_result(cudaErrorMemoryAllocation);
        e = device_alloc(&r.ptr, p * rows, SIM_MEM_DEVICE, 0);
        if (e != cudaSuccess)
            return sim_result(e);
    }
    *pitchedDevPtr = r;
    return cudaSuccess;
}

SIM_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    if (e != cudaSuccess)
        return sim_result(e);
    if (devPtr == NULL || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return sim_result(cudaErrorInvalidValue);
    if (!sim_cfg.dev[sim_current_device].prop.managedMemory) /* configured without */
        return sim_result(cudaErrorNotSupported);
    return sim_result(device_alloc(devPtr, size, SIM_MEM_MANAGED, flags));
}

/* cudaFree waits for the device to finish, as CUDA's does, so no queued copy outlives its memory.
 * A graph allocation is unmapped (if the program may free it: graph.c). */
SIM_API cudaError_t cudaFree(void *devPtr) {
    SIM_ENTER();
    if (devPtr == NULL)
        return cudaSuccess;
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_capture_unsafe_locked();
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup_ex(devPtr, &pi, true);
    bool graph = sim_graph_mem_is_graph(devPtr, NULL);
    pthread_mutex_unlock(&sim_mem_lock);
    if (e == cudaSuccess)
        e = (pi.type == SIM_MEM_DEVICE || pi.type == SIM_MEM_MANAGED) &&
                    pi.base == (uintptr_t)devPtr
                ? sim_wait_device(pi.device)
                : cudaErrorInvalidValue;
    if (e == cudaSuccess && graph)
        sim_graph_mem_program_free(devPtr, &e);
    if (e == cudaSuccess) {
        pthread_mutex_lock(&sim_mem_lock);
        if (sim_mem_free(devPtr) != 0 && !graph)
            e = cudaErrorInvalidValue; /* freed by another thread meanwhile */
        pthread_mutex_unlock(&sim_mem_lock);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    SIM_ENTER();
    if (free == NULL || total == NULL)
        return sim_result(cudaErrorInvalidValue);
    int d = sim_current_device;
    pthread_mutex_lock(&sim_mem_lock);
    size_t used = sim_mem_used(d), cap = sim_mem_capacity(d);
    pthread_mutex_unlock(&sim_mem_lock);
    *total = cap;
    *free = used < cap ? cap - used : 0;
    return cudaSuccess;
}

SIM_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                             const void *ptr) {
    SIM_ENTER();
    if (attributes == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(ptr, &pi);
    pthread_mutex_unlock(&sim_mem_lock);
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    a.device = pi.device;
    switch (pi.type) {
    case SIM_MEM_DEVICE:
    case SIM_MEM_MODULE:
        a.type = cudaMemoryTypeDevice;
        a.devicePointer = (void *)ptr;
        break;
    case SIM_MEM_MANAGED:
        a.type = cudaMemoryTypeManaged;
        a.devicePointer = a.hostPointer = (void *)ptr;
        break;
    case SIM_MEM_HOST: /* unified addressing: the device sees host memory at the same address */
        a.type = cudaMemoryTypeHost;
        a.devicePointer = a.hostPointer = (void *)ptr;
        break;
    default:
        a.type = cudaMemoryTypeUnregistered;
        a.hostPointer = (void *)ptr;
        break;
    }
    *attributes = a;
    return cudaSuccess;
}
