/* Memsets, prefetches and memory advice.
 *
 * A memset writes real bytes and lasts bytes / device memory bandwidth on the compute engine. As
 * on CUDA, the synchronous forms return before the memset has run for device memory, and only
 * wait when the target is pinned host or managed memory. Managed memory is always accessible on
 * both sides here; a prefetch only moves the allocation's modeled residence and takes the time of
 * a pinned transfer of the bytes when the residence changes. On a capturing stream an
 * asynchronous memset becomes a memset node (capture.c); a prefetch cannot be captured. */
#include "sim.h"

#include <string.h>

cudaError_t sim_memset_plan(const sim_xfer *x, int stream_device, bool graph_mem, sim_op *op,
                            bool *host_visible) {
    sim_ptrinfo pi;
    size_t extent = sim_extent(x->width, x->height, x->depth, x->dpitch, x->dslice);
    memset(op, 0, sizeof *op);
    op->kind = SIM_OP_MEMSET;
    op->engine = op->peer_device = op->peer_engine = -1;
    if (host_visible)
        *host_visible = false;
    if (extent == SIZE_MAX)
        return cudaErrorInvalidValue;
    if (extent == 0)
        return cudaSuccess;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup_ex(x->dst, &pi, graph_mem);
    pthread_mutex_unlock(&sim_mem_lock);
    uintptr_t off = (uintptr_t)x->dst - pi.base;
    bool inside = off <= pi.size && extent <= pi.size - off;
    if (!(sim_is_device_side(pi.type) || pi.type == SIM_MEM_HOST) ||
        (sim_is_device_side(pi.type) && !inside))
        return cudaErrorInvalidValue;
    int device = sim_is_device_side(pi.type) ? pi.device : stream_device;
    op->x = *x;
    op->engine_device = device;
    op->engine = SIM_ENGINE_COMPUTE;
    op->duration_ns = sim_memset_duration(device, x->width * x->height * x->depth);
    if (host_visible)
        *host_visible = pi.type == SIM_MEM_HOST || pi.type == SIM_MEM_MANAGED;
    return cudaSuccess;
}

/* On a capturing stream an asynchronous memset becomes a memset node; a synchronous one is
 * refused. */
static cudaError_t memset_x(sim_xfer x, cudaStream_t stream, bool ptds, bool sync) {
    sim_stream *s;
    sim_op op;
    bool host_visible = false; /* the synchronous forms wait for pinned and managed targets */
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess && sync && (e = sim_capture_unsafe_locked()) == cudaSuccess)
        e = sim_capture_forbid(s);
    if (e == cudaSuccess)
        e = sim_memset_plan(&x, s->device, s->cap != NULL, &op, &host_visible);
    bool captured = false;
    if (e == cudaSuccess && !sync && sim_captures_active() &&
        op.x.width * op.x.height * op.x.depth > 0) {
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeMemset;
        d.x = x;
        e = sim_capture_op(s, &d, &captured);
    }
    if (e == cudaSuccess && !captured && op.x.width * op.x.height * op.x.depth > 0) {
        if (sync && host_visible) {
            uint64_t end = 0;
            e = sim_submit_wait(s, &op, &end);
            if (e == cudaSuccess)
                sim_wait_host_until(end);
        } else {
            e = sim_submit(s, &op);
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

static sim_xfer block(void *dst, size_t pitch, int value, size_t width, size_t height,
                      size_t depth, size_t slice) {
    sim_xfer x = {dst, NULL, pitch, 0, slice, 0, width, height, depth, value, 0};
    return x;
}

static sim_xfer line(void *devPtr, int value, size_t count) {
    return block(devPtr, count, value, count, 1, 1, count);
}

SIM_API cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    SIM_ENTER();
    return sim_result(memset_x(line(devPtr, value, count), NULL, false, true));
}

SIM_API cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
    SIM_ENTER();
    return sim_result(memset_x(line(devPtr, value, count), NULL, true, true));
}

SIM_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_x(line(devPtr, value, count), stream, false, false));
}

SIM_API cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count,
                                         cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_x(line(devPtr, value, count), stream, true, false));
}

static cudaError_t memset_2d(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                             cudaStream_t stream, bool ptds, bool sync) {
    if (width > pitch)
        return cudaErrorInvalidPitchValue;
    return memset_x(block(devPtr, pitch, value, width, height, 1, 0), stream, ptds, sync);
}

SIM_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                 size_t height) {
    SIM_ENTER();
    return sim_result(memset_2d(devPtr, pitch, value, width, height, NULL, false, true));
}

SIM_API cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width,
                                      size_t height) {
    SIM_ENTER();
    return sim_result(memset_2d(devPtr, pitch, value, width, height, NULL, true, true));
}

SIM_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                      size_t height, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_2d(devPtr, pitch, value, width, height, stream, false, false));
}

SIM_API cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_2d(devPtr, pitch, value, width, height, stream, true, false));
}

static cudaError_t memset_3d(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                             cudaStream_t stream, bool ptds, bool sync) {
    if (e.width > p.pitch)
        return cudaErrorInvalidPitchValue;
    size_t slice;
    if (__builtin_mul_overflow(p.pitch, p.ysize ? p.ysize : e.height, &slice))
        return cudaErrorInvalidValue;
    return memset_x(block(p.ptr, p.pitch, value, e.width, e.height, e.depth, slice), stream, ptds,
                    sync);
}

SIM_API cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                 struct cudaExtent extent) {
    SIM_ENTER();
    return sim_result(memset_3d(pitchedDevPtr, value, extent, NULL, false, true));
}

SIM_API cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value,
                                      struct cudaExtent extent) {
    SIM_ENTER();
    return sim_result(memset_3d(pitchedDevPtr, value, extent, NULL, true, true));
}

SIM_API cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                      struct cudaExtent extent, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_3d(pitchedDevPtr, value, extent, stream, false, false));
}

SIM_API cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(memset_3d(pitchedDevPtr, value, extent, stream, true, false));
}

/* ---- managed memory ------------------------------------------------------------------------ */

/* A location as a device ordinal, or -1 for the host. */
static cudaError_t location_of(struct cudaMemLocation loc, int *where) {
    switch (loc.type) {
    case cudaMemLocationTypeDevice:
        *where = loc.id;
        return sim_check_device(loc.id);
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
        *where = -1;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t check_managed(const void *devPtr, size_t count, sim_ptrinfo *pi) {
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(devPtr, pi);
    pthread_mutex_unlock(&sim_mem_lock);
    uintptr_t off = (uintptr_t)devPtr - pi->base;
    if (pi->type != SIM_MEM_MANAGED || count == 0 || off > pi->size || count > pi->size - off)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t prefetch(const void *devPtr, size_t count, struct cudaMemLocation location,
                            unsigned flags, cudaStream_t stream, bool ptds) {
    int to;
    sim_ptrinfo pi;
    if (flags != 0)
        return cudaErrorInvalidValue;
    cudaError_t e = location_of(location, &to);
    if (e == cudaSuccess)
        e = check_managed(devPtr, count, &pi);
    if (e != cudaSuccess)
        return e;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess)
        e = sim_capture_forbid(s); /* not capturable */
    if (e == cudaSuccess) {
        pthread_mutex_lock(&sim_mem_lock);
        int from = sim_mem_resident((void *)pi.base);
        pthread_mutex_unlock(&sim_mem_lock);
        sim_op op = {0};
        op.kind = SIM_OP_PREFETCH;
        op.x.dst = (uint8_t *)pi.base;
        op.prefetch_location = to;
        op.peer_device = -1;
        op.engine = -1;
        if (from != to) {
            int dev = to >= 0 ? to : from;
            enum sim_xfer_kind k = from < 0 ? SIM_H2D_PINNED : to < 0 ? SIM_D2H_PINNED : SIM_PEER;
            op.engine_device = dev;
            op.engine = sim_copy_engine(dev, k, to < 0);
            op.duration_ns = sim_xfer_duration(dev, k, count);
        }
        e = sim_submit(s, &op);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                         struct cudaMemLocation location, unsigned int flags,
                                         cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(prefetch(devPtr, count, location, flags, stream, false));
}

SIM_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
                                              struct cudaMemLocation location, unsigned int flags,
                                              cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(prefetch(devPtr, count, location, flags, stream, true));
}

SIM_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                  struct cudaMemLocation location) {
    SIM_ENTER();
    sim_ptrinfo pi;
    int where;
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return sim_result(cudaErrorInvalidValue);
    cudaError_t e = check_managed(devPtr, count, &pi);
    bool needs_location = advice == cudaMemAdviseSetPreferredLocation ||
                          advice == cudaMemAdviseSetAccessedBy ||
                          advice == cudaMemAdviseUnsetAccessedBy;
    if (e == cudaSuccess && needs_location)
        e = location_of(location, &where);
    return sim_result(e);
}
