/* Stream capture: not yet. cudaStreamBeginCapture and friends stay unsupported (stubs.c), no
 * stream ever captures, and the hooks the rest of the simulator calls let everything through. */
#include "graph.h"

__thread enum cudaStreamCaptureMode sim_capture_mode = cudaStreamCaptureModeGlobal;

int sim_captures_active(void) {
    return 0;
}

cudaError_t sim_capture_op(sim_stream *s, sim_node_desc *d, bool *captured) {
    (void)s, (void)d;
    *captured = false;
    return cudaSuccess;
}

cudaError_t sim_capture_forbid(sim_stream *s) {
    (void)s;
    return cudaSuccess;
}

cudaError_t sim_capture_unsafe_locked(void) {
    return cudaSuccess;
}

cudaError_t sim_capture_unsafe(void) {
    return cudaSuccess;
}

cudaError_t sim_capture_check_device(int device) {
    (void)device;
    return cudaSuccess;
}

cudaError_t sim_capture_check_event(sim_event *ev) {
    (void)ev;
    return cudaSuccess;
}

cudaError_t sim_capture_record(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                               bool *captured) {
    (void)s, (void)ev, (void)handle, (void)flags;
    *captured = false;
    return cudaSuccess;
}

cudaError_t sim_capture_wait(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                             bool *captured) {
    (void)s, (void)ev, (void)handle, (void)flags;
    *captured = false;
    return cudaSuccess;
}

void sim_capture_stream_gone(sim_stream *s) {
    (void)s;
}

void sim_capture_event_gone(sim_event *ev) {
    (void)ev;
}

/* Nothing is ever captured. */
static cudaError_t is_capturing(cudaStream_t stream, bool ptds,
                                enum cudaStreamCaptureStatus *status) {
    if (status == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    pthread_mutex_unlock(&sim_sched_lock);
    if (e == cudaSuccess)
        *status = cudaStreamCaptureStatusNone;
    return e;
}

SIM_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *pCaptureStatus) {
    SIM_ENTER();
    return sim_result(is_capturing(stream, false, pCaptureStatus));
}

SIM_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                               enum cudaStreamCaptureStatus *pCaptureStatus) {
    SIM_ENTER();
    return sim_result(is_capturing(stream, true, pCaptureStatus));
}

SIM_API cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    SIM_ENTER();
    if (mode == NULL || (unsigned)*mode > cudaStreamCaptureModeRelaxed)
        return sim_result(cudaErrorInvalidValue);
    enum cudaStreamCaptureMode old = sim_capture_mode;
    sim_capture_mode = *mode;
    *mode = old;
    return cudaSuccess;
}

static cudaError_t capture_info(cudaStream_t stream, bool ptds,
                                enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *num_deps) {
    cudaError_t e = is_capturing(stream, ptds, status);
    if (e != cudaSuccess)
        return e;
    if (id)
        *id = 0;
    if (graph)
        *graph = NULL;
    if (deps)
        *deps = NULL;
    if (edges)
        *edges = NULL;
    if (num_deps)
        *num_deps = 0;
    return cudaSuccess;
}

SIM_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             const cudaGraphEdgeData **edgeData_out,
                                             size_t *numDependencies_out) {
    SIM_ENTER();
    return sim_result(capture_info(stream, false, captureStatus_out, id_out, graph_out,
                                   dependencies_out, edgeData_out, numDependencies_out));
}

SIM_API cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                  enum cudaStreamCaptureStatus *captureStatus_out,
                                                  unsigned long long *id_out,
                                                  cudaGraph_t *graph_out,
                                                  const cudaGraphNode_t **dependencies_out,
                                                  const cudaGraphEdgeData **edgeData_out,
                                                  size_t *numDependencies_out) {
    SIM_ENTER();
    return sim_result(capture_info(stream, true, captureStatus_out, id_out, graph_out,
                                   dependencies_out, edgeData_out, numDependencies_out));
}
