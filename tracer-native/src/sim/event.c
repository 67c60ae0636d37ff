/* Events. An event holds the marker of its latest record: done once the work before it ran, with
 * the simulated time at which it did, which is what cudaEventElapsedTime subtracts. Waiting on an
 * event takes the marker current at the time of the call, as CUDA does: recording the event again
 * later does not change what an earlier cudaStreamWaitEvent waits for. Records and waits on
 * capturing streams, and events recorded in a capture, are capture.c's. */
#include "sim.h"

#include <stdlib.h>

static sim_ptrmap events;

sim_event *sim_event_get(cudaEvent_t event) {
    return event ? sim_ptrmap_get(&events, event) : NULL;
}

static cudaError_t event_create(cudaEvent_t *event, unsigned flags) {
    unsigned valid = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (event == NULL || (flags & ~valid) != 0)
        return cudaErrorInvalidValue;
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return cudaErrorInvalidValue;
    sim_event *ev = calloc(1, sizeof *ev);
    if (ev == NULL)
        return cudaErrorMemoryAllocation;
    ev->device = sim_current_device;
    ev->flags = flags;
    pthread_mutex_lock(&sim_sched_lock);
    int rc = sim_ptrmap_put(&events, ev, ev);
    pthread_mutex_unlock(&sim_sched_lock);
    if (rc != 0) {
        free(ev);
        return cudaErrorMemoryAllocation;
    }
    *event = (cudaEvent_t)ev;
    return cudaSuccess;
}

SIM_API cudaError_t cudaEventCreate(cudaEvent_t *event) {
    SIM_ENTER();
    return sim_result(event_create(event, cudaEventDefault));
}

SIM_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    SIM_ENTER();
    return sim_result(event_create(event, flags));
}

static void free_event(sim_event *ev) {
    sim_capture_event_gone(ev);
    sim_marker_unref(ev->marker);
    free(ev);
}

SIM_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_event *ev = sim_ptrmap_remove(&events, event);
    if (ev)
        free_event(ev);
    pthread_mutex_unlock(&sim_sched_lock);
    return ev ? cudaSuccess : sim_result(cudaErrorInvalidResourceHandle);
}

static bool on_device(void *key, void *val, void *ctx) {
    (void)key;
    sim_event *ev = val;
    if (ev->device != *(int *)ctx)
        return false;
    free_event(ev);
    return true;
}

void sim_events_reset_device(int device) {
    sim_ptrmap_foreach(&events, on_device, &device);
}

static cudaError_t record(cudaEvent_t event, cudaStream_t stream, unsigned flags, bool ptds) {
    if (flags & ~(unsigned)cudaEventRecordExternal)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    sim_event *ev = sim_ptrmap_get(&events, event);
    cudaError_t e = ev ? sim_stream_resolve(stream, ptds, &s) : cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess && s->device != ev->device)
        e = cudaErrorInvalidResourceHandle; /* an event records only on its own device's streams */
    bool captured = false;
    if (e == cudaSuccess)
        e = sim_capture_record(s, ev, event, flags, &captured);
    sim_marker *m = e == cudaSuccess && !captured ? sim_marker_new() : NULL;
    if (e == cudaSuccess && !captured && m == NULL)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess && !captured) {
        sim_op op = {0};
        op.kind = SIM_OP_RECORD;
        op.engine = op.peer_device = -1;
        op.marker = m;
        sim_marker_ref(m); /* the op's reference */
        e = sim_submit(s, &op);
        if (e == cudaSuccess) {
            sim_capture_event_gone(ev); /* recorded outside any capture now */
            sim_marker_unref(ev->marker);
            ev->marker = m;
        } else {
            free(m); /* never queued: both references were ours */
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(record(event, stream, 0, false));
}

SIM_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(record(event, stream, 0, true));
}

SIM_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                             unsigned int flags) {
    SIM_ENTER();
    return sim_result(record(event, stream, flags, false));
}

SIM_API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                  unsigned int flags) {
    SIM_ENTER();
    return sim_result(record(event, stream, flags, true));
}

/* Done, and in real-time mode also past on the host clock. Requires sim_sched_lock. */
static bool marker_complete(sim_marker *m) {
    if (!m->done)
        return false;
    sim_marker_observe(m);
    return !sim_cfg.realtime || sim_now_ns() >= m->time_ns;
}

/* cudaErrorNotReady is an answer, not a failure: it does not become the last error. */
SIM_API cudaError_t cudaEventQuery(cudaEvent_t event) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_event *ev = sim_ptrmap_get(&events, event);
    cudaError_t e = ev == NULL ? cudaErrorInvalidResourceHandle : sim_capture_check_event(ev);
    if (e == cudaSuccess)
        e = ev->marker == NULL || marker_complete(ev->marker) ? cudaSuccess : cudaErrorNotReady;
    if (e == cudaSuccess && ev->marker) /* the host saw it done: it is at least that late */
        sim_host_catch_up(ev->marker->time_ns);
    pthread_mutex_unlock(&sim_sched_lock);
    return e == cudaErrorNotReady ? e : sim_result(e);
}

SIM_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_event *ev = sim_ptrmap_get(&events, event);
    cudaError_t e = ev ? sim_capture_check_event(ev) : cudaErrorInvalidResourceHandle;
    sim_marker *m = e == cudaSuccess ? ev->marker : NULL;
    if (m) {
        sim_marker_ref(m); /* the event may be destroyed or recorded again while we wait */
        e = sim_wait_marker(m);
        if (e == cudaSuccess) {
            sim_marker_observe(m);
            sim_wait_host_until(m->time_ns);
        }
        sim_marker_unref(m);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    SIM_ENTER();
    if (ms == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_event *a = sim_ptrmap_get(&events, start), *b = sim_ptrmap_get(&events, end);
    cudaError_t e = a && b ? sim_capture_check_event(a) : cudaSuccess;
    if (e == cudaSuccess && a && b)
        e = sim_capture_check_event(b);
    if (e == cudaSuccess) {
        if (a == NULL || b == NULL || ((a->flags | b->flags) & cudaEventDisableTiming) ||
            a->marker == NULL || b->marker == NULL)
            e = cudaErrorInvalidResourceHandle;
        else if (!marker_complete(a->marker) || !marker_complete(b->marker))
            e = cudaErrorNotReady;
        else
            *ms = (float)(((double)b->marker->time_ns - (double)a->marker->time_ns) / 1e6);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e == cudaErrorNotReady ? e : sim_result(e);
}

static cudaError_t wait_event(cudaStream_t stream, cudaEvent_t event, unsigned flags, bool ptds) {
    if (flags & ~(unsigned)cudaEventWaitExternal)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    sim_event *ev = e == cudaSuccess ? sim_ptrmap_get(&events, event) : NULL;
    if (e == cudaSuccess && ev == NULL)
        e = cudaErrorInvalidResourceHandle;
    bool captured = false;
    if (e == cudaSuccess)
        e = sim_capture_wait(s, ev, event, flags, &captured);
    if (e == cudaSuccess && !captured && ev->marker != NULL) { /* never recorded: no wait */
        sim_op op = {0};
        op.kind = SIM_OP_WAIT;
        op.engine = op.peer_device = -1;
        op.marker = ev->marker;
        sim_marker_ref(op.marker);
        e = sim_submit(s, &op);
        if (e != cudaSuccess)
            sim_marker_unref(op.marker);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                        unsigned int flags) {
    SIM_ENTER();
    return sim_result(wait_event(stream, event, flags, false));
}

SIM_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                             unsigned int flags) {
    SIM_ENTER();
    return sim_result(wait_event(stream, event, flags, true));
}
