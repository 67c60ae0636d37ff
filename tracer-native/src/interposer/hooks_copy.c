/* Hooks for every cudaMemcpy and cudaMemset variant: 1D, 2D and 3D, synchronous and async, peer,
 * to and from symbols, and the per-thread-default-stream (_ptds/_ptsz) forms. */
#include "hook.h"

/* Bytes of a copy to a variable recorded at most (docs/CAPTURE.md): a struct of pointers is small,
 * and a large table copied in a loop must not swell the trace. */
#define SYMBOL_DATA_MAX 4096u

typedef cudaError_t (*memcpy_fn)(void *, const void *, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*memcpy_async_fn)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
typedef cudaError_t (*memcpy2d_fn)(void *, size_t, const void *, size_t, size_t, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*memcpy2d_async_fn)(void *, size_t, const void *, size_t, size_t, size_t,
                                         enum cudaMemcpyKind, cudaStream_t);
typedef cudaError_t (*memcpy3d_fn)(const struct cudaMemcpy3DParms *);
typedef cudaError_t (*memcpy3d_async_fn)(const struct cudaMemcpy3DParms *, cudaStream_t);
typedef cudaError_t (*to_symbol_fn)(const void *, const void *, size_t, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*to_symbol_async_fn)(const void *, const void *, size_t, size_t, enum cudaMemcpyKind,
                                          cudaStream_t);
typedef cudaError_t (*from_symbol_fn)(void *, const void *, size_t, size_t, enum cudaMemcpyKind);
typedef cudaError_t (*from_symbol_async_fn)(void *, const void *, size_t, size_t, enum cudaMemcpyKind,
                                            cudaStream_t);
typedef cudaError_t (*memset_fn)(void *, int, size_t);
typedef cudaError_t (*memset_async_fn)(void *, int, size_t, cudaStream_t);
typedef cudaError_t (*memset2d_fn)(void *, size_t, int, size_t, size_t);
typedef cudaError_t (*memset2d_async_fn)(void *, size_t, int, size_t, size_t, cudaStream_t);
typedef cudaError_t (*memset3d_fn)(struct cudaPitchedPtr, int, struct cudaExtent);
typedef cudaError_t (*memset3d_async_fn)(struct cudaPitchedPtr, int, struct cudaExtent, cudaStream_t);

/* cudaMemoryType of a pointer, asked of the runtime without touching the program's view of
 * cudaGetLastError: skipped while an error is pending, and an error it causes is cleared. */
bool at_pointer_type(const void *p, int *type, int *device) {
    REAL_OR(cudaPointerGetAttributes, false);
    REAL_OR(cudaPeekAtLastError, false);
    REAL_OR(cudaGetLastError, false);
    if (real_cudaPeekAtLastError() != cudaSuccess) return false;
    struct cudaPointerAttributes a;
    if (real_cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        real_cudaGetLastError();
        return false;
    }
    *type = (int)a.type;
    *device = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
    return true;
}

static bool on_device(int type) {
    return type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged;
}

/* Fills the kinds of a copy: as called, and resolved (asking the runtime for cudaMemcpyDefault). */
static void kinds(enc_copy *m, enum cudaMemcpyKind kind, const void *dst, const void *src, cudaError_t r) {
    m->kind_called = (int)kind + 1;
    m->dst_device = m->src_device = -1;
    if (kind != cudaMemcpyDefault) {
        m->kind_resolved = m->kind_called;
        m->resolution = PB_KindResolution_AS_CALLED;
        if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) m->dst_device = at_tls.device;
        if (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) m->src_device = at_tls.device;
        return;
    }
    int dt, dd, st, sd;
    if (r != cudaSuccess || !at_pointer_type(dst, &dt, &dd) || !at_pointer_type(src, &st, &sd)) {
        m->resolution = PB_KindResolution_UNRESOLVED;
        return;
    }
    m->resolution = PB_KindResolution_POINTER_ATTRIBUTES;
    m->dst_memory_type = dt;
    m->src_memory_type = st;
    m->dst_device = dd;
    m->src_device = sd;
    static const int table[2][2] = {
        /* src host */ {PB_CopyKind_HOST_TO_HOST, PB_CopyKind_HOST_TO_DEVICE},
        /* src dev  */ {PB_CopyKind_DEVICE_TO_HOST, PB_CopyKind_DEVICE_TO_DEVICE},
    };
    m->kind_resolved = table[on_device(st)][on_device(dt)];
}

void at_copy_kinds(enc_copy *m, enum cudaMemcpyKind kind, const void *dst, const void *src) {
    kinds(m, kind, dst, src, cudaSuccess);
}

static void record_copy(at_call *c, cudaError_t r, enc_copy *m, bool sync) {
    m->device = at_tls.device;
    if (!sync) m->capture_id = at_capture_id(m->stream, r);
    m->async = !sync;
    AT_RECORD(c, r, enc_copy_body, m);
    at_leave(c);
    if (sync) at_flush_all();
}

static cudaError_t copy_1d(memcpy_async_fn real_async, memcpy_fn real_sync, int api, void *ra, void *dst,
                           const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(dst, src, count, kind) : real_async(dst, src, count, kind, s);
    if (!traced) return r;
    enc_copy m = {.dst = (uint64_t)(uintptr_t)dst, .src = (uint64_t)(uintptr_t)src, .bytes = count,
                  .stream = at_stream(s), .dims = 1};
    kinds(&m, kind, dst, src, r);
    record_copy(&c, r, &m, real_sync != NULL);
    return r;
}

#define MEMCPY_HOOK(name)                                                                        \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)) { \
        REAL(name);                                                                              \
        return copy_1d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), dst, src, \
                       count, kind, 0);                                                          \
    }
#define MEMCPY_ASYNC_HOOK(name)                                                                  \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, \
                                      cudaStream_t stream)) {                                    \
        REAL(name);                                                                              \
        return copy_1d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), dst, src, \
                       count, kind, stream);                                                     \
    }
MEMCPY_HOOK(cudaMemcpy)
MEMCPY_HOOK(cudaMemcpy_ptds)
MEMCPY_ASYNC_HOOK(cudaMemcpyAsync)
MEMCPY_ASYNC_HOOK(cudaMemcpyAsync_ptsz)

static cudaError_t copy_2d(memcpy2d_async_fn real_async, memcpy2d_fn real_sync, int api, void *ra, void *dst,
                           size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                           enum cudaMemcpyKind kind, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(dst, dpitch, src, spitch, width, height, kind)
                              : real_async(dst, dpitch, src, spitch, width, height, kind, s);
    if (!traced) return r;
    enc_copy m = {.dst = (uint64_t)(uintptr_t)dst, .src = (uint64_t)(uintptr_t)src, .bytes = width * height,
                  .stream = at_stream(s), .dims = 2, .dpitch = dpitch, .spitch = spitch, .width = width,
                  .height = height};
    kinds(&m, kind, dst, src, r);
    record_copy(&c, r, &m, real_sync != NULL);
    return r;
}

#define MEMCPY2D_HOOK(name)                                                                      \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, size_t dpitch, const void *src, size_t spitch,  \
                                      size_t width, size_t height, enum cudaMemcpyKind kind)) {  \
        REAL(name);                                                                              \
        return copy_2d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), dst, dpitch, \
                       src, spitch, width, height, kind, 0);                                     \
    }
#define MEMCPY2D_ASYNC_HOOK(name)                                                                \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, size_t dpitch, const void *src, size_t spitch,  \
                                      size_t width, size_t height, enum cudaMemcpyKind kind,     \
                                      cudaStream_t stream)) {                                    \
        REAL(name);                                                                              \
        return copy_2d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), dst, dpitch, \
                       src, spitch, width, height, kind, stream);                                \
    }
MEMCPY2D_HOOK(cudaMemcpy2D)
MEMCPY2D_HOOK(cudaMemcpy2D_ptds)
MEMCPY2D_ASYNC_HOOK(cudaMemcpy2DAsync)
MEMCPY2D_ASYNC_HOOK(cudaMemcpy2DAsync_ptsz)

static cudaError_t copy_3d(memcpy3d_async_fn real_async, memcpy3d_fn real_sync, int api, void *ra,
                           const struct cudaMemcpy3DParms *p, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(p) : real_async(p, s);
    if (!traced) return r;
    enc_copy m = {.stream = at_stream(s), .dims = 3};
    if (p != NULL) {
        /* Linear memory only; copies to or from CUDA arrays keep dst/src at 0. */
        m.dst = (uint64_t)(uintptr_t)p->dstPtr.ptr + p->dstPos.x + p->dstPos.y * p->dstPtr.pitch +
                p->dstPos.z * p->dstPtr.pitch * p->dstPtr.ysize;
        m.src = (uint64_t)(uintptr_t)p->srcPtr.ptr + p->srcPos.x + p->srcPos.y * p->srcPtr.pitch +
                p->srcPos.z * p->srcPtr.pitch * p->srcPtr.ysize;
        if (p->dstPtr.ptr == NULL) m.dst = 0;
        if (p->srcPtr.ptr == NULL) m.src = 0;
        m.bytes = p->extent.width * p->extent.height * p->extent.depth;
        m.dpitch = p->dstPtr.pitch;
        m.spitch = p->srcPtr.pitch;
        m.width = p->extent.width;
        m.height = p->extent.height;
        m.depth = p->extent.depth;
        kinds(&m, p->kind, p->dstPtr.ptr, p->srcPtr.ptr, r);
    }
    record_copy(&c, r, &m, real_sync != NULL);
    return r;
}

#define MEMCPY3D_HOOK(name)                                                                      \
    APPTRACE_HOOK(name, cudaError_t, (const struct cudaMemcpy3DParms *p)) {                     \
        REAL(name);                                                                              \
        return copy_3d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), p, 0); \
    }
#define MEMCPY3D_ASYNC_HOOK(name)                                                                \
    APPTRACE_HOOK(name, cudaError_t, (const struct cudaMemcpy3DParms *p, cudaStream_t stream)) { \
        REAL(name);                                                                              \
        return copy_3d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), p, stream); \
    }
MEMCPY3D_HOOK(cudaMemcpy3D)
MEMCPY3D_HOOK(cudaMemcpy3D_ptds)
MEMCPY3D_ASYNC_HOOK(cudaMemcpy3DAsync)
MEMCPY3D_ASYNC_HOOK(cudaMemcpy3DAsync_ptsz)

static void record_peer(at_call *c, cudaError_t r, void *dst, int dst_dev, const void *src, int src_dev,
                        size_t count, cudaStream_t s, bool sync) {
    enc_copy m = {.dst = (uint64_t)(uintptr_t)dst, .src = (uint64_t)(uintptr_t)src, .bytes = count,
                  .kind_resolved = PB_CopyKind_DEVICE_TO_DEVICE, .resolution = PB_KindResolution_PEER_CALL,
                  .stream = at_stream(s), .dst_device = dst_dev, .src_device = src_dev, .dims = 1};
    record_copy(c, r, &m, sync);
}

APPTRACE_HOOK(cudaMemcpyPeer, cudaError_t, (void *dst, int dstDevice, const void *src, int srcDevice, size_t count)) {
    REAL(cudaMemcpyPeer);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMemcpyPeer)) return real_cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
    cudaError_t r = real_cudaMemcpyPeer(dst, dstDevice, src, srcDevice, count);
    record_peer(&c, r, dst, dstDevice, src, srcDevice, count, 0, true);
    return r;
}

APPTRACE_HOOK(cudaMemcpyPeerAsync, cudaError_t, (void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream)) {
    REAL(cudaMemcpyPeerAsync);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMemcpyPeerAsync))
        return real_cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream);
    cudaError_t r = real_cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, stream);
    record_peer(&c, r, dst, dstDevice, src, srcDevice, count, stream, false);
    return r;
}

/* A copy to or from a __device__ or __constant__ variable: a copy to or from the device memory the
 * variable has, named by the symbol. */
static void symbol_copy(at_call *c, cudaError_t r, enc_copy *m, const void *symbol, size_t offset,
                        bool to_symbol, bool sync) {
    const char *name = NULL;
    uint64_t device_address = 0;
    if (r == cudaSuccess) at_symbol_resolve(symbol, &name, &device_address);
    m->symbol = name;
    m->symbol_host_address = (uint64_t)(uintptr_t)symbol;
    m->symbol_offset = offset;
    if (device_address != 0) {
        if (to_symbol) m->dst = device_address + offset;
        else m->src = device_address + offset;
    }
    m->dims = 1;
    record_copy(c, r, m, sync);
}

static cudaError_t to_symbol(to_symbol_async_fn real_async, to_symbol_fn real_sync, int api, void *ra,
                             const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(symbol, src, count, offset, kind)
                              : real_async(symbol, src, count, offset, kind, s);
    if (!traced) return r;
    enc_copy m = {.src = (uint64_t)(uintptr_t)src, .bytes = count, .stream = at_stream(s)};
    /* The destination is device memory by definition: resolve the kind with the source alone. */
    kinds(&m, kind == cudaMemcpyDefault ? cudaMemcpyHostToDevice : kind, NULL, src, r);
    if (kind == cudaMemcpyDefault) {
        int st, sd;
        m.kind_called = (int)cudaMemcpyDefault + 1;
        if (r == cudaSuccess && at_pointer_type(src, &st, &sd)) {
            m.resolution = PB_KindResolution_POINTER_ATTRIBUTES;
            m.src_memory_type = st;
            m.src_device = sd;
            m.kind_resolved = on_device(st) ? PB_CopyKind_DEVICE_TO_DEVICE : PB_CopyKind_HOST_TO_DEVICE;
        }
    }
    m.dst_device = at_tls.device;
    /* The bytes copied from host memory (the runtime has just read them): pointers among them
     * are how a kernel with no pointer parameter reaches memory. Recorded, not interpreted. */
    if (r == cudaSuccess && src != NULL && m.kind_resolved == PB_CopyKind_HOST_TO_DEVICE) {
        m.symbol_data = src;
        m.symbol_data_len = count < SYMBOL_DATA_MAX ? (uint32_t)count : SYMBOL_DATA_MAX;
    }
    symbol_copy(&c, r, &m, symbol, offset, true, real_sync != NULL);
    return r;
}

static cudaError_t from_symbol(from_symbol_async_fn real_async, from_symbol_fn real_sync, int api, void *ra,
                               void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(dst, symbol, count, offset, kind)
                              : real_async(dst, symbol, count, offset, kind, s);
    if (!traced) return r;
    enc_copy m = {.dst = (uint64_t)(uintptr_t)dst, .bytes = count, .stream = at_stream(s)};
    kinds(&m, kind == cudaMemcpyDefault ? cudaMemcpyDeviceToHost : kind, dst, NULL, r);
    if (kind == cudaMemcpyDefault) {
        int dt, dd;
        m.kind_called = (int)cudaMemcpyDefault + 1;
        if (r == cudaSuccess && at_pointer_type(dst, &dt, &dd)) {
            m.resolution = PB_KindResolution_POINTER_ATTRIBUTES;
            m.dst_memory_type = dt;
            m.dst_device = dd;
            m.kind_resolved = on_device(dt) ? PB_CopyKind_DEVICE_TO_DEVICE : PB_CopyKind_DEVICE_TO_HOST;
        }
    }
    m.src_device = at_tls.device;
    symbol_copy(&c, r, &m, symbol, offset, false, real_sync != NULL);
    return r;
}

#define TO_SYMBOL_HOOK(name)                                                                     \
    APPTRACE_HOOK(name, cudaError_t, (const void *symbol, const void *src, size_t count, size_t offset, \
                                      enum cudaMemcpyKind kind)) {                               \
        REAL(name);                                                                              \
        return to_symbol(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), symbol, \
                         src, count, offset, kind, 0);                                           \
    }
#define TO_SYMBOL_ASYNC_HOOK(name)                                                               \
    APPTRACE_HOOK(name, cudaError_t, (const void *symbol, const void *src, size_t count, size_t offset, \
                                      enum cudaMemcpyKind kind, cudaStream_t stream)) {          \
        REAL(name);                                                                              \
        return to_symbol(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), symbol, \
                         src, count, offset, kind, stream);                                      \
    }
#define FROM_SYMBOL_HOOK(name)                                                                   \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, const void *symbol, size_t count, size_t offset, \
                                      enum cudaMemcpyKind kind)) {                               \
        REAL(name);                                                                              \
        return from_symbol(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), dst, \
                           symbol, count, offset, kind, 0);                                      \
    }
#define FROM_SYMBOL_ASYNC_HOOK(name)                                                             \
    APPTRACE_HOOK(name, cudaError_t, (void *dst, const void *symbol, size_t count, size_t offset, \
                                      enum cudaMemcpyKind kind, cudaStream_t stream)) {          \
        REAL(name);                                                                              \
        return from_symbol(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), dst, \
                           symbol, count, offset, kind, stream);                                 \
    }
TO_SYMBOL_HOOK(cudaMemcpyToSymbol)
TO_SYMBOL_HOOK(cudaMemcpyToSymbol_ptds)
TO_SYMBOL_ASYNC_HOOK(cudaMemcpyToSymbolAsync)
TO_SYMBOL_ASYNC_HOOK(cudaMemcpyToSymbolAsync_ptsz)
FROM_SYMBOL_HOOK(cudaMemcpyFromSymbol)
FROM_SYMBOL_HOOK(cudaMemcpyFromSymbol_ptds)
FROM_SYMBOL_ASYNC_HOOK(cudaMemcpyFromSymbolAsync)
FROM_SYMBOL_ASYNC_HOOK(cudaMemcpyFromSymbolAsync_ptsz)

/* ---- memset ---- */

static void record_memset(at_call *c, cudaError_t r, enc_memset *m, cudaStream_t s, bool sync) {
    m->stream = at_stream(s);
    m->async = !sync;
    m->device = at_tls.device;
    if (!sync) m->capture_id = at_capture_id(m->stream, r);
    AT_RECORD(c, r, enc_memset_body, m);
    at_leave(c);
}

static cudaError_t set_1d(memset_async_fn real_async, memset_fn real_sync, int api, void *ra, void *p,
                          int value, size_t count, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(p, value, count) : real_async(p, value, count, s);
    if (!traced) return r;
    enc_memset m = {.ptr = (uint64_t)(uintptr_t)p, .value = value, .bytes = count, .dims = 1};
    record_memset(&c, r, &m, s, real_sync != NULL);
    return r;
}

static cudaError_t set_2d(memset2d_async_fn real_async, memset2d_fn real_sync, int api, void *ra, void *p,
                          size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(p, pitch, value, width, height)
                              : real_async(p, pitch, value, width, height, s);
    if (!traced) return r;
    enc_memset m = {.ptr = (uint64_t)(uintptr_t)p, .value = value, .bytes = width * height, .dims = 2,
                    .pitch = pitch, .width = width, .height = height};
    record_memset(&c, r, &m, s, real_sync != NULL);
    return r;
}

static cudaError_t set_3d(memset3d_async_fn real_async, memset3d_fn real_sync, int api, void *ra,
                          struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t s) {
    at_call c;
    bool traced = at_enter_(&c, api, ra);
    cudaError_t r = real_sync ? real_sync(p, value, e) : real_async(p, value, e, s);
    if (!traced) return r;
    enc_memset m = {.ptr = (uint64_t)(uintptr_t)p.ptr, .value = value, .bytes = e.width * e.height * e.depth,
                    .dims = 3, .pitch = p.pitch, .width = e.width, .height = e.height, .depth = e.depth};
    record_memset(&c, r, &m, s, real_sync != NULL);
    return r;
}

#define MEMSET_HOOK(name)                                                                        \
    APPTRACE_HOOK(name, cudaError_t, (void *devPtr, int value, size_t count)) {                 \
        REAL(name);                                                                              \
        return set_1d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), devPtr, \
                      value, count, 0);                                                          \
    }
#define MEMSET_ASYNC_HOOK(name)                                                                  \
    APPTRACE_HOOK(name, cudaError_t, (void *devPtr, int value, size_t count, cudaStream_t stream)) { \
        REAL(name);                                                                              \
        return set_1d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), devPtr, \
                      value, count, stream);                                                     \
    }
#define MEMSET2D_HOOK(name)                                                                      \
    APPTRACE_HOOK(name, cudaError_t, (void *devPtr, size_t pitch, int value, size_t width, size_t height)) { \
        REAL(name);                                                                              \
        return set_2d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), devPtr, \
                      pitch, value, width, height, 0);                                           \
    }
#define MEMSET2D_ASYNC_HOOK(name)                                                                \
    APPTRACE_HOOK(name, cudaError_t, (void *devPtr, size_t pitch, int value, size_t width, size_t height, \
                                      cudaStream_t stream)) {                                    \
        REAL(name);                                                                              \
        return set_2d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), devPtr, \
                      pitch, value, width, height, stream);                                      \
    }
#define MEMSET3D_HOOK(name)                                                                      \
    APPTRACE_HOOK(name, cudaError_t, (struct cudaPitchedPtr p, int value, struct cudaExtent extent)) { \
        REAL(name);                                                                              \
        return set_3d(NULL, real_##name, APPTRACE_API_##name, __builtin_return_address(0), p, value, \
                      extent, 0);                                                                \
    }
#define MEMSET3D_ASYNC_HOOK(name)                                                                \
    APPTRACE_HOOK(name, cudaError_t, (struct cudaPitchedPtr p, int value, struct cudaExtent extent, \
                                      cudaStream_t stream)) {                                    \
        REAL(name);                                                                              \
        return set_3d(real_##name, NULL, APPTRACE_API_##name, __builtin_return_address(0), p, value, \
                      extent, stream);                                                           \
    }
MEMSET_HOOK(cudaMemset)
MEMSET_HOOK(cudaMemset_ptds)
MEMSET_ASYNC_HOOK(cudaMemsetAsync)
MEMSET_ASYNC_HOOK(cudaMemsetAsync_ptsz)
MEMSET2D_HOOK(cudaMemset2D)
MEMSET2D_HOOK(cudaMemset2D_ptds)
MEMSET2D_ASYNC_HOOK(cudaMemset2DAsync)
MEMSET2D_ASYNC_HOOK(cudaMemset2DAsync_ptsz)
MEMSET3D_HOOK(cudaMemset3D)
MEMSET3D_HOOK(cudaMemset3D_ptds)
MEMSET3D_ASYNC_HOOK(cudaMemset3DAsync)
MEMSET3D_ASYNC_HOOK(cudaMemset3DAsync_ptsz)
