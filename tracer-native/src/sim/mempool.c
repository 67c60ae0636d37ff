/* Stream-ordered allocation (cudaMallocAsync, cudaFreeAsync) and memory pools.
 *
 * Memory is handed out at once from the device's range: with an infinitely fast device there is
 * never an earlier use to wait for. cudaFreeAsync is an operation on its stream, so the memory is
 * released when the stream reaches it, not before. Pools keep the counters CUDA reports (used and
 * reserved memory, their high-water marks) but cache nothing: reserved equals used. Pool state
 * is guarded by sim_mem_lock. On a capturing stream, allocations and frees become graph memory
 * nodes (graph.c). */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int device;
    bool is_default;
    struct cudaMemPoolProps props;
    unsigned long long release_threshold;
    int reuse[3]; /* cudaMemPoolReuse* attributes 1..3 */
    size_t used, used_high;
    enum cudaMemAccessFlags access[SIM_MAX_DEVICES];
} sim_pool;

static sim_ptrmap pools;
static sim_pool *default_pool[SIM_MAX_DEVICES];
static sim_pool *current_pool[SIM_MAX_DEVICES];

static sim_pool *new_pool(int device, const struct cudaMemPoolProps *props, bool is_default) {
    sim_pool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->device = device;
    p->is_default = is_default;
    p->props = *props;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    p->access[device] = cudaMemAccessFlagsProtReadWrite;
    if (sim_ptrmap_put(&pools, p, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static sim_pool *get_default(int device) {
    if (default_pool[device] == NULL) {
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        default_pool[device] = new_pool(device, &props, true);
    }
    if (current_pool[device] == NULL)
        current_pool[device] = default_pool[device];
    return default_pool[device];
}

void sim_pool_note_free(void *pool, size_t bytes) {
    sim_pool *p = pool;
    p->used = p->used > bytes ? p->used - bytes : 0;
}

void sim_async_free(void *ptr) {
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_free(ptr); /* a second cudaFreeAsync of the same pointer finds nothing: ignored */
    pthread_mutex_unlock(&sim_mem_lock);
}

static bool of_device(void *key, void *val, void *ctx) {
    (void)key;
    sim_pool *p = val;
    if (p->device != *(int *)ctx || p->is_default)
        return false;
    free(p);
    return true;
}

void sim_pools_reset_device(int device) {
    sim_ptrmap_foreach(&pools, of_device, &device);
    if (default_pool[device]) {
        default_pool[device]->used = default_pool[device]->used_high = 0;
        default_pool[device]->release_threshold = 0;
    }
    current_pool[device] = default_pool[device];
}

/* ---- allocation ---------------------------------------------------------------------------- */

/* A stream-ordered allocation on a capturing stream becomes a graph alloc node with the pool's
 * properties (sim_sched_lock held). */
static cudaError_t capture_malloc(sim_stream *s, void **ptr, size_t size, sim_pool *pool,
                                  bool *captured) {
    struct cudaMemPoolProps props;
    pthread_mutex_lock(&sim_mem_lock);
    if (pool == NULL) {
        get_default(s->device);
        pool = current_pool[s->device];
    }
    if (pool)
        props = pool->props;
    pthread_mutex_unlock(&sim_mem_lock);
    if (pool == NULL)
        return cudaErrorMemoryAllocation;
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeMemAlloc;
    d.pool = &props;
    d.bytes = size;
    cudaError_t e = sim_capture_op(s, &d, captured);
    if (*captured && e == cudaSuccess)
        *ptr = d.dptr;
    return e;
}

/* pool NULL: the current pool of the stream's device. */
static cudaError_t malloc_async(void **ptr, size_t size, sim_pool *pool, cudaStream_t stream,
                                bool ptds) {
    if (ptr == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    bool captured = false;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    int device = e == cudaSuccess ? s->device : 0;
    if (e == cudaSuccess && !sim_cfg.dev[device].prop.memoryPoolsSupported)
        e = cudaErrorNotSupported; /* configured without */
    if (e == cudaSuccess && size > 0 && sim_captures_active())
        e = capture_malloc(s, ptr, size, pool, &captured);
    pthread_mutex_unlock(&sim_sched_lock);
    if (e != cudaSuccess || captured)
        return e;
    pthread_mutex_lock(&sim_mem_lock);
    if (pool == NULL) {
        get_default(device);
        pool = current_pool[device];
    }
    void *p = NULL;
    if (pool == NULL)
        e = cudaErrorMemoryAllocation;
    else if (size > 0 && (p = sim_mem_alloc(pool->device, size, SIM_MEM_DEVICE, 0)) == NULL)
        e = cudaErrorMemoryAllocation;
    if (p != NULL) {
        sim_mem_set_pool(p, pool);
        pool->used += (size + SIM_ALIGN - 1) & ~(size_t)(SIM_ALIGN - 1);
        if (pool->used > pool->used_high)
            pool->used_high = pool->used;
    }
    pthread_mutex_unlock(&sim_mem_lock);
    if (e == cudaSuccess)
        *ptr = p;
    return e;
}

SIM_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
    SIM_ENTER();
    return sim_result(malloc_async(devPtr, size, NULL, hStream, false));
}

SIM_API cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream) {
    SIM_ENTER();
    return sim_result(malloc_async(devPtr, size, NULL, hStream, true));
}

static cudaError_t from_pool(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream,
                             bool ptds) {
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *pool = sim_ptrmap_get(&pools, memPool);
    pthread_mutex_unlock(&sim_mem_lock);
    if (pool == NULL)
        return cudaErrorInvalidValue;
    return malloc_async(ptr, size, pool, stream, ptds);
}

SIM_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                            cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(from_pool(ptr, size, memPool, stream, false));
}

SIM_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                 cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(from_pool(ptr, size, memPool, stream, true));
}

static cudaError_t free_async(void *devPtr, cudaStream_t stream, bool ptds) {
    if (devPtr == NULL)
        return cudaSuccess;
    sim_stream *s;
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup_ex(devPtr, &pi, true);
    pthread_mutex_unlock(&sim_mem_lock);
    bool captured = false;
    if (e == cudaSuccess) { /* on a capturing stream: a graph free node */
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeMemFree;
        d.dptr = devPtr;
        e = sim_capture_op(s, &d, &captured);
    }
    if (e == cudaSuccess && !captured &&
        (pi.type != SIM_MEM_DEVICE || pi.base != (uintptr_t)devPtr))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && !captured)
        sim_graph_mem_program_free(devPtr, &e); /* a graph allocation, if it is one */
    if (e == cudaSuccess && !captured) {
        sim_op op = {0};
        op.kind = SIM_OP_FREE;
        op.engine = op.peer_device = -1;
        op.free_ptr = devPtr;
        e = sim_submit(s, &op);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
    SIM_ENTER();
    return sim_result(free_async(devPtr, hStream, false));
}

SIM_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) {
    SIM_ENTER();
    return sim_result(free_async(devPtr, hStream, true));
}

/* ---- pools --------------------------------------------------------------------------------- */

SIM_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                      const struct cudaMemPoolProps *poolProps) {
    SIM_ENTER();
    if (memPool == NULL || poolProps == NULL || poolProps->allocType != cudaMemAllocationTypePinned ||
        poolProps->location.type != cudaMemLocationTypeDevice)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(poolProps->location.id) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = new_pool(poolProps->location.id, poolProps, false);
    pthread_mutex_unlock(&sim_mem_lock);
    if (p == NULL)
        return sim_result(cudaErrorMemoryAllocation);
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

SIM_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    cudaError_t e = p == NULL || p->is_default ? cudaErrorInvalidValue : cudaSuccess;
    if (e == cudaSuccess) {
        sim_ptrmap_remove(&pools, p);
        if (current_pool[p->device] == p)
            current_pool[p->device] = default_pool[p->device];
        sim_mem_forget_pool(p->device, p); /* its live allocations stay valid */
        free(p);
    }
    pthread_mutex_unlock(&sim_mem_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    pthread_mutex_unlock(&sim_mem_lock);
    return p ? cudaSuccess : sim_result(cudaErrorInvalidValue); /* nothing is ever cached */
}

static cudaError_t pool_attr(sim_pool *p, enum cudaMemPoolAttr attr, void *value, bool set) {
    unsigned long long v64 = 0;
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        if (set)
            p->reuse[attr - 1] = *(int *)value != 0;
        else
            *(int *)value = p->reuse[attr - 1];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        if (set)
            p->release_threshold = *(unsigned long long *)value;
        else
            *(unsigned long long *)value = p->release_threshold;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent:
        if (set)
            return cudaErrorInvalidValue;
        *(unsigned long long *)value = p->used;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        if (set) {
            memcpy(&v64, value, sizeof v64);
            if (v64 != 0) /* high-water marks can only be reset */
                return cudaErrorInvalidValue;
            p->used_high = p->used;
        } else {
            *(unsigned long long *)value = p->used_high;
        }
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t pool_attr_call(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value,
                                  bool set) {
    if (value == NULL)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    cudaError_t e = p ? pool_attr(p, attr, value, set) : cudaErrorInvalidValue;
    pthread_mutex_unlock(&sim_mem_lock);
    return e;
}

SIM_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                            void *value) {
    SIM_ENTER();
    return sim_result(pool_attr_call(memPool, attr, value, true));
}

SIM_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                            void *value) {
    SIM_ENTER();
    return sim_result(pool_attr_call(memPool, attr, value, false));
}

SIM_API cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool,
                                         const struct cudaMemAccessDesc *descList, size_t count) {
    SIM_ENTER();
    if (descList == NULL && count > 0)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    cudaError_t e = p ? cudaSuccess : cudaErrorInvalidValue;
    for (size_t i = 0; e == cudaSuccess && i < count; i++) {
        const struct cudaMemAccessDesc *d = &descList[i];
        if (d->location.type != cudaMemLocationTypeDevice)
            e = cudaErrorInvalidValue;
        else if (sim_check_device(d->location.id) != cudaSuccess)
            e = cudaErrorInvalidDevice;
        else if (d->location.id == p->device && d->flags != cudaMemAccessFlagsProtReadWrite)
            e = cudaErrorInvalidValue; /* the owner's own access cannot be reduced */
        else
            p->access[d->location.id] = d->flags;
    }
    pthread_mutex_unlock(&sim_mem_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                         struct cudaMemLocation *location) {
    SIM_ENTER();
    if (flags == NULL || location == NULL || location->type != cudaMemLocationTypeDevice)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(location->id) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    if (p)
        *flags = p->access[location->id];
    pthread_mutex_unlock(&sim_mem_lock);
    return p ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

static cudaError_t device_pool(cudaMemPool_t *memPool, int device, bool current) {
    if (memPool == NULL)
        return cudaErrorInvalidValue;
    if (sim_check_device(device) != cudaSuccess)
        return cudaErrorInvalidDevice;
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = get_default(device);
    if (current)
        p = current_pool[device];
    pthread_mutex_unlock(&sim_mem_lock);
    if (p == NULL)
        return cudaErrorMemoryAllocation;
    *memPool = (cudaMemPool_t)p;
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
    SIM_ENTER();
    return sim_result(device_pool(memPool, device, false));
}

SIM_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
    SIM_ENTER();
    return sim_result(device_pool(memPool, device, true));
}

static cudaError_t set_device_pool(int device, cudaMemPool_t memPool) {
    if (sim_check_device(device) != cudaSuccess)
        return cudaErrorInvalidDevice;
    pthread_mutex_lock(&sim_mem_lock);
    sim_pool *p = sim_ptrmap_get(&pools, memPool);
    cudaError_t e = p == NULL || p->device != device ? cudaErrorInvalidValue : cudaSuccess;
    if (e == cudaSuccess) {
        get_default(device);
        current_pool[device] = p;
    }
    pthread_mutex_unlock(&sim_mem_lock);
    return e;
}

SIM_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
    SIM_ENTER();
    return sim_result(set_device_pool(device, memPool));
}

/* The CUDA 13 location-based forms: only device-memory pools exist here. */
static cudaError_t location_device(const struct cudaMemLocation *location,
                                   enum cudaMemAllocationType type, int *device) {
    if (location == NULL || type != cudaMemAllocationTypePinned)
        return cudaErrorInvalidValue;
    if (location->type != cudaMemLocationTypeDevice)
        return cudaErrorNotSupported;
    *device = location->id;
    return cudaSuccess;
}

SIM_API cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool,
                                             struct cudaMemLocation *location,
                                             enum cudaMemAllocationType type) {
    SIM_ENTER();
    int device;
    cudaError_t e = location_device(location, type, &device);
    return sim_result(e == cudaSuccess ? device_pool(memPool, device, false) : e);
}

SIM_API cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                      enum cudaMemAllocationType type) {
    SIM_ENTER();
    int device;
    cudaError_t e = location_device(location, type, &device);
    return sim_result(e == cudaSuccess ? device_pool(memPool, device, true) : e);
}

SIM_API cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location,
                                      enum cudaMemAllocationType type, cudaMemPool_t memPool) {
    SIM_ENTER();
    int device;
    cudaError_t e = location_device(location, type, &device);
    return sim_result(e == cudaSuccess ? set_device_pool(device, memPool) : e);
}
