/* Streams: handles, the legacy default stream, per-thread default streams, and the stream API.
 *
 * Handles of created streams are pointers to sim_stream, validated through a table before use,
 * so a destroyed or made-up handle yields cudaErrorInvalidResourceHandle instead of a crash.
 * cudaStreamLegacy (and 0 in the ordinary entry points) is the current device's legacy stream;
 * cudaStreamPerThread (and 0 in the _ptsz/_ptds entry points) the calling thread's own default
 * stream on the current device, which is blocking like every stream not created with
 * cudaStreamNonBlocking. Internal streams, without handles, run the nodes of graph launches
 * (exec.c); stream capture is capture.c's. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define PRIORITY_LEAST 0
#define PRIORITY_GREATEST (-5)

static sim_ptrmap streams; /* user handle -> sim_stream */
static sim_stream *legacy[SIM_MAX_DEVICES];
static unsigned long long next_stream_id = SIM_MAX_DEVICES + 1;
static __thread sim_stream *per_thread[SIM_MAX_DEVICES];
static pthread_key_t per_thread_key;
static pthread_once_t per_thread_once = PTHREAD_ONCE_INIT;

static sim_stream *new_stream(sim_stream_kind kind, int device, unsigned flags, int priority) {
    sim_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->kind = kind;
    s->device = device;
    s->flags = flags;
    s->priority = priority;
    s->blocking = !(flags & cudaStreamNonBlocking);
    s->id = kind == SIM_STREAM_LEGACY ? (unsigned long long)device + 1 : next_stream_id++;
    sim_sched_link_stream(s);
    return s;
}

/* Graph launches run their nodes on these: no handle, no id of their own, no implicit
 * synchronization with the legacy stream (the launch stream carries that). */
sim_stream *sim_internal_stream(int device) {
    sim_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->kind = SIM_STREAM_USER;
    s->device = device;
    s->flags = cudaStreamNonBlocking;
    s->internal = true;
    sim_sched_link_stream(s);
    return s;
}

sim_stream *sim_legacy_stream(int device) {
    if (legacy[device] == NULL)
        legacy[device] = new_stream(SIM_STREAM_LEGACY, device, 0, 0);
    return legacy[device];
}

/* A thread's default streams go away with the thread (once their work has drained). */
static void per_thread_exit(void *unused) {
    (void)unused;
    pthread_mutex_lock(&sim_sched_lock);
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        if (per_thread[d]) {
            sim_capture_stream_gone(per_thread[d]);
            sim_sched_release_stream(per_thread[d]);
            per_thread[d] = NULL;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
}

static void make_per_thread_key(void) {
    pthread_key_create(&per_thread_key, per_thread_exit);
}

static sim_stream *per_thread_stream(int device) {
    if (per_thread[device] == NULL) {
        pthread_once(&per_thread_once, make_per_thread_key);
        per_thread[device] = new_stream(SIM_STREAM_PER_THREAD, device, 0, 0);
        pthread_setspecific(per_thread_key, (void *)1);
    }
    return per_thread[device];
}

cudaError_t sim_stream_resolve(cudaStream_t h, bool ptds, sim_stream **out) {
    if (h == NULL)
        h = ptds ? cudaStreamPerThread : cudaStreamLegacy;
    if (h == cudaStreamLegacy)
        *out = sim_legacy_stream(sim_current_device);
    else if (h == cudaStreamPerThread)
        *out = per_thread_stream(sim_current_device);
    else
        return (*out = sim_ptrmap_get(&streams, h)) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    return *out ? cudaSuccess : cudaErrorMemoryAllocation;
}

void sim_streams_reset_device(int device) {
    sim_stream *s = sim_device_streams(device), *next;
    for (; s; s = next) {
        next = s->dev_next;
        if (s->kind == SIM_STREAM_USER && !s->destroyed && !s->internal) {
            sim_ptrmap_remove(&streams, s);
            sim_capture_stream_gone(s);
            sim_sched_release_stream(s);
        }
    }
}

/* ---- creation and destruction -------------------------------------------------------------- */

static cudaError_t create(cudaStream_t *pStream, unsigned flags, int priority) {
    if (pStream == NULL || (flags & ~(unsigned)cudaStreamNonBlocking) != 0)
        return cudaErrorInvalidValue;
    if (priority > PRIORITY_LEAST)
        priority = PRIORITY_LEAST;
    if (priority < PRIORITY_GREATEST)
        priority = PRIORITY_GREATEST;
    pthread_mutex_lock(&sim_sched_lock);
    sim_stream *s = new_stream(SIM_STREAM_USER, sim_current_device, flags, priority);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (s != NULL && sim_ptrmap_put(&streams, s, s) == 0) {
        *pStream = (cudaStream_t)s;
        e = cudaSuccess;
    } else if (s != NULL) {
        sim_sched_release_stream(s);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    SIM_ENTER();
    return sim_result(create(pStream, cudaStreamDefault, 0));
}

SIM_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    SIM_ENTER();
    return sim_result(create(pStream, flags, 0));
}

SIM_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                 int priority) {
    SIM_ENTER();
    return sim_result(create(pStream, flags, priority));
}

/* Returns at once; work already queued still runs, then the stream is freed. */
SIM_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_stream *s = sim_ptrmap_remove(&streams, stream);
    if (s) {
        sim_capture_stream_gone(s);
        sim_sched_release_stream(s);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return s ? cudaSuccess : sim_result(cudaErrorInvalidResourceHandle);
}

/* ---- synchronization ----------------------------------------------------------------------- */

static cudaError_t stream_sync(cudaStream_t stream, bool ptds) {
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    uint64_t end = 0;
    if (e == cudaSuccess)
        e = sim_capture_forbid(s);
    if (e == cudaSuccess)
        e = sim_wait_stream(s, &end); /* s may be gone after this if it was destroyed meanwhile */
    if (e == cudaSuccess)
        sim_wait_host_until(end);
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(stream_sync(stream, false));
}

SIM_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(stream_sync(stream, true));
}

/* cudaErrorNotReady is an answer, not a failure: it does not become the last error. */
static cudaError_t stream_query(cudaStream_t stream, bool ptds) {
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess)
        e = sim_capture_forbid(s);
    if (e == cudaSuccess) {
        bool busy = s->queued > 0 || (s->kind == SIM_STREAM_LEGACY && sim_stream_busy(s));
        uint64_t end = s->last_end_ns;
        if (s->kind == SIM_STREAM_LEGACY)
            end = sim_max_u64(end, *sim_blocking_end(s->device));
        if (busy || (sim_cfg.realtime && sim_now_ns() < end))
            e = cudaErrorNotReady;
        else
            sim_host_catch_up(end); /* the host saw it done: it is at least that late */
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e == cudaErrorNotReady ? e : sim_result(e);
}

SIM_API cudaError_t cudaStreamQuery(cudaStream_t stream) {
    SIM_ENTER();
    return stream_query(stream, false);
}

SIM_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
    SIM_ENTER();
    return stream_query(stream, true);
}

/* ---- host functions ------------------------------------------------------------------------ */

/* Host functions become host nodes in a capture; stream callbacks cannot be captured. */
static cudaError_t host_fn(cudaStream_t stream, bool ptds, sim_op *op) {
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    bool captured = false;
    if (e == cudaSuccess && op->callback) {
        e = sim_capture_forbid(s);
    } else if (e == cudaSuccess && sim_captures_active()) {
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeHost;
        d.fn = op->host_fn;
        d.user = op->user;
        e = sim_capture_op(s, &d, &captured);
    }
    if (e == cudaSuccess && !captured) {
        op->kind = SIM_OP_HOST_FN;
        op->engine = op->peer_device = -1;
        e = sim_submit(s, op);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

static cudaError_t add_callback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                unsigned flags, bool ptds) {
    if (callback == NULL || flags != 0)
        return cudaErrorInvalidValue;
    sim_op op = {0};
    op.callback = callback;
    op.callback_stream = stream;
    op.user = userData;
    return host_fn(stream, ptds, &op);
}

SIM_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                          void *userData, unsigned int flags) {
    SIM_ENTER();
    return sim_result(add_callback(stream, callback, userData, flags, false));
}

SIM_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                               void *userData, unsigned int flags) {
    SIM_ENTER();
    return sim_result(add_callback(stream, callback, userData, flags, true));
}

static cudaError_t launch_host_func(cudaStream_t stream, cudaHostFn_t fn, void *userData,
                                    bool ptds) {
    if (fn == NULL)
        return cudaErrorInvalidValue;
    sim_op op = {0};
    op.host_fn = fn;
    op.user = userData;
    return host_fn(stream, ptds, &op);
}

SIM_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    SIM_ENTER();
    return sim_result(launch_host_func(stream, fn, userData, false));
}

SIM_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    SIM_ENTER();
    return sim_result(launch_host_func(stream, fn, userData, true));
}

/* ---- properties ---------------------------------------------------------------------------- */

typedef enum { Q_FLAGS, Q_PRIORITY, Q_DEVICE, Q_ID } stream_query_kind;

static cudaError_t stream_get(cudaStream_t stream, bool ptds, stream_query_kind what, void *out) {
    if (out == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess) {
        switch (what) {
        case Q_FLAGS:
            *(unsigned *)out = s->flags;
            break;
        case Q_PRIORITY:
            *(int *)out = s->priority;
            break;
        case Q_DEVICE:
            *(int *)out = s->device;
            break;
        case Q_ID:
            *(unsigned long long *)out = s->id;
            break;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

#define STREAM_GETTER(api, type, what)                                                             \
    SIM_API cudaError_t api(cudaStream_t hStream, type *out) {                                     \
        SIM_ENTER();                                                                               \
        return sim_result(stream_get(hStream, false, what, out));                                  \
    }                                                                                              \
    SIM_API cudaError_t api##_ptsz(cudaStream_t hStream, type *out) {                              \
        SIM_ENTER();                                                                               \
        return sim_result(stream_get(hStream, true, what, out));                                   \
    }

STREAM_GETTER(cudaStreamGetFlags, unsigned int, Q_FLAGS)
STREAM_GETTER(cudaStreamGetPriority, int, Q_PRIORITY)
STREAM_GETTER(cudaStreamGetDevice, int, Q_DEVICE)
STREAM_GETTER(cudaStreamGetId, unsigned long long, Q_ID)

/* Managed memory is always accessible here; attaching only validates. */
static cudaError_t attach_mem(cudaStream_t stream, bool ptds, void *devPtr, size_t length,
                              unsigned flags) {
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return cudaErrorInvalidValue;
    sim_stream *s;
    sim_ptrinfo pi;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess)
        e = sim_capture_forbid(s); /* not capturable */
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup(devPtr, &pi);
    pthread_mutex_unlock(&sim_mem_lock);
    pthread_mutex_unlock(&sim_sched_lock);
    if (e != cudaSuccess)
        return e;
    if (pi.type != SIM_MEM_MANAGED || pi.base != (uintptr_t)devPtr ||
        (length != 0 && length != pi.size))
        return cudaErrorInvalidValue;
    if (flags == cudaMemAttachSingle && s->kind == SIM_STREAM_LEGACY)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

SIM_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                             unsigned int flags) {
    SIM_ENTER();
    return sim_result(attach_mem(stream, false, devPtr, length, flags));
}

SIM_API cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr,
                                                  size_t length, unsigned int flags) {
    SIM_ENTER();
    return sim_result(attach_mem(stream, true, devPtr, length, flags));
}

/* ---- attributes ---------------------------------------------------------------------------- */

/* Priority is kept; the other stream attributes (access policy window, synchronization policy,
 * memory sync domains) are accepted and have no effect on the simulated device. */
static cudaError_t stream_attr(cudaStream_t stream, bool ptds, cudaStreamAttrID attr,
                               cudaStreamAttrValue *get, const cudaStreamAttrValue *set) {
    if (get == NULL && set == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess) {
        switch ((int)attr) {
        case cudaLaunchAttributePriority:
            if (get) {
                memset(get, 0, sizeof *get);
                get->priority = s->priority;
            } else {
                int p = set->priority;
                s->priority = p > PRIORITY_LEAST ? PRIORITY_LEAST
                              : p < PRIORITY_GREATEST ? PRIORITY_GREATEST
                                                      : p;
            }
            break;
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeSynchronizationPolicy:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain:
            if (get)
                memset(get, 0, sizeof *get);
            break;
        default:
            e = cudaErrorInvalidValue;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                           cudaStreamAttrValue *value) {
    SIM_ENTER();
    return sim_result(value ? stream_attr(stream, false, attr, value, NULL)
                            : cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr,
                                                cudaStreamAttrValue *value) {
    SIM_ENTER();
    return sim_result(value ? stream_attr(stream, true, attr, value, NULL)
                            : cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                           const cudaStreamAttrValue *param) {
    SIM_ENTER();
    return sim_result(param ? stream_attr(stream, false, attr, NULL, param)
                            : cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr,
                                                const cudaStreamAttrValue *param) {
    SIM_ENTER();
    return sim_result(param ? stream_attr(stream, true, attr, NULL, param)
                            : cudaErrorInvalidValue);
}

static cudaError_t copy_attributes(cudaStream_t dst, cudaStream_t src, bool ptds) {
    sim_stream *d, *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(dst, ptds, &d);
    if (e == cudaSuccess)
        e = sim_stream_resolve(src, ptds, &s);
    if (e == cudaSuccess)
        d->priority = s->priority;
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
    SIM_ENTER();
    return sim_result(copy_attributes(dst, src, false));
}

SIM_API cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
    SIM_ENTER();
    return sim_result(copy_attributes(dst, src, true));
}
