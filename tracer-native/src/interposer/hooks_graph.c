/* CUDA graphs and stream capture.
 *
 * An executable graph is described when it is made (cudaGraphInstantiate*) or replaced
 * (cudaGraphExecUpdate), by walking the graph it came from with the runtime's own introspection
 * (cudaGraphGetNodes, cudaGraphNodeGetType, the per-kind GetParams, cudaGraphGetEdges): the call's
 * Event carries the head of a GraphExec, and one record per node, and per run of edges, follows it
 * on the thread. A child graph node is expanded in place (see GraphExec in apptrace.proto). The
 * per-node cudaGraphExec*SetParams calls record the node as changed. cudaGraphLaunch records which
 * executable graph ran on which stream; the consumer expands it into the nodes' operations.
 *
 * Work issued to a stream that is being captured is not work: the copy, memset, launch, ... hooks
 * record it with the capture's id (at_capture_id), asked of the runtime once a capture was ever
 * begun in the process.
 *
 * The queries run inside the recursion guard, only when no error is pending, and clear any error
 * they cause, so the program's cudaGetLastError sees what it would untraced. */
#include <sys/mman.h>

#include "graph_record.h"

static _Atomic bool captures_begun;

/* Looks up runtime function `name` once (NULL when the runtime lacks it). */
#define LOOKUP(var, name)                                                    \
    static __typeof__(&name) var;                                            \
    if (var == NULL) var = (__typeof__(&name))at_resolve(#name)

bool at_graph_no_error_pending(void) {
    LOOKUP(peek, cudaPeekAtLastError);
    return peek != NULL && peek() == cudaSuccess;
}

/* A query's result; a failed query's error is taken back (none was pending before it). */
static bool ok(cudaError_t r) {
    if (r != cudaSuccess) {
        LOOKUP(clear, cudaGetLastError);
        if (clear) clear();
    }
    return r == cudaSuccess;
}

uint64_t at_capture_id(uint64_t stream, cudaError_t r) {
    /* the legacy stream is never captured, and asking about it while another stream captures is
     * an error (cudaErrorStreamCaptureImplicit) */
    if (r != cudaSuccess || stream <= 1 || !atomic_load_explicit(&captures_begun, memory_order_relaxed))
        return 0;
    LOOKUP(info, cudaStreamGetCaptureInfo);
    if (info == NULL || !at_graph_no_error_pending()) return 0;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    if (!ok(info((cudaStream_t)(uintptr_t)stream, &status, &id, NULL, NULL, NULL, NULL))) return 0;
    return status == cudaStreamCaptureStatusNone ? 0 : id;
}

/* ---- stream capture ---- */

static void record_capture(at_call *c, cudaError_t r, cudaStream_t s, unsigned mode, cudaGraph_t graph,
                           uint64_t id) {
    enc_stream_capture m = {.stream = at_stream(s), .capture_id = id, .mode = mode,
                            .graph = (uint64_t)(uintptr_t)graph};
    AT_RECORD(c, r, enc_stream_capture_body, &m);
    at_leave(c);
}

static void begun(at_call *c, cudaError_t r, cudaStream_t s, enum cudaStreamCaptureMode mode) {
    if (r == cudaSuccess) atomic_store(&captures_begun, true);
    record_capture(c, r, s, (unsigned)mode, NULL, at_capture_id(at_stream(s), r));
}

#define BEGIN_CAPTURE_HOOK(name)                                                                   \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, enum cudaStreamCaptureMode mode)) {    \
        REAL(name);                                                                                \
        at_call c;                                                                                 \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream, mode);                  \
        cudaError_t r = real_##name(stream, mode);                                                 \
        begun(&c, r, stream, mode);                                                                \
        return r;                                                                                  \
    }
BEGIN_CAPTURE_HOOK(cudaStreamBeginCapture)
BEGIN_CAPTURE_HOOK(cudaStreamBeginCapture_ptsz)

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t *dependencies,
                                               const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                               enum cudaStreamCaptureMode mode);
#define BEGIN_CAPTURE_TO_GRAPH_HOOK(name)                                                          \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, cudaGraph_t graph,                     \
                                      const cudaGraphNode_t *dependencies,                         \
                                      const cudaGraphEdgeData *dependencyData, size_t numDependencies, \
                                      enum cudaStreamCaptureMode mode)) {                          \
        REAL(name);                                                                                \
        at_call c;                                                                                 \
        if (!AT_ENTER(&c, APPTRACE_API_##name))                                                    \
            return real_##name(stream, graph, dependencies, dependencyData, numDependencies, mode); \
        cudaError_t r = real_##name(stream, graph, dependencies, dependencyData, numDependencies, mode); \
        begun(&c, r, stream, mode);                                                                \
        return r;                                                                                  \
    }
BEGIN_CAPTURE_TO_GRAPH_HOOK(cudaStreamBeginCaptureToGraph)
BEGIN_CAPTURE_TO_GRAPH_HOOK(cudaStreamBeginCaptureToGraph_ptsz)

#define END_CAPTURE_HOOK(name)                                                                     \
    APPTRACE_HOOK(name, cudaError_t, (cudaStream_t stream, cudaGraph_t * pGraph)) {               \
        REAL(name);                                                                                \
        at_call c;                                                                                 \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(stream, pGraph);                \
        /* the capture's id, asked before it ends */                                               \
        uint64_t id = at_capture_id(at_stream(stream), cudaSuccess);                               \
        cudaError_t r = real_##name(stream, pGraph);                                               \
        record_capture(&c, r, stream, 0, r == cudaSuccess && pGraph ? *pGraph : NULL, id);         \
        return r;                                                                                  \
    }
END_CAPTURE_HOOK(cudaStreamEndCapture)
END_CAPTURE_HOOK(cudaStreamEndCapture_ptsz)

/* ---- describing a graph ---- */

/* Scratch memory for node and edge lists: mmap'd, never the program's allocator. */
typedef struct {
    void *p;
    size_t bytes;
} scratch;

static void *scratch_get(scratch *s, size_t bytes) {
    if (bytes == 0) bytes = 1;
    s->bytes = (bytes + 4095) & ~(size_t)4095;
    s->p = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return s->p == MAP_FAILED ? (s->p = NULL) : s->p;
}

static void scratch_put(scratch *s) {
    if (s->p) munmap(s->p, s->bytes);
}

#define MAX_NODES 65536u

#define EDGES_PER_RECORD 1024



static int node_kind(enum cudaGraphNodeType t) {
    return (int)t + 1; /* GraphNodeKind numbers cudaGraphNodeType + 1 */
}

/* One record of a GraphExec continuation holding node `n`. */
void at_graph_emit_node(const at_graph_walk *wk, const enc_graph_node *n, bool replace, at_call *c, cudaError_t r) {
    at_event e;
    bool ok_ = c != NULL ? at_begin(&e, c, (int)r) : at_begin_record(&e, at_now_ns());
    if (!ok_) return;
    enc_graph_exec h = {.exec = (uint64_t)(uintptr_t)wk->exec, .part = true, .replace = replace,
                        .device = at_tls.device};
    uint8_t *head = enc_graph_exec_begin(&e.w, &h);
    enc_graph_node_write(&e.w, n);
    enc_graph_exec_end(&e.w, head);
    at_commit(&e);
}

void at_graph_kernel(const struct cudaKernelNodeParams *p, enc_launch *m, uint8_t *blob) {
    *m = (enc_launch){.grid_x = p->gridDim.x, .grid_y = p->gridDim.y, .grid_z = p->gridDim.z,
                      .block_x = p->blockDim.x, .block_y = p->blockDim.y, .block_z = p->blockDim.z,
                      .shared_mem_bytes = p->sharedMemBytes, .device = at_tls.device};
    at_launch_args(m, p->func, p->kernelParams, blob);
}

void at_graph_copy(const struct cudaMemcpy3DParms *p, enc_copy *m) {
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    size_t w = p->extent.width, h = p->extent.height ? p->extent.height : 1, dep = p->extent.depth ? p->extent.depth : 1;
    uint64_t src = p->srcArray ? 0 : (uint64_t)(uintptr_t)s->ptr + p->srcPos.x +
                                         (p->srcPos.y + p->srcPos.z * s->ysize) * s->pitch;
    uint64_t dst = p->dstArray ? 0 : (uint64_t)(uintptr_t)d->ptr + p->dstPos.x +
                                         (p->dstPos.y + p->dstPos.z * d->ysize) * d->pitch;
    *m = (enc_copy){.dst = dst, .src = src, .bytes = (uint64_t)w * h * dep, .async = true,
                    .device = at_tls.device};
    if (h > 1 || dep > 1) {
        m->dims = dep > 1 ? 3 : 2;
        m->dpitch = d->pitch;
        m->spitch = s->pitch;
        m->width = w;
        m->height = h;
        m->depth = dep > 1 ? dep : 0;
    } else {
        m->dims = 1;
    }
    at_copy_kinds(m, p->kind, (const void *)(uintptr_t)dst, (const void *)(uintptr_t)src);
}

void at_graph_memset(const struct cudaMemsetParams *p, enc_memset *m) {
    size_t h = p->height ? p->height : 1;
    size_t row = (size_t)p->width * p->elementSize;
    *m = (enc_memset){.ptr = (uint64_t)(uintptr_t)p->dst, .value = (int32_t)p->value, .bytes = row * h,
                      .async = true, .dims = h > 1 ? 2 : 1, .device = at_tls.device};
    if (h > 1) {
        m->pitch = p->pitch;
        m->width = row;
        m->height = h;
    }
}

static void walk_graph(at_graph_walk *wk, cudaGraph_t g, uint64_t parent, int depth);

/* Describes node `n` of a graph (parent: the child graph node whose graph holds it, or 0). */
void at_graph_walk_node(at_graph_walk *wk, cudaGraphNode_t n, uint64_t parent, int depth) {
    LOOKUP(type_of, cudaGraphNodeGetType);
    LOOKUP(kparams, cudaGraphKernelNodeGetParams);
    LOOKUP(cparams, cudaGraphMemcpyNodeGetParams);
    LOOKUP(sparams, cudaGraphMemsetNodeGetParams);
    LOOKUP(hparams, cudaGraphHostNodeGetParams);
    LOOKUP(child_of, cudaGraphChildGraphNodeGetGraph);
    LOOKUP(rec_event, cudaGraphEventRecordNodeGetEvent);
    LOOKUP(wait_event, cudaGraphEventWaitNodeGetEvent);
    LOOKUP(aparams, cudaGraphMemAllocNodeGetParams);
    LOOKUP(fparams, cudaGraphMemFreeNodeGetParams);
    LOOKUP(enabled, cudaGraphNodeGetEnabled);
    enum cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    cudaError_t r = type_of ? type_of(n, &t) : cudaErrorSharedObjectSymbolNotFound;
    if (!ok(r)) t = cudaGraphNodeTypeEmpty;
    wk->nodes++;
    cudaGraph_t child = NULL;
    if (t == cudaGraphNodeTypeGraph && depth < MAX_DEPTH && child_of && !ok(child_of(n, &child))) child = NULL;
    if (wk->count_only) {
        if (child != NULL) {
            wk->nodes++; /* its end */
            walk_graph(wk, child, (uint64_t)(uintptr_t)n, depth + 1);
        }
        return;
    }
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)n, .parent = parent, .kind = node_kind(t), .query_error = r};
    enc_launch launch;
    enc_copy copy;
    enc_memset set;
    uint8_t blob[ENC_MAX_LAUNCH_ARGS];
    if (t == cudaGraphNodeTypeKernel) {
        struct cudaKernelNodeParams p;
        if (kparams && ok(r = kparams(n, &p))) {
            at_graph_kernel(&p, &launch, blob);
            m.launch = &launch;
        }
    } else if (t == cudaGraphNodeTypeMemcpy) {
        struct cudaMemcpy3DParms p;
        if (cparams && ok(r = cparams(n, &p))) {
            at_graph_copy(&p, &copy);
            m.copy = &copy;
        }
    } else if (t == cudaGraphNodeTypeMemset) {
        struct cudaMemsetParams p;
        if (sparams && ok(r = sparams(n, &p))) {
            at_graph_memset(&p, &set);
            m.memset = &set;
        }
    } else if (t == cudaGraphNodeTypeHost) {
        struct cudaHostNodeParams p;
        if (hparams && ok(r = hparams(n, &p))) {
            m.host_function = (uint64_t)(uintptr_t)p.fn;
            m.user_data = (uint64_t)(uintptr_t)p.userData;
        }
    } else if (t == cudaGraphNodeTypeEventRecord || t == cudaGraphNodeTypeWaitEvent) {
        cudaEvent_t ev = NULL;
        __typeof__(rec_event) get = t == cudaGraphNodeTypeEventRecord ? rec_event : wait_event;
        if (get && ok(r = get(n, &ev))) m.event = (uint64_t)(uintptr_t)ev;
    } else if (t == cudaGraphNodeTypeMemAlloc) {
        struct cudaMemAllocNodeParams p;
        if (aparams && ok(r = aparams(n, &p))) {
            m.ptr = (uint64_t)(uintptr_t)p.dptr;
            m.bytes = p.bytesize;
        }
    } else if (t == cudaGraphNodeTypeMemFree) {
        void *p = NULL;
        if (fparams && ok(r = fparams(n, &p))) m.ptr = (uint64_t)(uintptr_t)p;
    }
    m.query_error = r;
    if (parent == 0 && enabled != NULL &&
        (t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeMemcpy || t == cudaGraphNodeTypeMemset)) {
        unsigned on = 1;
        if (ok(enabled(wk->exec, n, &on))) m.disabled = on == 0;
    }
    at_graph_emit_node(wk, &m, wk->replace, NULL, cudaSuccess);
    if (child != NULL) {
        enc_graph_node end = {.id = m.id + 1, .parent = parent, .kind = PB_GraphNodeKind_GRAPH_EMPTY};
        walk_graph(wk, child, m.id, depth + 1);
        at_graph_emit_node(wk, &end, false, NULL, cudaSuccess);
        wk->nodes++;
    }
}

/* The node an edge from `n` leaves: a child graph node's end. */
static uint64_t edge_source(cudaGraphNode_t n) {
    LOOKUP(type_of, cudaGraphNodeGetType);
    enum cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
    bool child = type_of && ok(type_of(n, &t)) && t == cudaGraphNodeTypeGraph;
    return (uint64_t)(uintptr_t)n + (child ? 1 : 0);
}

/* Whether `n` has no dependencies (root) or no dependents (leaf). */
static bool endpoint(cudaGraphNode_t n, bool root) {
    LOOKUP(deps_of, cudaGraphNodeGetDependencies);
    LOOKUP(dependents_of, cudaGraphNodeGetDependentNodes);
    __typeof__(deps_of) q = root ? deps_of : dependents_of;
    size_t count = 0;
    return q != NULL && ok(q(n, NULL, NULL, &count)) && count == 0;
}

/* Edges of `g` and, for a child graph, from its parent node to its roots and from its leaves to
 * the parent's end; written in records of at most EDGES_PER_RECORD. */
typedef struct {
    at_graph_walk *wk;
    at_event e;
    uint8_t *head;
    int in_record;
} edge_writer;

static void edge(edge_writer *ew, uint64_t from, uint64_t to) {
    ew->wk->edges++;
    if (ew->wk->count_only) return;
    if (ew->in_record == 0) {
        if (!at_begin_record(&ew->e, at_now_ns())) return;
        enc_graph_exec h = {.exec = (uint64_t)(uintptr_t)ew->wk->exec, .part = true, .device = at_tls.device};
        ew->head = enc_graph_exec_begin(&ew->e.w, &h);
    }
    enc_graph_edge(&ew->e.w, from, to);
    if (++ew->in_record == EDGES_PER_RECORD) {
        enc_graph_exec_end(&ew->e.w, ew->head);
        at_commit(&ew->e);
        ew->in_record = 0;
    }
}

static void walk_edges(at_graph_walk *wk, cudaGraph_t g, uint64_t parent, cudaGraphNode_t *nodes, size_t nn) {
    LOOKUP(get_edges, cudaGraphGetEdges);
    size_t ne = 0;
    if (get_edges == NULL || !ok(get_edges(g, NULL, NULL, NULL, &ne))) ne = 0;
    scratch sf = {0}, st = {0};
    cudaGraphNode_t *from = ne ? scratch_get(&sf, ne * sizeof *from) : NULL;
    cudaGraphNode_t *to = ne ? scratch_get(&st, ne * sizeof *to) : NULL;
    if (ne && (from == NULL || to == NULL || !ok(get_edges(g, from, to, NULL, &ne)))) ne = 0;
    edge_writer ew = {.wk = wk};
    for (size_t i = 0; i < ne; i++) {
        edge(&ew, wk->count_only ? 0 : edge_source(from[i]), (uint64_t)(uintptr_t)to[i]);
    }
    for (size_t i = 0; parent != 0 && i < nn; i++) {
        if (endpoint(nodes[i], true)) edge(&ew, parent, (uint64_t)(uintptr_t)nodes[i]);
        if (endpoint(nodes[i], false)) edge(&ew, wk->count_only ? 0 : edge_source(nodes[i]), parent + 1);
    }
    if (ew.in_record > 0) {
        enc_graph_exec_end(&ew.e.w, ew.head);
        at_commit(&ew.e);
    }
    scratch_put(&sf);
    scratch_put(&st);
}

static void walk_graph(at_graph_walk *wk, cudaGraph_t g, uint64_t parent, int depth) {
    LOOKUP(get_nodes, cudaGraphGetNodes);
    size_t nn = 0;
    if (get_nodes == NULL || !ok(get_nodes(g, NULL, &nn))) return;
    scratch s = {0};
    cudaGraphNode_t *nodes = nn ? scratch_get(&s, nn * sizeof *nodes) : NULL;
    if (nn && (nodes == NULL || !ok(get_nodes(g, nodes, &nn)))) nn = 0;
    for (size_t i = 0; i < nn; i++) {
        if (wk->nodes >= MAX_NODES) {
            wk->not_recorded++;
            continue;
        }
        at_graph_walk_node(wk, nodes[i], parent, depth);
    }
    walk_edges(wk, g, parent, nodes, nn);
    scratch_put(&s);
}

/* Records the call that made or replaced `exec` from `graph`, then the graph's nodes and edges. */
static void describe(at_call *c, cudaError_t r, cudaGraphExec_t exec, cudaGraph_t graph) {
    at_graph_walk wk = {.exec = exec};
    bool can = r == cudaSuccess && exec != NULL && at_graph_no_error_pending();
    if (can) {
        at_graph_walk count = {.exec = exec, .count_only = true};
        walk_graph(&count, graph, 0, 0);
        wk.nodes = count.nodes > MAX_NODES ? MAX_NODES : count.nodes;
        wk.edges = count.edges;
        wk.not_recorded = count.nodes > MAX_NODES ? count.nodes - MAX_NODES : 0;
    }
    at_event e;
    if (at_begin(&e, c, (int)r)) {
        enc_graph_exec h = {.exec = (uint64_t)(uintptr_t)exec, .graph = (uint64_t)(uintptr_t)graph,
                            .device = at_tls.device, .node_count = can ? wk.nodes : 0,
                            .edge_count = can ? wk.edges : 0, .nodes_not_recorded = wk.not_recorded};
        uint8_t *head = enc_graph_exec_begin(&e.w, &h);
        enc_graph_exec_end(&e.w, head);
        at_commit(&e);
    }
    if (can) {
        wk.nodes = wk.edges = wk.not_recorded = 0;
        walk_graph(&wk, graph, 0, 0);
    }
    at_leave(c);
}

#define INSTANTIATE_HOOK(name, flags_t)                                                            \
    APPTRACE_HOOK(name, cudaError_t, (cudaGraphExec_t * pGraphExec, cudaGraph_t graph, flags_t flags)) { \
        REAL(name);                                                                                \
        at_call c;                                                                                 \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(pGraphExec, graph, flags);      \
        cudaError_t r = real_##name(pGraphExec, graph, flags);                                     \
        describe(&c, r, r == cudaSuccess && pGraphExec ? *pGraphExec : NULL, graph);               \
        return r;                                                                                  \
    }
INSTANTIATE_HOOK(cudaGraphInstantiate, unsigned long long)
INSTANTIATE_HOOK(cudaGraphInstantiateWithFlags, unsigned long long)
INSTANTIATE_HOOK(cudaGraphInstantiateWithParams, cudaGraphInstantiateParams *)

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *instantiateParams);
INSTANTIATE_HOOK(cudaGraphInstantiateWithParams_ptsz, cudaGraphInstantiateParams *)

APPTRACE_HOOK(cudaGraphExecUpdate, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                                 cudaGraphExecUpdateResultInfo *resultInfo)) {
    REAL(cudaGraphExecUpdate);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecUpdate)) return real_cudaGraphExecUpdate(hGraphExec, hGraph, resultInfo);
    cudaError_t r = real_cudaGraphExecUpdate(hGraphExec, hGraph, resultInfo);
    describe(&c, r, r == cudaSuccess ? hGraphExec : NULL, hGraph);
    return r;
}

/* ---- launches ---- */

#define GRAPH_LAUNCH_HOOK(name)                                                                    \
    APPTRACE_HOOK(name, cudaError_t, (cudaGraphExec_t graphExec, cudaStream_t stream)) {          \
        REAL(name);                                                                                \
        at_call c;                                                                                 \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name(graphExec, stream);             \
        cudaError_t r = real_##name(graphExec, stream);                                            \
        enc_graph_launch m = {.exec = (uint64_t)(uintptr_t)graphExec, .stream = at_stream(stream), \
                              .device = at_tls.device, .capture_id = at_capture_id(at_stream(stream), r)}; \
        AT_RECORD(&c, r, enc_graph_launch_body, &m);                                               \
        at_leave(&c);                                                                              \
        return r;                                                                                  \
    }
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
GRAPH_LAUNCH_HOOK(cudaGraphLaunch)
GRAPH_LAUNCH_HOOK(cudaGraphLaunch_ptsz)
