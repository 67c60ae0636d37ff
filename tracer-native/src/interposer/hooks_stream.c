/* Hooks for devices, streams, events, synchronization, peer access, unified-memory hints and host
 * callbacks. Synchronizing calls send every thread's buffered events once they return, so that a
 * program killed later (SIGKILL) loses nothing it issued before its last completed sync. */
#include "hook.h"

uint64_t at_stream(cudaStream_t s) {
    return (uint64_t)(uintptr_t)s;
}

void at_record_call(const at_call *c, int result) {
    at_event e;
    if (at_begin(&e, c, result)) at_commit(&e);
}

APPTRACE_HOOK(cudaSetDevice, cudaError_t, (int device)) {
    REAL(cudaSetDevice);
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API_cudaSetDevice);
    cudaError_t r = real_cudaSetDevice(device);
    if (r == cudaSuccess) at_tls.device = device; /* tracked even when not recording */
    if (!traced) return r;
    at_event e;
    if (at_begin(&e, &c, r)) {
        enc_set_device_body(&e.w, device, 0);
        at_commit(&e);
    }
    at_leave(&c);
    return r;
}

/* ---- synchronization ---- */

static void record_sync(at_call *c, cudaError_t r, int scope, cudaStream_t s, cudaEvent_t ev) {
    enc_sync m = {.scope = scope, .stream = at_stream(s), .event = (uint64_t)(uintptr_t)ev,
                  .device = at_tls.device};
    AT_RECORD(c, r, enc_sync_body, &m);
    at_leave(c);
    at_cupti_flush_if_due();
    at_flush_all();
}

APPTRACE_HOOK(cudaDeviceSynchronize, cudaError_t, (void)) {
    REAL(cudaDeviceSynchronize);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaDeviceSynchronize)) return real_cudaDeviceSynchronize();
    cudaError_t r = real_cudaDeviceSynchronize();
    record_sync(&c, r, PB_SyncScope_DEVICE_SCOPE, 0, 0);
    return r;
}

#define STREAM_SYNC_HOOK(name)                                                                   \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream)) {                                   \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream);                      \
        cudaError_t r = real_##name(stream);                                                     \
        record_sync(&c, r, PB_SyncScope_STREAM_SCOPE, stream, 0);                                \
        return r;                                                                                \
    }
STREAM_SYNC_HOOK(cudaStreamSynchronize)
STREAM_SYNC_HOOK(cudaStreamSynchronize_ptsz)

APPTRACE_HOOK(cudaEventSynchronize, cudaError_t, (cudaEvent_t event)) {
    REAL(cudaEventSynchronize);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaEventSynchronize)) return real_cudaEventSynchronize(event);
    cudaError_t r = real_cudaEventSynchronize(event);
    record_sync(&c, r, PB_SyncScope_EVENT_SCOPE, 0, event);
    return r;
}

/* ---- streams ---- */

static void record_stream(at_call *c, cudaError_t r, cudaStream_t s, unsigned flags, int priority) {
    enc_stream_op m = {.stream = at_stream(s), .flags = flags, .priority = priority, .device = at_tls.device};
    AT_RECORD(c, r, enc_stream_body, &m);
    at_leave(c);
}

APPTRACE_HOOK(cudaStreamCreate, cudaError_t, (cudaStream_t *pStream)) {
    REAL(cudaStreamCreate);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaStreamCreate)) return real_cudaStreamCreate(pStream);
    cudaError_t r = real_cudaStreamCreate(pStream);
    record_stream(&c, r, r == cudaSuccess && pStream ? *pStream : 0, 0, 0);
    return r;
}

APPTRACE_HOOK(cudaStreamCreateWithFlags, cudaError_t, (cudaStream_t *pStream, unsigned int flags)) {
    REAL(cudaStreamCreateWithFlags);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaStreamCreateWithFlags)) return real_cudaStreamCreateWithFlags(pStream, flags);
    cudaError_t r = real_cudaStreamCreateWithFlags(pStream, flags);
    record_stream(&c, r, r == cudaSuccess && pStream ? *pStream : 0, flags, 0);
    return r;
}

APPTRACE_HOOK(cudaStreamCreateWithPriority, cudaError_t, (cudaStream_t *pStream, unsigned int flags, int priority)) {
    REAL(cudaStreamCreateWithPriority);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaStreamCreateWithPriority))
        return real_cudaStreamCreateWithPriority(pStream, flags, priority);
    cudaError_t r = real_cudaStreamCreateWithPriority(pStream, flags, priority);
    record_stream(&c, r, r == cudaSuccess && pStream ? *pStream : 0, flags, priority);
    return r;
}

APPTRACE_HOOK(cudaStreamDestroy, cudaError_t, (cudaStream_t stream)) {
    REAL(cudaStreamDestroy);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaStreamDestroy)) return real_cudaStreamDestroy(stream);
    cudaError_t r = real_cudaStreamDestroy(stream);
    record_stream(&c, r, stream, 0, 0);
    return r;
}

/* ---- events ---- */

static void record_event(at_call *c, cudaError_t r, cudaEvent_t ev, cudaStream_t s, unsigned flags) {
    enc_event_op m = {.event = (uint64_t)(uintptr_t)ev, .stream = at_stream(s), .flags = flags,
                      .capture_id = s != NULL ? at_capture_id(at_stream(s), r) : 0};
    AT_RECORD(c, r, enc_event_op_body, &m);
    at_leave(c);
}

APPTRACE_HOOK(cudaEventCreate, cudaError_t, (cudaEvent_t *event)) {
    REAL(cudaEventCreate);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaEventCreate)) return real_cudaEventCreate(event);
    cudaError_t r = real_cudaEventCreate(event);
    record_event(&c, r, r == cudaSuccess && event ? *event : 0, 0, 0);
    return r;
}

APPTRACE_HOOK(cudaEventCreateWithFlags, cudaError_t, (cudaEvent_t *event, unsigned int flags)) {
    REAL(cudaEventCreateWithFlags);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaEventCreateWithFlags)) return real_cudaEventCreateWithFlags(event, flags);
    cudaError_t r = real_cudaEventCreateWithFlags(event, flags);
    record_event(&c, r, r == cudaSuccess && event ? *event : 0, 0, flags);
    return r;
}

#define EVENT_RECORD_HOOK(name)                                                                  \
    APPTRACE_HOOK(name, cudaError_t, (cudaEvent_t event, cudaStream_t stream)) {                \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(event, stream);               \
        cudaError_t r = real_##name(event, stream);                                              \
        record_event(&c, r, event, stream, 0);                                                   \
        return r;                                                                                \
    }
#define EVENT_RECORD_FLAGS_HOOK(name)                                                            \
    APPTRACE_HOOK(name, cudaError_t, (cudaEvent_t event, cudaStream_t stream, unsigned int flags)) { \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(event, stream, flags);        \
        cudaError_t r = real_##name(event, stream, flags);                                       \
        record_event(&c, r, event, stream, flags);                                               \
        return r;                                                                                \
    }
#define STREAM_WAIT_HOOK(name)                                                                   \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, cudaEvent_t event, unsigned int flags)) { \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream, event, flags);        \
        cudaError_t r = real_##name(stream, event, flags);                                       \
        record_event(&c, r, event, stream, flags);                                               \
        return r;                                                                                \
    }
EVENT_RECORD_HOOK(cudaEventRecord)
EVENT_RECORD_HOOK(cudaEventRecord_ptsz)
EVENT_RECORD_FLAGS_HOOK(cudaEventRecordWithFlags)
EVENT_RECORD_FLAGS_HOOK(cudaEventRecordWithFlags_ptsz)
STREAM_WAIT_HOOK(cudaStreamWaitEvent)
STREAM_WAIT_HOOK(cudaStreamWaitEvent_ptsz)

APPTRACE_HOOK(cudaEventQuery, cudaError_t, (cudaEvent_t event)) {
    REAL(cudaEventQuery);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaEventQuery)) return real_cudaEventQuery(event);
    cudaError_t r = real_cudaEventQuery(event);
    record_event(&c, r, event, 0, 0);
    return r;
}

APPTRACE_HOOK(cudaEventDestroy, cudaError_t, (cudaEvent_t event)) {
    REAL(cudaEventDestroy);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaEventDestroy)) return real_cudaEventDestroy(event);
    cudaError_t r = real_cudaEventDestroy(event);
    record_event(&c, r, event, 0, 0);
    return r;
}

/* ---- host callbacks ---- */

static void record_callback(at_call *c, cudaError_t r, cudaStream_t s, const void *fn, void *data) {
    enc_callback m = {.stream = at_stream(s), .function = (uint64_t)(uintptr_t)fn,
                      .user_data = (uint64_t)(uintptr_t)data, .capture_id = at_capture_id(at_stream(s), r)};
    AT_RECORD(c, r, enc_callback_body, &m);
    at_leave(c);
}

#define HOST_FUNC_HOOK(name)                                                                     \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, cudaHostFn_t fn, void *userData)) {  \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream, fn, userData);        \
        cudaError_t r = real_##name(stream, fn, userData);                                       \
        record_callback(&c, r, stream, (const void *)fn, userData);                              \
        return r;                                                                                \
    }
#define STREAM_CALLBACK_HOOK(name)                                                               \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, cudaStreamCallback_t callback,       \
                                      void *userData, unsigned int flags)) {                     \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream, callback, userData, flags); \
        cudaError_t r = real_##name(stream, callback, userData, flags);                          \
        record_callback(&c, r, stream, (const void *)callback, userData);                        \
        return r;                                                                                \
    }
HOST_FUNC_HOOK(cudaLaunchHostFunc)
HOST_FUNC_HOOK(cudaLaunchHostFunc_ptsz)
STREAM_CALLBACK_HOOK(cudaStreamAddCallback)
STREAM_CALLBACK_HOOK(cudaStreamAddCallback_ptsz)

/* ---- peer access ---- */

static void record_peer_access(at_call *c, cudaError_t r, int peer, unsigned flags, bool enable) {
    enc_peer m = {.device = at_tls.device, .peer = peer, .flags = flags, .enable = enable};
    AT_RECORD(c, r, enc_peer_body, &m);
    at_leave(c);
}

APPTRACE_HOOK(cudaDeviceEnablePeerAccess, cudaError_t, (int peerDevice, unsigned int flags)) {
    REAL(cudaDeviceEnablePeerAccess);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaDeviceEnablePeerAccess)) return real_cudaDeviceEnablePeerAccess(peerDevice, flags);
    cudaError_t r = real_cudaDeviceEnablePeerAccess(peerDevice, flags);
    record_peer_access(&c, r, peerDevice, flags, true);
    return r;
}

APPTRACE_HOOK(cudaDeviceDisablePeerAccess, cudaError_t, (int peerDevice)) {
    REAL(cudaDeviceDisablePeerAccess);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaDeviceDisablePeerAccess)) return real_cudaDeviceDisablePeerAccess(peerDevice);
    cudaError_t r = real_cudaDeviceDisablePeerAccess(peerDevice);
    record_peer_access(&c, r, peerDevice, 0, false);
    return r;
}

/* ---- unified memory ---- */

#define PREFETCH_HOOK(name)                                                                      \
    APPTRACE_HOOK(name, cudaError_t, (const void *devPtr, size_t count, struct cudaMemLocation location, \
                                      unsigned int flags, cudaStream_t stream)) {                \
        REAL(name);                                                                              \
        at_call c;                                                                               \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(devPtr, count, location, flags, stream); \
        cudaError_t r = real_##name(devPtr, count, location, flags, stream);                     \
        enc_prefetch m = {.ptr = (uint64_t)(uintptr_t)devPtr, .bytes = count,                    \
                          .device = location.type == cudaMemLocationTypeHost ? -1 : location.id, \
                          .stream = at_stream(stream), .location_type = (int)location.type};     \
        AT_RECORD(&c, r, enc_prefetch_body, &m);                                                 \
        at_leave(&c);                                                                            \
        return r;                                                                                \
    }
PREFETCH_HOOK(cudaMemPrefetchAsync)
PREFETCH_HOOK(cudaMemPrefetchAsync_ptsz)

APPTRACE_HOOK(cudaMemAdvise, cudaError_t, (const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                          struct cudaMemLocation location)) {
    REAL(cudaMemAdvise);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaMemAdvise)) return real_cudaMemAdvise(devPtr, count, advice, location);
    cudaError_t r = real_cudaMemAdvise(devPtr, count, advice, location);
    enc_advise m = {.ptr = (uint64_t)(uintptr_t)devPtr, .bytes = count, .advice = (int)advice,
                    .device = location.type == cudaMemLocationTypeHost ? -1 : location.id,
                    .location_type = (int)location.type};
    AT_RECORD(&c, r, enc_advise_body, &m);
    at_leave(&c);
    return r;
}
