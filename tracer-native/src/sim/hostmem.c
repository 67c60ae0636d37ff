/* Page-locked host memory: cudaMallocHost/cudaHostAlloc (page-aligned anonymous mappings) and
 * cudaHostRegister. Both are regions in one address-ordered table, which is how copies tell
 * pinned from pageable memory (their modeled bandwidth differs) and how
 * cudaPointerGetAttributes answers cudaMemoryTypeHost. With unified addressing the device pointer
 * of a region is its host address. */
#include "heap.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern sim_seg *sim_host_regions;

static size_t page_round(size_t n) {
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    return (n + ps - 1) & ~(ps - 1);
}

static cudaError_t add_region(void *p, size_t size, unsigned flags, bool registered) {
    sim_seg *n = calloc(1, sizeof *n);
    if (n == NULL)
        return cudaErrorMemoryAllocation;
    n->addr = (uintptr_t)p;
    n->size = size;
    n->requested = size;
    n->type = SIM_MEM_HOST;
    n->device = sim_current_device;
    n->flags = flags;
    n->registered = registered;
    pthread_mutex_lock(&sim_mem_lock);
    cudaError_t e = cudaSuccess;
    if (sim_regions_overlap(sim_host_regions, n->addr, size))
        e = cudaErrorHostMemoryAlreadyRegistered;
    else
        sim_host_regions = sim_regions_insert(sim_host_regions, n);
    pthread_mutex_unlock(&sim_mem_lock);
    if (e != cudaSuccess)
        free(n);
    return e;
}

static cudaError_t host_alloc(void **pHost, size_t size, unsigned int flags) {
    unsigned valid = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if (pHost == NULL || (flags & ~valid) != 0)
        return cudaErrorInvalidValue;
    if (size == 0) {
        *pHost = NULL;
        return cudaSuccess;
    }
    /* populated: page-locked memory is resident, as with CUDA */
    void *p = mmap(NULL, page_round(size), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return cudaErrorMemoryAllocation;
    if (add_region(p, size, flags, false) != cudaSuccess) {
        munmap(p, page_round(size));
        return cudaErrorMemoryAllocation;
    }
    *pHost = p;
    return cudaSuccess;
}

SIM_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    return sim_result(e == cudaSuccess ? host_alloc(pHost, size, flags) : e);
}

SIM_API cudaError_t cudaMallocHost(void **ptr, size_t size) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    return sim_result(e == cudaSuccess ? host_alloc(ptr, size, cudaHostAllocDefault) : e);
}

/* Removes the region starting at p when it matches `registered`; returns it, or NULL. */
static sim_seg *take_region(void *p, bool registered) {
    sim_seg *s = sim_regions_find(sim_host_regions, (uintptr_t)p), *removed = NULL;
    if (s == NULL || s->addr != (uintptr_t)p || s->registered != registered)
        return NULL;
    sim_host_regions = sim_regions_remove(sim_host_regions, s->addr, &removed);
    return removed;
}

/* Like cudaFree, waits for every device first: queued copies may still read the memory. */
static cudaError_t release_region(void *p, bool registered, cudaError_t not_found) {
    cudaError_t e = cudaSuccess;
    pthread_mutex_lock(&sim_sched_lock);
    for (int d = 0; d < sim_cfg.device_count && e == cudaSuccess; d++)
        e = sim_wait_device(d);
    sim_seg *s = NULL;
    if (e == cudaSuccess) {
        pthread_mutex_lock(&sim_mem_lock);
        s = take_region(p, registered);
        pthread_mutex_unlock(&sim_mem_lock);
        if (s == NULL)
            e = not_found;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    if (s != NULL && !registered)
        munmap(p, page_round(s->size));
    free(s);
    return e;
}

SIM_API cudaError_t cudaFreeHost(void *ptr) {
    SIM_ENTER();
    if (ptr == NULL)
        return cudaSuccess;
    cudaError_t e = sim_capture_unsafe();
    return sim_result(e == cudaSuccess ? release_region(ptr, false, cudaErrorInvalidValue) : e);
}

SIM_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    SIM_ENTER();
    cudaError_t e = sim_capture_unsafe();
    if (e != cudaSuccess)
        return sim_result(e);
    unsigned valid = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                     cudaHostRegisterReadOnly;
    if (ptr == NULL || size == 0 || (flags & ~valid) != 0)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_mem_lock);
    sim_ptrinfo pi;
    sim_mem_lookup(ptr, &pi);
    pthread_mutex_unlock(&sim_mem_lock);
    if (pi.type != SIM_MEM_UNREGISTERED && pi.type != SIM_MEM_HOST)
        return sim_result(cudaErrorInvalidValue); /* device or managed memory */
    return sim_result(add_region(ptr, size, flags, true));
}

SIM_API cudaError_t cudaHostUnregister(void *ptr) {
    SIM_ENTER();
    if (ptr == NULL)
        return sim_result(cudaErrorInvalidValue);
    cudaError_t e = sim_capture_unsafe();
    return sim_result(e == cudaSuccess ? release_region(ptr, true, cudaErrorHostMemoryNotRegistered)
                                       : e);
}

SIM_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
    SIM_ENTER();
    if (pDevice == NULL || flags != 0)
        return sim_result(cudaErrorInvalidValue);
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(pHost, &pi);
    pthread_mutex_unlock(&sim_mem_lock);
    if (pi.type != SIM_MEM_HOST && pi.type != SIM_MEM_MANAGED)
        return sim_result(cudaErrorInvalidValue);
    *pDevice = pHost;
    return cudaSuccess;
}

SIM_API cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
    SIM_ENTER();
    if (pFlags == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(pHost, &pi);
    pthread_mutex_unlock(&sim_mem_lock);
    if (pi.type != SIM_MEM_HOST)
        return sim_result(cudaErrorInvalidValue);
    *pFlags = pi.flags;
    return cudaSuccess;
}
