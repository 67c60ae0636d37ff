/* Stream capture: cudaStreamBeginCapture and friends, and what capturing does to stream work.
 *
 * A capture sequence starts on one stream (its origin) and spreads to the streams that wait on
 * an event recorded in it. While a stream takes part, what is submitted to it is not run: kernel
 * launches, async copies and memsets, host functions, stream-ordered allocations and frees,
 * graph launches and external event records and waits become nodes of the capture's graph,
 * depending on the stream's current dependency set (the nodes its previous operation became, or
 * what an event wait brought in); an ordinary cudaEventRecord only notes that set in the event.
 * cudaStreamEndCapture on the origin returns the graph once every stream that joined has been
 * joined back (its dependency set leads into the origin's), and takes all of them out of capture.
 *
 * CUDA's rules, as its documentation and programming guide state them:
 * - Synchronizing with or querying a capturing stream, a device with a capturing stream, or an
 *   event recorded in a capture: cudaErrorStreamCaptureUnsupported (cudaErrorCapturedEvent for
 *   events), and the capture is invalidated.
 * - The legacy stream while a blocking stream of its device captures: any use is
 *   cudaErrorStreamCaptureImplicit and invalidates those captures (queries of its capture state
 *   only fail).
 * - Potentially unsafe calls (cudaMalloc, synchronous copies and memsets, cudaFree, pinned
 *   allocations...) from a thread whose capture mode prohibits them (cudaStreamCaptureModeGlobal:
 *   its own capture not begun relaxed, or any global capture in another thread;
 *   ThreadLocal: its own only; Relaxed: never) return cudaErrorStreamCaptureUnsupported and
 *   invalidate the captures that prohibited them.
 * - Waiting in a capture on an event that was not recorded in it: cudaErrorStreamCaptureIsolation
 *   (unless cudaEventWaitExternal); on an event of another capture: cudaErrorStreamCaptureMerge.
 * - An invalidated capture fails every further use of its streams with
 *   cudaErrorStreamCaptureInvalidated until cudaStreamEndCapture, which then fails the same way
 *   and returns no graph.
 * Once a capture has ended, an event recorded in it is as it was before that record. */
#include "graph.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim_capture {
    unsigned long long id;
    sim_graph *graph;
    bool own_graph; /* made by cudaStreamBeginCapture (destroyed if the capture fails) */
    enum cudaStreamCaptureMode mode;
    pthread_t thread;
    sim_stream *origin;
    bool invalidated, ended;
    int refs; /* the list of captures going on, streams taking part, events recorded in it */
    struct sim_capture *prev, *next;
} sim_capture;

static sim_capture *active;
static _Atomic int active_count;
static unsigned long long next_capture_id = 1;
static int blocking_capturing[SIM_MAX_DEVICES]; /* streams taking part that are blocking */

__thread enum cudaStreamCaptureMode sim_capture_mode = cudaStreamCaptureModeGlobal;

int sim_captures_active(void) {
    return atomic_load_explicit(&active_count, memory_order_relaxed);
}

static bool counts_blocking(const sim_stream *s) {
    return s->blocking && s->kind != SIM_STREAM_LEGACY;
}

static void cap_unref(sim_capture *c) {
    if (--c->refs == 0)
        free(c);
}

/* Replaces (or with `add`, extends) a stream's dependency set. */
static cudaError_t set_deps(sim_stream *s, sim_gnode *const *deps, const cudaGraphEdgeData *edges,
                            size_t n, bool add) {
    size_t base = add ? s->cap_ndeps : 0;
    if (base + n > s->cap_depcap) {
        size_t c = (base + n) * 2;
        sim_gnode **nd = realloc(s->cap_deps, c * sizeof *nd);
        if (nd == NULL)
            return cudaErrorMemoryAllocation;
        s->cap_deps = nd;
        cudaGraphEdgeData *ne = realloc(s->cap_edges, c * sizeof *ne);
        if (ne == NULL)
            return cudaErrorMemoryAllocation;
        s->cap_edges = ne;
        s->cap_depcap = c;
    }
    size_t k = base;
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t j = 0; j < k && !dup; j++)
            dup = s->cap_deps[j] == deps[i];
        if (dup)
            continue;
        s->cap_deps[k] = deps[i];
        if (edges)
            s->cap_edges[k] = edges[i];
        else
            memset(&s->cap_edges[k], 0, sizeof s->cap_edges[k]);
        k++;
    }
    s->cap_ndeps = k;
    return cudaSuccess;
}

static cudaError_t join(sim_stream *s, sim_capture *c, sim_gnode *const *deps,
                        const cudaGraphEdgeData *edges, size_t n) {
    cudaError_t e = set_deps(s, deps, edges, n, false);
    if (e != cudaSuccess)
        return e;
    s->cap = c;
    c->refs++;
    if (counts_blocking(s))
        blocking_capturing[s->device]++;
    return cudaSuccess;
}

static void leave(sim_stream *s) {
    sim_capture *c = s->cap;
    if (c == NULL)
        return;
    if (counts_blocking(s))
        blocking_capturing[s->device]--;
    s->cap = NULL;
    free(s->cap_deps);
    free(s->cap_edges);
    s->cap_deps = NULL;
    s->cap_edges = NULL;
    s->cap_ndeps = s->cap_depcap = 0;
    cap_unref(c);
}

/* Ends a capture: every stream leaves it; its own graph goes unless kept for the program. */
static void finish(sim_capture *c, bool keep_graph) {
    for (int d = 0; d < sim_cfg.device_count; d++)
        for (sim_stream *s = sim_device_streams(d); s; s = s->dev_next)
            if (s->cap == c)
                leave(s);
    c->ended = true;
    if (c->prev)
        c->prev->next = c->next;
    else
        active = c->next;
    if (c->next)
        c->next->prev = c->prev;
    atomic_fetch_sub_explicit(&active_count, 1, memory_order_relaxed);
    c->graph->capture = NULL;
    if (!keep_graph && c->own_graph)
        sim_graph_free(c->graph);
    c->graph = NULL;
    cap_unref(c);
}

static void invalidate(sim_capture *c) {
    if (c)
        c->invalidated = true;
}

/* The legacy stream while a blocking stream of its device takes part in a capture. */
static bool legacy_conflict(const sim_stream *s) {
    return s->kind == SIM_STREAM_LEGACY && blocking_capturing[s->device] > 0;
}

static void invalidate_blocking(int device) {
    for (sim_stream *t = sim_device_streams(device); t; t = t->dev_next)
        if (t->cap && counts_blocking(t))
            invalidate(t->cap);
}

/* ---- the hooks of the other files ---------------------------------------------------------- */

cudaError_t sim_capture_op(sim_stream *s, sim_node_desc *d, bool *captured) {
    *captured = false;
    if (sim_captures_active() == 0)
        return cudaSuccess;
    if (legacy_conflict(s)) {
        *captured = true;
        invalidate_blocking(s->device);
        return cudaErrorStreamCaptureImplicit;
    }
    sim_capture *c = s->cap;
    if (c == NULL)
        return cudaSuccess;
    *captured = true;
    if (c->invalidated)
        return cudaErrorStreamCaptureInvalidated;
    sim_gnode *n;
    cudaError_t e = sim_graph_add(c->graph, d, s->cap_deps, s->cap_edges, s->cap_ndeps, &n);
    if (e == cudaSuccess)
        e = set_deps(s, &n, NULL, 1, false);
    return e;
}

cudaError_t sim_capture_forbid(sim_stream *s) {
    if (sim_captures_active() == 0)
        return cudaSuccess;
    if (legacy_conflict(s)) {
        invalidate_blocking(s->device);
        return cudaErrorStreamCaptureImplicit;
    }
    if (s->cap == NULL)
        return cudaSuccess;
    if (s->cap->invalidated)
        return cudaErrorStreamCaptureInvalidated;
    invalidate(s->cap);
    return cudaErrorStreamCaptureUnsupported;
}

cudaError_t sim_capture_unsafe_locked(void) {
    if (sim_captures_active() == 0 || sim_capture_mode == cudaStreamCaptureModeRelaxed)
        return cudaSuccess;
    pthread_t self = pthread_self();
    bool prohibited = false;
    for (sim_capture *c = active; c; c = c->next) {
        bool own = pthread_equal(c->thread, self) && c->mode != cudaStreamCaptureModeRelaxed;
        bool global = sim_capture_mode == cudaStreamCaptureModeGlobal &&
                      c->mode == cudaStreamCaptureModeGlobal;
        if (own || global) {
            prohibited = true;
            invalidate(c);
        }
    }
    return prohibited ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t sim_capture_unsafe(void) {
    if (sim_captures_active() == 0)
        return cudaSuccess;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_capture_unsafe_locked();
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

cudaError_t sim_capture_check_device(int device) {
    if (sim_captures_active() == 0)
        return cudaSuccess;
    bool capturing = false;
    for (sim_stream *t = sim_device_streams(device); t; t = t->dev_next) {
        if (t->cap) {
            capturing = true;
            invalidate(t->cap);
        }
    }
    return capturing ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

void sim_capture_event_gone(sim_event *ev) {
    if (ev->cap == NULL)
        return;
    cap_unref(ev->cap);
    free(ev->cap_nodes);
    ev->cap = NULL;
    ev->cap_nodes = NULL;
    ev->cap_n = 0;
}

/* The capture an event was recorded in, if it is still going on. */
static sim_capture *event_capture(sim_event *ev) {
    if (ev->cap && ev->cap->ended)
        sim_capture_event_gone(ev);
    return ev->cap;
}

cudaError_t sim_capture_check_event(sim_event *ev) {
    sim_capture *c = event_capture(ev);
    if (c == NULL)
        return cudaSuccess;
    invalidate(c);
    return cudaErrorCapturedEvent;
}

cudaError_t sim_capture_record(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                               bool *captured) {
    *captured = false;
    if (sim_captures_active() == 0)
        return cudaSuccess;
    if (legacy_conflict(s)) {
        *captured = true;
        invalidate_blocking(s->device);
        return cudaErrorStreamCaptureImplicit;
    }
    sim_capture *c = s->cap;
    if (c == NULL)
        return cudaSuccess;
    *captured = true;
    if (c->invalidated)
        return cudaErrorStreamCaptureInvalidated;
    if (flags & cudaEventRecordExternal) { /* a node that records the event when the graph runs */
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeEventRecord;
        d.event = handle;
        return sim_capture_op(s, &d, captured);
    }
    sim_gnode **nodes = NULL;
    if (s->cap_ndeps && (nodes = malloc(s->cap_ndeps * sizeof *nodes)) == NULL)
        return cudaErrorMemoryAllocation;
    if (s->cap_ndeps)
        memcpy(nodes, s->cap_deps, s->cap_ndeps * sizeof *nodes);
    sim_capture_event_gone(ev);
    ev->cap = c;
    c->refs++;
    ev->cap_nodes = nodes;
    ev->cap_n = s->cap_ndeps;
    return cudaSuccess;
}

cudaError_t sim_capture_wait(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                             bool *captured) {
    *captured = false;
    if (sim_captures_active() == 0)
        return cudaSuccess;
    if (legacy_conflict(s)) {
        *captured = true;
        invalidate_blocking(s->device);
        return cudaErrorStreamCaptureImplicit;
    }
    sim_capture *c = s->cap, *ec = event_capture(ev);
    if (c == NULL && ec == NULL)
        return cudaSuccess;
    *captured = true;
    if ((c && c->invalidated) || (ec && ec->invalidated)) {
        invalidate(c);
        return cudaErrorStreamCaptureInvalidated;
    }
    if (c && (flags & cudaEventWaitExternal)) { /* a node that waits when the graph runs */
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeWaitEvent;
        d.event = handle;
        return sim_capture_op(s, &d, captured);
    }
    if (ec == NULL) {
        if (ev->marker == NULL)
            return cudaSuccess; /* never recorded: nothing to wait for */
        invalidate(c);
        return cudaErrorStreamCaptureIsolation; /* work outside the capture */
    }
    if (c == NULL) {
        if (s->kind == SIM_STREAM_LEGACY)
            return cudaErrorStreamCaptureUnsupported;
        return join(s, ec, ev->cap_nodes, NULL, ev->cap_n); /* the fork of a capture */
    }
    if (c != ec) {
        invalidate(c);
        invalidate(ec);
        return cudaErrorStreamCaptureMerge;
    }
    return set_deps(s, ev->cap_nodes, NULL, ev->cap_n, true);
}

void sim_capture_stream_gone(sim_stream *s) {
    sim_capture *c = s->cap;
    if (c == NULL)
        return;
    invalidate(c);
    if (c->origin == s)
        finish(c, false); /* nobody can end it any more */
    else
        leave(s);
}

/* ---- the capture API ----------------------------------------------------------------------- */

static cudaError_t begin(cudaStream_t stream, bool ptds, cudaGraph_t graph,
                         const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t n,
                         enum cudaStreamCaptureMode mode, bool to_graph) {
    if ((unsigned)mode > cudaStreamCaptureModeRelaxed || (n > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    sim_stream *s;
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e != cudaSuccess)
        return e;
    if (s->kind == SIM_STREAM_LEGACY)
        return cudaErrorStreamCaptureUnsupported; /* the legacy stream cannot capture */
    if (s->cap)
        return cudaErrorIllegalState;
    sim_graph *g = NULL;
    if (to_graph) {
        g = sim_graph_get(graph);
        if (g == NULL || g->parent)
            return cudaErrorInvalidValue;
        if (g->capture)
            return cudaErrorIllegalState;
        for (size_t i = 0; i < n; i++) {
            sim_gnode *d = sim_gnode_get(deps[i]);
            if (d == NULL || d->graph != g)
                return cudaErrorInvalidValue;
            for (size_t j = 0; j < i; j++)
                if (deps[j] == deps[i])
                    return cudaErrorInvalidValue;
        }
    } else if ((g = sim_graph_new(false)) == NULL) {
        return cudaErrorMemoryAllocation;
    }
    sim_capture *c = calloc(1, sizeof *c);
    if (c == NULL || (e = join(s, c, (sim_gnode *const *)deps, edges, n)) != cudaSuccess) {
        if (!to_graph)
            sim_graph_free(g);
        free(c);
        return c ? e : cudaErrorMemoryAllocation;
    }
    c->refs++; /* the list's */
    c->id = next_capture_id++;
    c->graph = g;
    c->own_graph = !to_graph;
    c->mode = mode;
    c->thread = pthread_self();
    c->origin = s;
    g->capture = c;
    c->next = active;
    if (active)
        active->prev = c;
    active = c;
    atomic_fetch_add_explicit(&active_count, 1, memory_order_relaxed);
    return cudaSuccess;
}

SIM_API cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = begin(stream, false, NULL, NULL, NULL, 0, mode, false);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                enum cudaStreamCaptureMode mode) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = begin(stream, true, NULL, NULL, NULL, 0, mode, false);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                  const cudaGraphNode_t *dependencies,
                                                  const cudaGraphEdgeData *dependencyData,
                                                  size_t numDependencies,
                                                  enum cudaStreamCaptureMode mode) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = begin(stream, false, graph, dependencies, dependencyData, numDependencies,
                          mode, true);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                       const cudaGraphNode_t *dependencies,
                                                       const cudaGraphEdgeData *dependencyData,
                                                       size_t numDependencies,
                                                       enum cudaStreamCaptureMode mode) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = begin(stream, true, graph, dependencies, dependencyData, numDependencies,
                          mode, true);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

/* Marks (tmp = 1) the nodes from which one of `from` can be reached, `from` included. */
static bool mark_ancestors(sim_graph *g, sim_gnode *const *from, size_t n) {
    sim_gnode **stack = malloc((g->n ? g->n : 1) * sizeof *stack);
    if (stack == NULL)
        return false;
    size_t top = 0;
    for (size_t i = 0; i < n; i++) {
        if (from[i]->tmp != 1) {
            from[i]->tmp = 1;
            stack[top++] = from[i];
        }
    }
    while (top > 0) {
        sim_gnode *x = stack[--top];
        for (size_t j = 0; j < x->nin; j++) {
            if (x->in[j].node->tmp != 1) {
                x->in[j].node->tmp = 1;
                stack[top++] = x->in[j].node;
            }
        }
    }
    free(stack);
    return true;
}

/* Every stream that joined must have been joined back: its dependency set leads into the
 * origin's. */
static bool joined(sim_capture *c) {
    for (size_t i = 0; i < c->graph->n; i++)
        c->graph->nodes[i]->tmp = 0;
    if (!mark_ancestors(c->graph, c->origin->cap_deps, c->origin->cap_ndeps))
        return true; /* cannot tell: out of memory */
    for (int d = 0; d < sim_cfg.device_count; d++)
        for (sim_stream *s = sim_device_streams(d); s; s = s->dev_next)
            if (s->cap == c && s != c->origin)
                for (size_t i = 0; i < s->cap_ndeps; i++)
                    if (s->cap_deps[i]->tmp != 1)
                        return false;
    return true;
}

static cudaError_t end(cudaStream_t stream, bool ptds, cudaGraph_t *pGraph) {
    if (pGraph == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e != cudaSuccess)
        return e;
    sim_capture *c = s->cap;
    if (c == NULL)
        return cudaErrorIllegalState;
    if (c->origin != s) {
        invalidate(c);
        return cudaErrorStreamCaptureUnmatched;
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self()))
        return cudaErrorStreamCaptureWrongThread;
    *pGraph = NULL;
    if (c->invalidated) {
        finish(c, false);
        return cudaErrorStreamCaptureInvalidated;
    }
    if (!joined(c)) {
        finish(c, false);
        return cudaErrorStreamCaptureUnjoined;
    }
    sim_graph *g = c->graph;
    finish(c, true);
    *pGraph = (cudaGraph_t)g;
    return cudaSuccess;
}

SIM_API cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = end(stream, false, pGraph);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = end(stream, true, pGraph);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

static enum cudaStreamCaptureStatus status_of(const sim_stream *s) {
    return s->cap == NULL         ? cudaStreamCaptureStatusNone
           : s->cap->invalidated ? cudaStreamCaptureStatusInvalidated
                                 : cudaStreamCaptureStatusActive;
}

/* Queries never invalidate a capture, not even on the legacy stream. */
static cudaError_t is_capturing(cudaStream_t stream, bool ptds,
                                enum cudaStreamCaptureStatus *status) {
    if (status == NULL)
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess && legacy_conflict(s))
        e = cudaErrorStreamCaptureImplicit;
    if (e == cudaSuccess)
        *status = status_of(s);
    pthread_mutex_unlock(&sim_sched_lock);
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

/* The dependency array returned is the stream's own, valid until the next call on the stream. */
static cudaError_t capture_info(cudaStream_t stream, bool ptds,
                                enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *num_deps) {
    if (status == NULL || (edges && deps == NULL))
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess && legacy_conflict(s))
        e = cudaErrorStreamCaptureImplicit;
    if (e == cudaSuccess) {
        sim_capture *c = s->cap;
        bool live = c && !c->invalidated;
        if (live && deps && edges == NULL)
            for (size_t i = 0; i < s->cap_ndeps && e == cudaSuccess; i++)
                for (size_t k = 0; k < sizeof s->cap_edges[i]; k++)
                    if (((const unsigned char *)&s->cap_edges[i])[k])
                        e = cudaErrorLossyQuery;
        if (e == cudaSuccess) {
            *status = status_of(s);
            if (id)
                *id = c ? c->id : 0;
            if (graph)
                *graph = live ? (cudaGraph_t)c->graph : NULL;
            if (deps)
                *deps = live ? (const cudaGraphNode_t *)s->cap_deps : NULL;
            if (edges)
                *edges = live ? s->cap_edges : NULL;
            if (num_deps)
                *num_deps = live ? s->cap_ndeps : 0;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
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

static cudaError_t update_deps(cudaStream_t stream, bool ptds, cudaGraphNode_t *deps,
                               const cudaGraphEdgeData *edges, size_t n, unsigned flags) {
    if (flags > cudaStreamSetCaptureDependencies || (n > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_stream_resolve(stream, ptds, &s);
    if (e == cudaSuccess && s->cap == NULL)
        e = cudaErrorIllegalState;
    if (e == cudaSuccess && s->cap->invalidated)
        e = cudaErrorStreamCaptureInvalidated;
    for (size_t i = 0; e == cudaSuccess && i < n; i++) {
        sim_gnode *d = sim_gnode_get(deps[i]);
        if (d == NULL || d->graph != s->cap->graph)
            e = cudaErrorInvalidValue;
    }
    if (e == cudaSuccess)
        e = set_deps(s, (sim_gnode *const *)deps, edges, n,
                     flags == cudaStreamAddCaptureDependencies);
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                        cudaGraphNode_t *dependencies,
                                                        const cudaGraphEdgeData *dependencyData,
                                                        size_t numDependencies,
                                                        unsigned int flags) {
    SIM_ENTER();
    return sim_result(
        update_deps(stream, false, dependencies, dependencyData, numDependencies, flags));
}

SIM_API cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(
    cudaStream_t stream, cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, unsigned int flags) {
    SIM_ENTER();
    return sim_result(
        update_deps(stream, true, dependencies, dependencyData, numDependencies, flags));
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
