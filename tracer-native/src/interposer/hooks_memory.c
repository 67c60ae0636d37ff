/* Hooks for allocation and release: device, pitched, pinned, write-combined, registered, mapped,
 * managed, stream-ordered and array memory. */
#include "hook.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef cudaError_t (*malloc_async_fn)(void **, size_t, cudaStream_t);
typedef cudaError_t (*pool_async_fn)(void **, size_t, cudaMemPool_t, cudaStream_t);
typedef cudaError_t (*free_async_fn)(void *, cudaStream_t);

int at_memory_kind_of_host_flags(unsigned int flags) {
    if (flags & cudaHostAllocWriteCombined) return PB_MemoryKind_WRITE_COMBINED;
    if (flags & cudaHostAllocMapped) return PB_MemoryKind_MAPPED;
    return PB_MemoryKind_PINNED;
}

static uint64_t out_ptr(cudaError_t r, void **p) {
    return (r == cudaSuccess && p != NULL) ? (uint64_t)(uintptr_t)*p : 0;
}

/* The NUMA node of the page holding `ptr`, asked of the kernel without touching the page
 * (move_pages with no target nodes only reports); false when the page is not resident or the
 * call is not allowed (some containers forbid it). */
static bool numa_node_of(uint64_t ptr, uint32_t *node) {
    int saved = errno;
    void *page = (void *)(uintptr_t)ptr;
    int status = -1;
    long r = syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0);
    errno = saved;
    if (r != 0 || status < 0) return false;
    *node = (uint32_t)status;
    return true;
}

static bool page_locked(int kind) {
    return kind == PB_MemoryKind_PINNED || kind == PB_MemoryKind_WRITE_COMBINED ||
           kind == PB_MemoryKind_MAPPED || kind == PB_MemoryKind_REGISTERED;
}

static void record_alloc(at_call *c, cudaError_t r, int kind, uint64_t ptr, uint64_t bytes,
                         unsigned int flags, int device) {
    enc_alloc m = {.kind = kind, .ptr = ptr, .bytes = bytes, .flags = flags, .device = device};
    if (ptr != 0 && page_locked(kind)) m.numa_known = numa_node_of(ptr, &m.numa_node);
    AT_RECORD(c, r, enc_alloc_body, &m);
}

static void record_free(at_call *c, cudaError_t r, int kind, const void *ptr, cudaStream_t s) {
    enc_free m = {.kind = kind, .ptr = (uint64_t)(uintptr_t)ptr, .stream = at_stream(s),
                  .device = kind == PB_MemoryKind_DEVICE || kind == PB_MemoryKind_STREAM_ORDERED
                                ? at_tls.device : -1,
                  .capture_id = at_capture_id(at_stream(s), r)};
    AT_RECORD(c, r, enc_free_body, &m);
}

APPTRACE_HOOK(cudaMalloc, cudaError_t, (void **devPtr, size_t size)) {
    REAL(cudaMalloc);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMalloc)) return real_cudaMalloc(devPtr, size);
    cudaError_t r = real_cudaMalloc(devPtr, size);
    record_alloc(&c, r, PB_MemoryKind_DEVICE, out_ptr(r, devPtr), size, 0, at_tls.device);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMallocPitch, cudaError_t, (void **devPtr, size_t *pitch, size_t width, size_t height)) {
    REAL(cudaMallocPitch);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMallocPitch)) return real_cudaMallocPitch(devPtr, pitch, width, height);
    cudaError_t r = real_cudaMallocPitch(devPtr, pitch, width, height);
    uint64_t p = (r == cudaSuccess && pitch) ? *pitch : 0;
    enc_alloc m = {.kind = PB_MemoryKind_DEVICE, .ptr = out_ptr(r, devPtr), .bytes = p * height,
                   .device = at_tls.device, .pitch = p, .width = width, .height = height};
    AT_RECORD(&c, r, enc_alloc_body, &m);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMalloc3D, cudaError_t, (struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)) {
    REAL(cudaMalloc3D);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMalloc3D)) return real_cudaMalloc3D(pitchedDevPtr, extent);
    cudaError_t r = real_cudaMalloc3D(pitchedDevPtr, extent);
    bool ok = r == cudaSuccess && pitchedDevPtr;
    uint64_t pitch = ok ? pitchedDevPtr->pitch : 0;
    enc_alloc m = {.kind = PB_MemoryKind_DEVICE, .ptr = ok ? (uint64_t)(uintptr_t)pitchedDevPtr->ptr : 0,
                   .bytes = pitch * extent.height * extent.depth, .device = at_tls.device,
                   .pitch = pitch, .width = extent.width, .height = extent.height, .depth = extent.depth};
    AT_RECORD(&c, r, enc_alloc_body, &m);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMallocHost, cudaError_t, (void **ptr, size_t size)) {
    REAL(cudaMallocHost);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMallocHost)) return real_cudaMallocHost(ptr, size);
    cudaError_t r = real_cudaMallocHost(ptr, size);
    record_alloc(&c, r, PB_MemoryKind_PINNED, out_ptr(r, ptr), size, 0, -1);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaHostAlloc, cudaError_t, (void **pHost, size_t size, unsigned int flags)) {
    REAL(cudaHostAlloc);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaHostAlloc)) return real_cudaHostAlloc(pHost, size, flags);
    cudaError_t r = real_cudaHostAlloc(pHost, size, flags);
    record_alloc(&c, r, at_memory_kind_of_host_flags(flags), out_ptr(r, pHost), size, flags, -1);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaHostRegister, cudaError_t, (void *ptr, size_t size, unsigned int flags)) {
    REAL(cudaHostRegister);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaHostRegister)) return real_cudaHostRegister(ptr, size, flags);
    cudaError_t r = real_cudaHostRegister(ptr, size, flags);
    record_alloc(&c, r, PB_MemoryKind_REGISTERED, (uint64_t)(uintptr_t)ptr, size, flags, -1);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMallocManaged, cudaError_t, (void **devPtr, size_t size, unsigned int flags)) {
    REAL(cudaMallocManaged);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMallocManaged)) return real_cudaMallocManaged(devPtr, size, flags);
    cudaError_t r = real_cudaMallocManaged(devPtr, size, flags);
    record_alloc(&c, r, PB_MemoryKind_MANAGED, out_ptr(r, devPtr), size, flags, at_tls.device);
    at_leave(&c);
    return r;
}

static cudaError_t malloc_async(malloc_async_fn real, int api, void *ra, void **p, size_t n, cudaStream_t s) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(p, n, s);
    cudaError_t r = real(p, n, s);
    enc_alloc m = {.kind = PB_MemoryKind_STREAM_ORDERED, .ptr = out_ptr(r, p), .bytes = n,
                   .device = at_tls.device, .stream = at_stream(s), .capture_id = at_capture_id(at_stream(s), r)};
    AT_RECORD(&c, r, enc_alloc_body, &m);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMallocAsync, cudaError_t, (void **devPtr, size_t size, cudaStream_t hStream)) {
    REAL(cudaMallocAsync);
    return malloc_async(real_cudaMallocAsync, APPTRACE_API_cudaMallocAsync,
                        __builtin_return_address(0), devPtr, size, hStream);
}

APPTRACE_HOOK(cudaMallocAsync_ptsz, cudaError_t, (void **devPtr, size_t size, cudaStream_t hStream)) {
    REAL(cudaMallocAsync_ptsz);
    return malloc_async(real_cudaMallocAsync_ptsz, APPTRACE_API_cudaMallocAsync_ptsz,
                        __builtin_return_address(0), devPtr, size, hStream);
}

static cudaError_t pool_async(pool_async_fn real, int api, void *ra, void **p, size_t n,
                              cudaMemPool_t pool, cudaStream_t s) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(p, n, pool, s);
    cudaError_t r = real(p, n, pool, s);
    enc_alloc m = {.kind = PB_MemoryKind_STREAM_ORDERED, .ptr = out_ptr(r, p), .bytes = n,
                   .device = at_tls.device, .stream = at_stream(s), .capture_id = at_capture_id(at_stream(s), r)};
    AT_RECORD(&c, r, enc_alloc_body, &m);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaMallocFromPoolAsync, cudaError_t, (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)) {
    REAL(cudaMallocFromPoolAsync);
    return pool_async(real_cudaMallocFromPoolAsync, APPTRACE_API_cudaMallocFromPoolAsync,
                      __builtin_return_address(0), ptr, size, memPool, stream);
}

APPTRACE_HOOK(cudaMallocFromPoolAsync_ptsz, cudaError_t, (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)) {
    REAL(cudaMallocFromPoolAsync_ptsz);
    return pool_async(real_cudaMallocFromPoolAsync_ptsz, APPTRACE_API_cudaMallocFromPoolAsync_ptsz,
                      __builtin_return_address(0), ptr, size, memPool, stream);
}

APPTRACE_HOOK(cudaMallocArray, cudaError_t, (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, unsigned int flags)) {
    REAL(cudaMallocArray);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMallocArray)) return real_cudaMallocArray(array, desc, width, height, flags);
    cudaError_t r = real_cudaMallocArray(array, desc, width, height, flags);
    uint64_t elem = desc ? (uint64_t)(desc->x + desc->y + desc->z + desc->w) / 8 : 0;
    enc_alloc m = {.kind = PB_MemoryKind_ARRAY, .ptr = out_ptr(r, (void **)array),
                   .bytes = elem * width * (height ? height : 1), .flags = flags,
                   .device = at_tls.device, .width = width, .height = height};
    AT_RECORD(&c, r, enc_alloc_body, &m);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaFree, cudaError_t, (void *devPtr)) {
    REAL(cudaFree);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaFree)) return real_cudaFree(devPtr);
    cudaError_t r = real_cudaFree(devPtr);
    record_free(&c, r, PB_MemoryKind_DEVICE, devPtr, 0);
    at_leave(&c);
    at_flush_all(); /* cudaFree synchronizes the device */
    return r;
}

APPTRACE_HOOK(cudaFreeHost, cudaError_t, (void *ptr)) {
    REAL(cudaFreeHost);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaFreeHost)) return real_cudaFreeHost(ptr);
    cudaError_t r = real_cudaFreeHost(ptr);
    record_free(&c, r, PB_MemoryKind_PINNED, ptr, 0);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaHostUnregister, cudaError_t, (void *ptr)) {
    REAL(cudaHostUnregister);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaHostUnregister)) return real_cudaHostUnregister(ptr);
    cudaError_t r = real_cudaHostUnregister(ptr);
    record_free(&c, r, PB_MemoryKind_REGISTERED, ptr, 0);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaFreeArray, cudaError_t, (cudaArray_t array)) {
    REAL(cudaFreeArray);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaFreeArray)) return real_cudaFreeArray(array);
    cudaError_t r = real_cudaFreeArray(array);
    record_free(&c, r, PB_MemoryKind_ARRAY, array, 0);
    at_leave(&c);
    return r;
}

static cudaError_t free_async(free_async_fn real, int api, void *ra, void *p, cudaStream_t s) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(p, s);
    cudaError_t r = real(p, s);
    record_free(&c, r, PB_MemoryKind_STREAM_ORDERED, p, s);
    at_leave(&c);
    return r;
}

APPTRACE_HOOK(cudaFreeAsync, cudaError_t, (void *devPtr, cudaStream_t hStream)) {
    REAL(cudaFreeAsync);
    return free_async(real_cudaFreeAsync, APPTRACE_API_cudaFreeAsync, __builtin_return_address(0),
                      devPtr, hStream);
}

APPTRACE_HOOK(cudaFreeAsync_ptsz, cudaError_t, (void *devPtr, cudaStream_t hStream)) {
    REAL(cudaFreeAsync_ptsz);
    return free_async(real_cudaFreeAsync_ptsz, APPTRACE_API_cudaFreeAsync_ptsz,
                      __builtin_return_address(0), devPtr, hStream);
}
