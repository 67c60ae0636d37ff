/* Copies: cudaMemcpy in all its shapes (1D, 2D, 3D, peer), validated as CUDA validates them and
 * performed for real.
 *
 * Every device-side address must lie inside a live allocation, and the whole range must too, else
 * cudaErrorInvalidValue; the copy kind must agree with the pointers (cudaMemcpyDefault takes it
 * from them). cudaMemcpy returns once the copy is done, except device-to-device copies, which it
 * only queues, as CUDA does. An asynchronous copy from pageable host memory onto a stream with
 * work still pending snapshots the source first (CUDA stages it), and one into pageable host
 * memory waits for the copy (CUDA cannot do it asynchronously either). On a capturing stream an
 * asynchronous copy becomes a memcpy node (capture.c); graph launches plan theirs here too. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

/* Looks up one side of a copy (sim_mem_lock held) and checks its range; with `graph_mem`, the
 * allocations of graph alloc nodes count as allocated. */
static cudaError_t check_side(const void *p, size_t extent, sim_ptrinfo *pi, bool graph_mem) {
    sim_mem_lookup_ex(p, pi, graph_mem);
    if (p == NULL || extent == SIZE_MAX)
        return cudaErrorInvalidValue;
    if (pi->in_device_range && pi->type == SIM_MEM_UNREGISTERED)
        return cudaErrorInvalidValue; /* device memory that is not (or no longer) allocated */
    if (sim_is_device_side(pi->type) && ((uintptr_t)p - pi->base > pi->size ||
                                         extent > pi->size - ((uintptr_t)p - pi->base)))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static bool device_only(const sim_ptrinfo *pi) {
    return pi->type == SIM_MEM_DEVICE || pi->type == SIM_MEM_MODULE;
}

static cudaError_t check_kind(enum cudaMemcpyKind kind, const sim_ptrinfo *dst,
                              const sim_ptrinfo *src) {
    bool dd = sim_is_device_side(dst->type), sd = sim_is_device_side(src->type);
    bool ok;
    switch (kind) {
    case cudaMemcpyHostToHost:
        ok = !device_only(dst) && !device_only(src);
        break;
    case cudaMemcpyHostToDevice:
        ok = dd && !device_only(src);
        break;
    case cudaMemcpyDeviceToHost:
        ok = sd && !device_only(dst);
        break;
    case cudaMemcpyDeviceToDevice:
        ok = dd && sd;
        break;
    case cudaMemcpyDefault:
        ok = true;
        break;
    default:
        return cudaErrorInvalidMemcpyDirection;
    }
    return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/* Sets engines and duration of a copy op from what its two sides are. */
static void plan_copy(sim_op *op, const sim_ptrinfo *dst, const sim_ptrinfo *src, size_t bytes,
                      int stream_device) {
    bool dd = sim_is_device_side(dst->type), sd = sim_is_device_side(src->type);
    enum sim_xfer_kind k;
    int d = stream_device, peer = -1;
    if (dd && sd) {
        k = dst->device == src->device ? SIM_D2D : SIM_PEER;
        d = src->device;
        if (k == SIM_PEER)
            peer = dst->device;
    } else if (dd) {
        k = src->type == SIM_MEM_HOST ? SIM_H2D_PINNED : SIM_H2D_PAGEABLE;
        d = dst->device;
    } else if (sd) {
        k = dst->type == SIM_MEM_HOST ? SIM_D2H_PINNED : SIM_D2H_PAGEABLE;
        d = src->device;
    } else {
        k = SIM_H2H;
    }
    op->kind = SIM_OP_COPY;
    op->engine_device = d;
    op->engine = sim_copy_engine(d, k, true);
    op->peer_device = peer;
    op->peer_engine = peer >= 0 ? sim_copy_engine(peer, k, false) : -1;
    if (k == SIM_PEER && !sim_peer_enabled(d, peer)) /* staged through the host */
        op->duration_ns = sim_xfer_duration(d, SIM_D2H_PINNED, bytes) +
                          sim_xfer_duration(peer, SIM_H2D_PINNED, bytes);
    else
        op->duration_ns = sim_xfer_duration(d, k, bytes);
}

/* Packs a pageable source into a buffer the queued copy owns. */
static cudaError_t stage(sim_op *op) {
    sim_xfer *x = &op->x;
    size_t row = x->width, bytes = x->width * x->height * x->depth;
    uint64_t t0 = sim_overhead_start();
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (buf == NULL)
        return cudaErrorMemoryAllocation;
    for (size_t z = 0; z < x->depth; z++)
        for (size_t y = 0; y < x->height; y++)
            memcpy(buf + (z * x->height + y) * row, x->src + z * x->sslice + y * x->spitch, row);
    x->src = buf;
    x->spitch = row;
    x->sslice = row * x->height;
    op->staging = buf;
    sim_overhead_stop(t0);
    return cudaSuccess;
}

static cudaError_t check_copy(const sim_xfer *x, enum cudaMemcpyKind kind, bool graph_mem,
                              sim_ptrinfo *dst, sim_ptrinfo *src) {
    size_t dext = sim_extent(x->width, x->height, x->depth, x->dpitch, x->dslice);
    size_t sext = sim_extent(x->width, x->height, x->depth, x->spitch, x->sslice);
    pthread_mutex_lock(&sim_mem_lock);
    cudaError_t e = check_side(x->dst, dext, dst, graph_mem);
    if (e == cudaSuccess)
        e = check_side(x->src, sext, src, graph_mem);
    if (e == cudaSuccess)
        e = check_kind(kind, dst, src);
    pthread_mutex_unlock(&sim_mem_lock);
    return e;
}

cudaError_t sim_copy_plan(const sim_xfer *x, enum cudaMemcpyKind kind, int stream_device,
                          bool graph_mem, sim_op *op) {
    sim_ptrinfo dst, src;
    memset(op, 0, sizeof *op);
    op->kind = SIM_OP_COPY;
    op->engine = op->peer_device = op->peer_engine = -1;
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (x->width == 0 || x->height == 0 || x->depth == 0)
        return cudaSuccess;
    cudaError_t e = check_copy(x, kind, graph_mem, &dst, &src);
    if (e == cudaSuccess) {
        op->x = *x;
        plan_copy(op, &dst, &src, x->width * x->height * x->depth, stream_device);
    }
    return e;
}

/* Validates a copy against the pointers it names and runs it on s (sim_sched_lock held). On a
 * capturing stream an asynchronous copy becomes a memcpy node; a synchronous one is refused. */
static cudaError_t copy_on_stream(sim_xfer x, enum cudaMemcpyKind kind, sim_stream *s, bool sync) {
    sim_ptrinfo dst, src;
    cudaError_t e;
    if (sync && ((e = sim_capture_unsafe_locked()) != cudaSuccess ||
                 (e = sim_capture_forbid(s)) != cudaSuccess))
        return e;
    if ((unsigned)kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (x.width == 0 || x.height == 0 || x.depth == 0)
        return cudaSuccess;
    /* in a capture, graph allocations count: the graph's own alloc nodes map them */
    if ((e = check_copy(&x, kind, s->cap != NULL, &dst, &src)) != cudaSuccess)
        return e;
    if (!sync && sim_captures_active()) {
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeMemcpy;
        d.x = x;
        d.kind = kind;
        bool captured = false;
        e = sim_capture_op(s, &d, &captured);
        if (captured)
            return e;
    }
    sim_op op = {0};
    op.x = x;
    plan_copy(&op, &dst, &src, x.width * x.height * x.depth, s->device);
    bool to_pageable = dst.type == SIM_MEM_UNREGISTERED;
    bool device_to_device = sim_is_device_side(dst.type) && sim_is_device_side(src.type);
    if (src.type == SIM_MEM_UNREGISTERED && sim_stream_busy(s) && (e = stage(&op)) != cudaSuccess)
        return e;
    if ((sync && !device_to_device) || (to_pageable && sim_stream_busy(s))) {
        uint64_t end = 0;
        e = sim_submit_wait(s, &op, &end);
        if (e == cudaSuccess)
            sim_wait_host_until(end);
        return e;
    }
    e = sim_submit(s, &op);
    if (e != cudaSuccess)
        free(op.staging);
    return e;
}

cudaError_t sim_copy(sim_xfer x, enum cudaMemcpyKind kind, cudaStream_t stream, bool per_thread,
                     bool sync) {
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, per_thread, &s);
    if (e == cudaSuccess)
        e = copy_on_stream(x, kind, s, sync);
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

static sim_xfer linear(void *dst, const void *src, size_t count) {
    sim_xfer x = {dst, src, count, count, count, count, count, 1, 1, 0, 0};
    return x;
}

/* ---- 1D ------------------------------------------------------------------------------------ */

SIM_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(sim_copy(linear(dst, src, count), kind, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(sim_copy(linear(dst, src, count), kind, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(sim_copy(linear(dst, src, count), kind, stream, false, false));
}

SIM_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(sim_copy(linear(dst, src, count), kind, stream, true, false));
}

/* ---- 2D ------------------------------------------------------------------------------------ */

static cudaError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t height, enum cudaMemcpyKind kind, cudaStream_t stream, bool ptds,
                           bool sync) {
    size_t max_pitch = sim_cfg.dev[sim_current_device].prop.memPitch;
    if (width > dpitch || width > spitch || dpitch > max_pitch || spitch > max_pitch)
        return cudaErrorInvalidPitchValue;
    sim_xfer x = {dst, src, dpitch, spitch, 0, 0, width, height, 1, 0, 0}; /* one slice */
    return sim_copy(x, kind, stream, ptds, sync);
}

SIM_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, false, false));
}

SIM_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src,
                                           size_t spitch, size_t width, size_t height,
                                           enum cudaMemcpyKind kind, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, false));
}

/* ---- 3D (linear memory; CUDA arrays do not exist here) ------------------------------------- */

static cudaError_t xfer_3d(const struct cudaPitchedPtr *dp, const struct cudaPos *dpos,
                           const struct cudaPitchedPtr *sp, const struct cudaPos *spos,
                           struct cudaExtent ext, sim_xfer *x) {
    if (dp->ptr == NULL || sp->ptr == NULL)
        return cudaErrorInvalidValue;
    if (ext.width + dpos->x > dp->pitch || ext.width + spos->x > sp->pitch)
        return cudaErrorInvalidPitchValue;
    size_t dslice, sslice;
    if (__builtin_mul_overflow(dp->pitch, dp->ysize ? dp->ysize : ext.height, &dslice) ||
        __builtin_mul_overflow(sp->pitch, sp->ysize ? sp->ysize : ext.height, &sslice))
        return cudaErrorInvalidValue;
    x->dst = (uint8_t *)dp->ptr + dpos->z * dslice + dpos->y * dp->pitch + dpos->x;
    x->src = (const uint8_t *)sp->ptr + spos->z * sslice + spos->y * sp->pitch + spos->x;
    x->dpitch = dp->pitch, x->spitch = sp->pitch, x->dslice = dslice, x->sslice = sslice;
    x->width = ext.width, x->height = ext.height, x->depth = ext.depth;
    x->value = 0;
    x->elem = 0;
    return cudaSuccess;
}

cudaError_t sim_xfer_3d(const struct cudaMemcpy3DParms *p, sim_xfer *x) {
    if (p->srcArray != NULL || p->dstArray != NULL)
        return cudaErrorNotSupported;
    return xfer_3d(&p->dstPtr, &p->dstPos, &p->srcPtr, &p->srcPos, p->extent, x);
}

static cudaError_t copy_3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, bool ptds,
                           bool sync) {
    if (p == NULL)
        return cudaErrorInvalidValue;
    sim_xfer x;
    cudaError_t e = sim_xfer_3d(p, &x);
    return e == cudaSuccess ? sim_copy(x, p->kind, stream, ptds, sync) : e;
}

SIM_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    SIM_ENTER();
    return sim_result(copy_3d(p, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) {
    SIM_ENTER();
    return sim_result(copy_3d(p, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_3d(p, stream, false, false));
}

SIM_API cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_3d(p, stream, true, false));
}

/* ---- peer ---------------------------------------------------------------------------------- */

/* Both pointers must be device memory of the devices named. */
static cudaError_t check_peer(const void *dst, int dstDevice, const void *src, int srcDevice) {
    if (sim_check_device(dstDevice) != cudaSuccess || sim_check_device(srcDevice) != cudaSuccess)
        return cudaErrorInvalidDevice;
    sim_ptrinfo d, s;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(dst, &d);
    sim_mem_lookup(src, &s);
    pthread_mutex_unlock(&sim_mem_lock);
    if (!sim_is_device_side(d.type) || !sim_is_device_side(s.type) || d.device != dstDevice ||
        s.device != srcDevice)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice,
                             size_t count, cudaStream_t stream, bool sync) {
    cudaError_t e = check_peer(dst, dstDevice, src, srcDevice);
    return e == cudaSuccess ? sim_copy(linear(dst, src, count), cudaMemcpyDeviceToDevice, stream,
                                       false, sync)
                            : e;
}

SIM_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                   size_t count) {
    SIM_ENTER();
    return sim_result(copy_peer(dst, dstDevice, src, srcDevice, count, NULL, true));
}

SIM_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                        size_t count, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_peer(dst, dstDevice, src, srcDevice, count, stream, false));
}

static cudaError_t copy_3d_peer(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream,
                                bool ptds, bool sync) {
    if (p == NULL)
        return cudaErrorInvalidValue;
    if (p->srcArray != NULL || p->dstArray != NULL)
        return cudaErrorNotSupported;
    cudaError_t e = check_peer(p->dstPtr.ptr, p->dstDevice, p->srcPtr.ptr, p->srcDevice);
    sim_xfer x;
    if (e == cudaSuccess)
        e = xfer_3d(&p->dstPtr, &p->dstPos, &p->srcPtr, &p->srcPos, p->extent, &x);
    return e == cudaSuccess ? sim_copy(x, cudaMemcpyDeviceToDevice, stream, ptds, sync) : e;
}

SIM_API cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) {
    SIM_ENTER();
    return sim_result(copy_3d_peer(p, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p) {
    SIM_ENTER();
    return sim_result(copy_3d_peer(p, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p,
                                          cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_3d_peer(p, stream, false, false));
}

SIM_API cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
                                               cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(copy_3d_peer(p, stream, true, false));
}
