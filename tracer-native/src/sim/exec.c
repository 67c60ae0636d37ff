/* Executable graphs: instantiation, launch, update and the per-node cudaGraphExec*SetParams.
 *
 * An executable graph holds its own copy of the graph it was made from (a "shadow": nodes
 * without handles, each knowing the id of the node it copies, which is how the program names
 * them), and a launch plan: the nodes, child graphs expanded, in an order that puts every node
 * after its dependencies, each assigned to a lane. A lane is an internal stream of the launch's
 * device; a chain of nodes that depend on each other shares one, branches get lanes of their own,
 * so independent nodes overlap in simulated time as far as their engines allow. A launch submits
 * every node's operation to its lane through the scheduler like any stream work (sched.c), after
 * waits for its dependencies on other lanes; the roots wait for a marker recorded on the launch
 * stream (so the graph starts after the work before it) and the launch stream waits for every
 * sink (so the work after it waits for the whole graph). All of a launch's operations are
 * submitted at the time of the call, and the simulator's own time spent submitting them is not
 * the host's: a launch costs the host what one kernel launch costs, whatever its size.
 *
 * Copies and memsets move real bytes when their lane reaches them, host nodes call their function
 * on the simulator's worker thread, kernels take their modeled time and do nothing. */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    sim_gnode *node; /* in the shadow graph; for a child graph node, its begin and end points */
    bool join;       /* a child graph's begin or end: no operation */
    size_t *deps;
    size_t ndeps;
    size_t lane;
    bool signal; /* a dependent runs on another lane, or nothing depends on it: record its end */
    bool sink;
} xentry;

typedef struct {
    unsigned long long flags;
    sim_graph *shadow;
    sim_graph *source; /* the graph it was made from, and that graph's id (it may be gone) */
    unsigned long long source_id;
    xentry *e;
    size_t n, cap;
    size_t nlanes;
    sim_stream **lanes[SIM_MAX_DEVICES];
    sim_marker *done; /* end of the last launch, on its stream */
} sim_exec;

static sim_ptrmap execs;

#define VALID_FLAGS                                                                                \
    ((unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |                               \
                          cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagDeviceLaunch |  \
                          cudaGraphInstantiateFlagUseNodePriority))

static sim_exec *exec_get(cudaGraphExec_t h) {
    return h ? sim_ptrmap_get(&execs, h) : NULL;
}

static void exec_free(sim_exec *x) {
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        if (x->lanes[d]) {
            for (size_t i = 0; i < x->nlanes; i++)
                if (x->lanes[d][i])
                    sim_sched_release_stream(x->lanes[d][i]); /* queued work still runs */
            free(x->lanes[d]);
        }
    }
    for (size_t i = 0; i < x->n; i++)
        free(x->e[i].deps);
    free(x->e);
    sim_marker_unref(x->done);
    sim_graph *src = sim_graph_get((cudaGraph_t)x->source);
    if (src && src->id == x->source_id)
        src->execs--;
    sim_graph_free(x->shadow);
    free(x);
}

/* ---- the launch plan ----------------------------------------------------------------------- */

static int push_entry(sim_exec *x, sim_gnode *node, bool join, const size_t *deps, size_t n) {
    if (x->n == x->cap) {
        size_t c = x->cap ? x->cap * 2 : 16;
        xentry *ne = realloc(x->e, c * sizeof *ne);
        if (ne == NULL)
            return -1;
        x->e = ne;
        x->cap = c;
    }
    xentry *e = &x->e[x->n];
    memset(e, 0, sizeof *e);
    e->node = node;
    e->join = join;
    if (n) {
        if ((e->deps = malloc(n * sizeof *e->deps)) == NULL)
            return -1;
        memcpy(e->deps, deps, n * sizeof *deps);
    }
    e->ndeps = n;
    x->n++;
    return 0;
}

/* Appends g's nodes in dependency order; roots depend on `start` (entries). A child graph node
 * becomes a begin point, its graph, and an end point that stands for it. */
static int flatten(sim_exec *x, sim_graph *g, const size_t *start, size_t nstart) {
    sim_gnode *bad;
    sim_gnode **order = sim_graph_topo(g, &bad);
    size_t *exit_of = malloc((g->n ? g->n : 1) * sizeof *exit_of);
    size_t *deps = NULL, cap = 0;
    int rc = order && exit_of ? 0 : -1;
    for (size_t i = 0; i < g->n; i++)
        g->nodes[i]->tmp = i;
    for (size_t k = 0; rc == 0 && k < g->n; k++) {
        sim_gnode *n = order[k];
        size_t nd = n->nin ? n->nin : nstart;
        if (nd > cap) {
            size_t *nd_ = realloc(deps, nd * sizeof *deps);
            if (nd_ == NULL) {
                rc = -1;
                break;
            }
            deps = nd_;
            cap = nd;
        }
        for (size_t j = 0; j < n->nin; j++)
            deps[j] = exit_of[n->in[j].node->tmp];
        if (n->nin == 0 && nstart)
            memcpy(deps, start, nstart * sizeof *deps);
        if (n->type != cudaGraphNodeTypeGraph) {
            rc = push_entry(x, n, false, deps, nd);
            exit_of[n->tmp] = x->n - 1;
            continue;
        }
        if ((rc = push_entry(x, n, true, deps, nd)) != 0)
            break;
        size_t begin = x->n - 1, first = x->n;
        sim_graph *child = n->u.child;
        if ((rc = flatten(x, child, &begin, 1)) != 0)
            break;
        /* the end waits for the child's sinks: entries of the child with no dependents there */
        size_t nsinks = 0, span = x->n - first;
        size_t *sinks = malloc((span + 1) * sizeof *sinks);
        bool *depended = calloc(span + 1, sizeof *depended);
        if (sinks == NULL || depended == NULL) {
            free(sinks);
            free(depended);
            rc = -1;
            break;
        }
        for (size_t j = first; j < x->n; j++)
            for (size_t d = 0; d < x->e[j].ndeps; d++)
                if (x->e[j].deps[d] >= first)
                    depended[x->e[j].deps[d] - first] = true;
        for (size_t i = 0; i < span; i++)
            if (!depended[i])
                sinks[nsinks++] = first + i;
        if (nsinks == 0)
            sinks[nsinks++] = begin;
        rc = push_entry(x, n, true, sinks, nsinks);
        free(sinks);
        free(depended);
        for (size_t i = 0; i < g->n; i++) /* the child's flattening reused tmp */
            g->nodes[i]->tmp = i;
        exit_of[n->tmp] = x->n - 1;
    }
    free(deps);
    free(exit_of);
    free(order);
    return rc;
}

/* Lanes: a node continues the lane of a dependency that is that lane's latest node; otherwise it
 * opens a lane. */
static int assign_lanes(sim_exec *x) {
    size_t *tail = malloc((x->n ? x->n : 1) * sizeof *tail);
    size_t *dependents = calloc(x->n ? x->n : 1, sizeof *dependents);
    if (tail == NULL || dependents == NULL) {
        free(tail);
        free(dependents);
        return -1;
    }
    x->nlanes = 0;
    for (size_t i = 0; i < x->n; i++) {
        xentry *e = &x->e[i];
        size_t lane = SIZE_MAX;
        for (size_t d = 0; d < e->ndeps && lane == SIZE_MAX; d++)
            if (tail[x->e[e->deps[d]].lane] == e->deps[d])
                lane = x->e[e->deps[d]].lane;
        if (lane == SIZE_MAX)
            lane = x->nlanes++;
        e->lane = lane;
        tail[lane] = i;
        for (size_t d = 0; d < e->ndeps; d++) {
            dependents[e->deps[d]]++;
            if (x->e[e->deps[d]].lane != lane)
                x->e[e->deps[d]].signal = true;
        }
    }
    for (size_t i = 0; i < x->n; i++)
        if (dependents[i] == 0)
            x->e[i].sink = x->e[i].signal = true;
    free(tail);
    free(dependents);
    return 0;
}

/* A cycle anywhere (child graphs included) makes the graph impossible to instantiate. */
static sim_gnode *find_cycle(sim_graph *g) {
    sim_gnode *bad = NULL;
    sim_gnode **order = sim_graph_topo(g, &bad);
    if (order == NULL)
        return bad ? bad : g->n ? g->nodes[0] : NULL;
    free(order);
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->type == cudaGraphNodeTypeGraph && (bad = find_cycle(g->nodes[i]->u.child)))
            return bad;
    return NULL;
}

/* Graphs for device launch: kernels, copies, memsets and child graphs, on one device, and some
 * work (CUDA's rules; the simulated device never launches them from device code). */
static sim_gnode *device_launch_problem(sim_graph *g, int *device, bool *work,
                                        cudaGraphInstantiateResult *why) {
    for (size_t i = 0; i < g->n; i++) {
        sim_gnode *n = g->nodes[i];
        switch (n->type) {
        case cudaGraphNodeTypeGraph: {
            sim_gnode *bad = device_launch_problem(n->u.child, device, work, why);
            if (bad)
                return bad;
            continue;
        }
        case cudaGraphNodeTypeKernel:
        case cudaGraphNodeTypeMemcpy:
        case cudaGraphNodeTypeMemset:
            *work = true;
            break;
        default:
            *why = cudaGraphInstantiateNodeOperationNotSupported;
            return n;
        }
        if (*device >= 0 && n->device != *device) {
            *why = cudaGraphInstantiateMultipleDevicesNotSupported;
            return n;
        }
        *device = n->device;
    }
    return NULL;
}

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t graph, unsigned long long flags,
                               bool with_params, cudaGraphInstantiateResult *result,
                               cudaGraphNode_t *err_node) {
    *result = cudaGraphInstantiateError;
    *err_node = NULL;
    if (out == NULL || (flags & ~VALID_FLAGS))
        return cudaErrorInvalidValue;
    if ((flags & cudaGraphInstantiateFlagUpload) && !with_params)
        return cudaErrorInvalidValue;
    if ((flags & cudaGraphInstantiateFlagDeviceLaunch) &&
        (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
        return cudaErrorInvalidValue;
    sim_graph *g = sim_graph_get(graph);
    if (g == NULL || g->parent)
        return cudaErrorInvalidValue;
    if (g->mem_nodes > 0 && g->execs > 0)
        return cudaErrorInvalidValue; /* one executable graph at a time for memory nodes */
    sim_gnode *bad = find_cycle(g);
    if (bad) {
        *result = cudaGraphInstantiateInvalidStructure;
        *err_node = (cudaGraphNode_t)bad;
        return cudaErrorInvalidValue;
    }
    if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
        int device = -1;
        bool work = false;
        cudaGraphInstantiateResult why = cudaGraphInstantiateError;
        bad = device_launch_problem(g, &device, &work, &why);
        if (bad || !work) {
            *result = bad ? why : cudaGraphInstantiateInvalidStructure;
            *err_node = (cudaGraphNode_t)bad;
            return cudaErrorInvalidValue;
        }
    }
    cudaError_t e;
    sim_exec *x = calloc(1, sizeof *x);
    if (x == NULL)
        return cudaErrorMemoryAllocation;
    x->flags = flags & ~(unsigned long long)cudaGraphInstantiateFlagUpload;
    x->shadow = sim_graph_clone(g, true, &e);
    if (x->shadow == NULL) {
        free(x);
        return e;
    }
    x->source = g;
    x->source_id = g->id;
    g->execs++;
    if (flatten(x, x->shadow, NULL, 0) != 0 || assign_lanes(x) != 0 ||
        sim_ptrmap_put(&execs, x, x) != 0) {
        exec_free(x);
        return cudaErrorMemoryAllocation;
    }
    *result = cudaGraphInstantiateSuccess;
    *out = (cudaGraphExec_t)x;
    return cudaSuccess;
}

SIM_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                         unsigned long long flags) {
    SIM_ENTER();
    cudaGraphInstantiateResult r;
    cudaGraphNode_t bad;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = instantiate(pGraphExec, graph, flags, false, &r, &bad);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                  unsigned long long flags) {
    SIM_ENTER();
    cudaGraphInstantiateResult r;
    cudaGraphNode_t bad;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = instantiate(pGraphExec, graph, flags, false, &r, &bad);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

static cudaError_t upload(sim_exec *x, cudaStream_t stream, bool ptds);

static cudaError_t instantiate_with_params(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *p, bool ptds) {
    if (p == NULL)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = instantiate(pGraphExec, graph, p->flags, true, &p->result_out, &p->errNode_out);
    if (e == cudaSuccess && (p->flags & cudaGraphInstantiateFlagUpload)) {
        sim_exec *x = exec_get(*pGraphExec);
        e = upload(x, p->uploadStream, ptds);
        if (e != cudaSuccess) {
            sim_ptrmap_remove(&execs, x);
            exec_free(x);
            p->result_out = cudaGraphInstantiateError;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                   cudaGraphInstantiateParams *instantiateParams) {
    SIM_ENTER();
    return sim_result(instantiate_with_params(pGraphExec, graph, instantiateParams, false));
}

SIM_API cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec,
                                                        cudaGraph_t graph,
                                                        cudaGraphInstantiateParams *params) {
    SIM_ENTER();
    return sim_result(instantiate_with_params(pGraphExec, graph, params, true));
}

SIM_API cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags) {
    SIM_ENTER();
    if (flags == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_exec *x = exec_get(graphExec);
    if (x)
        *flags = x->flags;
    pthread_mutex_unlock(&sim_sched_lock);
    return x ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

/* Work a launch may have queued still runs; the handle is invalid at once. */
SIM_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_exec *x = sim_ptrmap_remove(&execs, graphExec);
    if (x)
        exec_free(x);
    pthread_mutex_unlock(&sim_sched_lock);
    return x ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

/* ---- launch -------------------------------------------------------------------------------- */

/* The operation an entry submits, if any (*run), checked against the memory as it is now. */
static cudaError_t plan_entry(const xentry *e, int device, sim_op *op, bool *run) {
    memset(op, 0, sizeof *op);
    op->engine = op->peer_device = -1;
    *run = false;
    if (e->join)
        return cudaSuccess;
    sim_gnode *n = e->node;
    switch (n->type) {
    case cudaGraphNodeTypeKernel:
        op->kind = SIM_OP_KERNEL;
        op->engine_device = device;
        op->engine = SIM_ENGINE_COMPUTE;
        op->duration_ns = sim_kernel_duration();
        *run = n->enabled;
        return cudaSuccess;
    case cudaGraphNodeTypeMemcpy:
        *run = n->enabled;
        return sim_copy_plan(&n->u.copy.x, n->u.copy.p.kind, device, true, op);
    case cudaGraphNodeTypeMemset:
        *run = n->enabled;
        return sim_memset_plan(&n->u.memset.x, device, true, op, NULL);
    case cudaGraphNodeTypeHost:
        op->kind = SIM_OP_HOST_FN;
        op->host_fn = n->u.host.fn;
        op->user = n->u.host.userData;
        *run = true;
        return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent:
        return sim_event_get(n->u.event) ? cudaSuccess : cudaErrorInvalidValue; /* destroyed */
    case cudaGraphNodeTypeMemAlloc:
        op->kind = SIM_OP_GRAPH_MAP;
        op->free_ptr = n->u.alloc.mem->addr;
        *run = true;
        return cudaSuccess;
    case cudaGraphNodeTypeMemFree:
        op->kind = SIM_OP_FREE;
        op->free_ptr = n->u.free_ptr;
        *run = true;
        return cudaSuccess;
    default:
        return cudaSuccess;
    }
}

/* Graph memory at launch: each alloc node allocates (its allocation must not be allocated still,
 * unless the graph frees it first with cudaGraphInstantiateFlagAutoFreeOnLaunch), each free node
 * frees (its allocation must be allocated by then), and the device must have room. Checked for
 * the whole graph first, then applied. */
static cudaError_t check_graph_memory(sim_exec *x, bool apply) {
    size_t need[SIM_MAX_DEVICES] = {0};
    bool *state = NULL;
    cudaError_t e = cudaSuccess;
    for (size_t i = 0; i < x->n; i++) {
        const sim_gnode *n = x->e[i].node;
        if (x->e[i].join || (n->type != cudaGraphNodeTypeMemAlloc &&
                             n->type != cudaGraphNodeTypeMemFree))
            continue;
        if (state == NULL) { /* outstanding state per entry, as the launch goes */
            state = calloc(x->n, sizeof *state);
            if (state == NULL)
                return cudaErrorMemoryAllocation;
        }
        sim_gmem *m = n->type == cudaGraphNodeTypeMemAlloc ? n->u.alloc.mem
                                                          : sim_gmem_find(n->u.free_ptr);
        if (m == NULL) {
            e = cudaErrorInvalidValue;
            break;
        }
        bool outstanding = m->outstanding;
        for (size_t j = 0; j < i; j++) { /* what earlier nodes of this launch did to it */
            const sim_gnode *p = x->e[j].node;
            if (x->e[j].join)
                continue;
            if ((p->type == cudaGraphNodeTypeMemAlloc && p->u.alloc.mem == m) ||
                (p->type == cudaGraphNodeTypeMemFree && p->u.free_ptr == m->addr))
                outstanding = state[j];
        }
        if (n->type == cudaGraphNodeTypeMemAlloc) {
            if (outstanding && !(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch)) {
                e = cudaErrorInvalidValue;
                break;
            }
            bool mapped = false;
            pthread_mutex_lock(&sim_mem_lock);
            sim_graph_mem_is_graph(m->addr, &mapped);
            size_t avail = sim_graph_mem_available(m->device);
            pthread_mutex_unlock(&sim_mem_lock);
            if (!mapped && (need[m->device] += m->size) > avail) {
                e = cudaErrorMemoryAllocation;
                break;
            }
            state[i] = true;
        } else {
            if (!outstanding) {
                e = cudaErrorInvalidValue; /* freeing what is not allocated */
                break;
            }
            state[i] = false;
        }
        if (apply)
            m->outstanding = state[i];
    }
    free(state);
    return e;
}

/* Allocations of this graph still allocated from an earlier launch, freed first with
 * cudaGraphInstantiateFlagAutoFreeOnLaunch: as though cudaFreeAsync were called on the stream. */
static cudaError_t auto_free(sim_exec *x, sim_stream *s, uint64_t now) {
    if (!(x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch))
        return cudaSuccess;
    for (size_t i = 0; i < x->n; i++) {
        const sim_gnode *n = x->e[i].node;
        if (x->e[i].join || n->type != cudaGraphNodeTypeMemAlloc || !n->u.alloc.mem->outstanding)
            continue;
        sim_op op = {0};
        op.kind = SIM_OP_FREE;
        op.engine = op.peer_device = -1;
        op.free_ptr = n->u.alloc.mem->addr;
        cudaError_t e = sim_submit_at(s, &op, now);
        if (e != cudaSuccess)
            return e;
        n->u.alloc.mem->outstanding = false;
    }
    return cudaSuccess;
}

static cudaError_t submit_record(sim_stream *s, sim_marker **out, bool internal, uint64_t now) {
    sim_marker *m = sim_marker_new();
    if (m == NULL)
        return cudaErrorMemoryAllocation;
    sim_op op = {0};
    op.kind = SIM_OP_RECORD;
    op.engine = op.peer_device = -1;
    op.internal = internal;
    op.marker = m;
    sim_marker_ref(m);
    cudaError_t e = sim_submit_at(s, &op, now);
    if (e != cudaSuccess) {
        free(m);
        return e;
    }
    *out = m;
    return cudaSuccess;
}

static cudaError_t submit_wait(sim_stream *s, sim_marker *m, uint64_t now) {
    sim_op op = {0};
    op.kind = SIM_OP_WAIT;
    op.engine = op.peer_device = -1;
    op.marker = m;
    sim_marker_ref(m);
    cudaError_t e = sim_submit_at(s, &op, now);
    if (e != cudaSuccess)
        sim_marker_unref(m);
    return e;
}

static cudaError_t ensure_lanes(sim_exec *x, int device) {
    if (x->nlanes == 0)
        return cudaSuccess;
    if (x->lanes[device] == NULL &&
        (x->lanes[device] = calloc(x->nlanes, sizeof *x->lanes[device])) == NULL)
        return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < x->nlanes; i++)
        if (x->lanes[device][i] == NULL &&
            (x->lanes[device][i] = sim_internal_stream(device)) == NULL)
            return cudaErrorMemoryAllocation;
    return cudaSuccess;
}

/* Records a graph's event record node: the event's new marker, as cudaEventRecord would. */
static cudaError_t record_event(sim_stream *lane, cudaEvent_t handle, uint64_t now) {
    sim_event *ev = sim_event_get(handle);
    sim_marker *m;
    cudaError_t e = submit_record(lane, &m, false, now);
    if (e == cudaSuccess) {
        sim_capture_event_gone(ev); /* no longer captured: recorded for real */
        sim_marker_unref(ev->marker);
        ev->marker = m;
    }
    return e;
}

static cudaError_t run_graph(sim_exec *x, sim_stream *s) {
    int device = s->device;
    uint64_t now = sim_now_ns();
    sim_op *ops = calloc(x->n ? x->n : 1, sizeof *ops);
    bool *run = calloc(x->n ? x->n : 1, sizeof *run);
    sim_marker **done = calloc(x->n ? x->n : 1, sizeof *done);
    bool *started = calloc(x->nlanes ? x->nlanes : 1, sizeof *started);
    cudaError_t e = ops && run && done && started ? cudaSuccess : cudaErrorMemoryAllocation;
    for (size_t i = 0; e == cudaSuccess && i < x->n; i++)
        e = plan_entry(&x->e[i], device, &ops[i], &run[i]);
    if (e == cudaSuccess)
        e = check_graph_memory(x, false);
    if (e == cudaSuccess)
        e = ensure_lanes(x, device);
    sim_marker *start = NULL;
    uint64_t t0 = sim_overhead_start();
    if (e == cudaSuccess && x->done && !x->done->done) /* behind the previous launch */
        e = submit_wait(s, x->done, now);
    if (e == cudaSuccess)
        e = auto_free(x, s, now);
    if (e == cudaSuccess) {
        /* the graph starts here: events recorded on the idle stream just before take this time */
        sim_op mark = {0};
        mark.kind = SIM_OP_MARK;
        mark.engine = mark.peer_device = -1;
        check_graph_memory(x, true);
        e = sim_submit_at(s, &mark, now);
    }
    if (e == cudaSuccess)
        e = submit_record(s, &start, true, now);
    for (size_t i = 0; e == cudaSuccess && i < x->n; i++) {
        xentry *en = &x->e[i];
        sim_stream *lane = x->lanes[device][en->lane];
        if (en->ndeps == 0 && !started[en->lane]) {
            e = submit_wait(lane, start, now);
            started[en->lane] = true;
        }
        for (size_t d = 0; e == cudaSuccess && d < en->ndeps; d++)
            if (x->e[en->deps[d]].lane != en->lane)
                e = submit_wait(lane, done[en->deps[d]], now);
        if (e == cudaSuccess && run[i]) {
            e = sim_submit_at(lane, &ops[i], now);
        } else if (e == cudaSuccess && !en->join) {
            if (en->node->type == cudaGraphNodeTypeEventRecord) {
                e = record_event(lane, en->node->u.event, now);
            } else if (en->node->type == cudaGraphNodeTypeWaitEvent) {
                sim_event *ev = sim_event_get(en->node->u.event);
                if (ev->marker)
                    e = submit_wait(lane, ev->marker, now);
            }
        }
        if (e == cudaSuccess && en->signal)
            e = submit_record(lane, &done[i], true, now);
    }
    for (size_t i = 0; e == cudaSuccess && i < x->n; i++)
        if (x->e[i].sink)
            e = submit_wait(s, done[i], now);
    sim_marker *end = NULL;
    if (e == cudaSuccess && (e = submit_record(s, &end, true, now)) == cudaSuccess) {
        sim_marker_unref(x->done);
        x->done = end;
    }
    sim_overhead_stop(t0);
    for (size_t i = 0; done && i < x->n; i++)
        sim_marker_unref(done[i]);
    sim_marker_unref(start);
    free(ops), free(run), free(done), free(started);
    return e;
}

static cudaError_t launch(cudaGraphExec_t graphExec, cudaStream_t stream, bool ptds) {
    pthread_mutex_lock(&sim_sched_lock);
    sim_exec *x = exec_get(graphExec);
    sim_stream *s;
    cudaError_t e = x ? sim_stream_resolve(stream, ptds, &s) : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        /* onto a capturing stream, the graph becomes a child graph node */
        sim_node_desc d;
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeGraph;
        d.child = x->shadow;
        d.child_direct = true;
        bool captured = false;
        e = sim_capture_op(s, &d, &captured);
        if (!captured && e == cudaSuccess)
            e = run_graph(x, s);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(graphExec, stream, false));
}

SIM_API cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(graphExec, stream, true));
}

/* Nothing to upload to a simulated device: the call is checked, and ordered like nothing. */
static cudaError_t upload(sim_exec *x, cudaStream_t stream, bool ptds) {
    sim_stream *s;
    cudaError_t e = x ? sim_stream_resolve(stream, ptds, &s) : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_capture_forbid(s);
    return e;
}

SIM_API cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = upload(exec_get(graphExec), stream, false);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = upload(exec_get(graphExec), stream, true);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

/* ---- update -------------------------------------------------------------------------------- */

typedef struct {
    enum cudaGraphExecUpdateResult result;
    sim_gnode *node, *from;
} update_info;

static bool same_memory(const void *a, const void *b) {
    sim_ptrinfo pa, pb;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup_ex(a, &pa, true);
    sim_mem_lookup_ex(b, &pb, true);
    pthread_mutex_unlock(&sim_mem_lock);
    bool da = sim_is_device_side(pa.type), db = sim_is_device_side(pb.type);
    return da == db && (!da || pa.device == pb.device);
}

/* Whether node a (executable) may take the parameters of node b (CUDA's update rules that can
 * apply here: operands on the same devices and of the same kind; 2D memsets keep their shape,
 * 1D ones their single row). */
static bool params_compatible(const sim_gnode *a, const sim_gnode *b) {
    switch (a->type) {
    case cudaGraphNodeTypeMemcpy:
        return same_memory(a->u.copy.x.dst, b->u.copy.x.dst) &&
               same_memory(a->u.copy.x.src, b->u.copy.x.src);
    case cudaGraphNodeTypeMemset: {
        const struct cudaMemsetParams *p = &a->u.memset.p, *q = &b->u.memset.p;
        if (!same_memory(p->dst, q->dst))
            return false;
        if (p->height > 1)
            return q->height == p->height && q->width == p->width && q->pitch == p->pitch &&
                   q->elementSize == p->elementSize;
        return q->height == 1;
    }
    default:
        return true;
    }
}

/* Pairs a's and b's nodes by the order in which they were added, checking that the graphs have
 * the same shape (recursively) and that every node can take its partner's parameters. */
static bool compare(sim_graph *a, sim_graph *b, update_info *info) {
    if (a->n != b->n) {
        info->result = cudaGraphExecUpdateErrorTopologyChanged;
        info->node = NULL;
        return false;
    }
    for (size_t i = 0; i < a->n; i++)
        a->nodes[i]->tmp = b->nodes[i]->tmp = i;
    for (size_t i = 0; i < a->n; i++) {
        sim_gnode *na = a->nodes[i], *nb = b->nodes[i];
        info->node = nb;
        if (na->type != nb->type) {
            info->result = cudaGraphExecUpdateErrorNodeTypeChanged;
            return false;
        }
        if (na->nin != nb->nin) {
            info->result = cudaGraphExecUpdateErrorTopologyChanged;
            return false;
        }
        for (size_t j = 0; j < nb->nin; j++) {
            bool found = false;
            for (size_t k = 0; k < na->nin && !found; k++)
                found = na->in[k].node->tmp == nb->in[j].node->tmp;
            if (!found) {
                info->result = cudaGraphExecUpdateErrorTopologyChanged;
                info->from = nb->in[j].node;
                return false;
            }
        }
        if (na->type == cudaGraphNodeTypeMemAlloc || na->type == cudaGraphNodeTypeMemFree) {
            info->result = cudaGraphExecUpdateErrorNotSupported;
            return false;
        }
        if (!params_compatible(na, nb)) {
            info->result = cudaGraphExecUpdateErrorParametersChanged;
            return false;
        }
    }
    for (size_t i = 0; i < a->n; i++) {
        if (a->nodes[i]->type != cudaGraphNodeTypeGraph)
            continue;
        if (!compare(a->nodes[i]->u.child, b->nodes[i]->u.child, info))
            return false;
        for (size_t k = 0; k < a->n; k++) /* the child's comparison reused tmp */
            a->nodes[k]->tmp = b->nodes[k]->tmp = k;
    }
    return true;
}

static cudaError_t apply(sim_graph *a, sim_graph *b) {
    for (size_t i = 0; i < a->n; i++) {
        cudaError_t e = a->nodes[i]->type == cudaGraphNodeTypeGraph
                            ? apply(a->nodes[i]->u.child, b->nodes[i]->u.child)
                            : sim_gnode_copy_params(a->nodes[i], b->nodes[i]);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

SIM_API cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                        cudaGraphExecUpdateResultInfo *resultInfo) {
    SIM_ENTER();
    update_info info = {cudaGraphExecUpdateError, NULL, NULL};
    pthread_mutex_lock(&sim_sched_lock);
    sim_exec *x = exec_get(hGraphExec);
    sim_graph *g = sim_graph_get(hGraph);
    cudaError_t e = cudaErrorInvalidValue;
    if (x && g && !g->parent) {
        if (compare(x->shadow, g, &info)) {
            e = apply(x->shadow, g);
            info.result = e == cudaSuccess ? cudaGraphExecUpdateSuccess : cudaGraphExecUpdateError;
            info.node = NULL;
        } else {
            e = cudaErrorGraphExecUpdateFailure;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    if (resultInfo) {
        resultInfo->result = info.result;
        resultInfo->errorNode = (cudaGraphNode_t)info.node;
        resultInfo->errorFromNode = (cudaGraphNode_t)info.from;
    }
    return sim_result(e);
}

/* ---- parameters of one node of an executable graph ----------------------------------------- */

/* The executable graph's copy of `node`, a node of the graph it was instantiated from. */
static sim_gnode *exec_node(sim_exec *x, cudaGraphNode_t node) {
    sim_gnode *n = sim_gnode_get(node);
    if (x == NULL || n == NULL)
        return NULL;
    for (size_t i = 0; i < x->shadow->n; i++)
        if (x->shadow->nodes[i]->origin == n->id)
            return x->shadow->nodes[i];
    return NULL;
}

/* Builds the new parameters as a node of a scratch graph (checked as when adding a node), then
 * moves them into the executable graph's node if it may take them. */
static cudaError_t exec_set(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                            enum cudaGraphNodeType type, sim_node_desc *d) {
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *a = exec_node(exec_get(hGraphExec), node), *b = NULL;
    cudaError_t e = a && a->type == type ? cudaSuccess : cudaErrorInvalidValue;
    sim_graph *scratch = e == cudaSuccess ? sim_graph_new(true) : NULL;
    if (e == cudaSuccess && scratch == NULL)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess)
        e = sim_graph_add(scratch, d, NULL, NULL, 0, &b);
    if (e == cudaSuccess && type == cudaGraphNodeTypeMemcpy &&
        (!a->u.copy.one_d || !b->u.copy.one_d))
        e = cudaErrorInvalidValue; /* only 1D copies can be changed in an executable graph */
    if (e == cudaSuccess && !params_compatible(a, b))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        cudaLaunchAttributeValue attrs[SIM_NODE_ATTRS];
        unsigned attr_set = 0;
        if (type == cudaGraphNodeTypeKernel) { /* attributes are not parameters */
            memcpy(attrs, a->u.kernel.attrs, sizeof attrs);
            attr_set = a->u.kernel.attr_set;
        }
        e = sim_gnode_copy_params(a, b);
        if (e == cudaSuccess && type == cudaGraphNodeTypeKernel) {
            memcpy(a->u.kernel.attrs, attrs, sizeof attrs);
            a->u.kernel.attr_set = attr_set;
        }
    }
    sim_graph_free(scratch);
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node,
                                                     const struct cudaKernelNodeParams *p) {
    SIM_ENTER();
    if (p == NULL || (p->kernelParams && p->extra))
        return sim_result(cudaErrorInvalidValue);
    cudaError_t e = sim_check_launch(p->func, p->gridDim, p->blockDim, p->sharedMemBytes);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeKernel;
    d.func = p->func;
    d.grid = p->gridDim;
    d.block = p->blockDim;
    d.shmem = p->sharedMemBytes;
    if (e == cudaSuccess)
        e = sim_kernel_args_copy(p->func, p->kernelParams, p->extra, &d.arg_blob, &d.arg_params,
                                 &d.arg_extra);
    if (e == cudaSuccess)
        e = exec_set(hGraphExec, node, cudaGraphNodeTypeKernel, &d);
    free(d.arg_blob);
    return sim_result(e);
}

static cudaError_t exec_copy(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, sim_xfer x,
                             enum cudaMemcpyKind kind) {
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeMemcpy;
    d.x = x;
    d.kind = kind;
    return exec_set(hGraphExec, node, cudaGraphNodeTypeMemcpy, &d);
}

SIM_API cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node,
                                                     const struct cudaMemcpy3DParms *p) {
    SIM_ENTER();
    sim_xfer x;
    cudaError_t e = p ? sim_xfer_3d(p, &x) : cudaErrorInvalidValue;
    if (e == cudaErrorNotSupported)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = exec_copy(hGraphExec, node, x, p->kind);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *src, size_t count,
                                                       enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_xfer x = {dst, src, count, count, count, count, count, 1, 1, 0, 0};
    return sim_result(exec_copy(hGraphExec, node, x, kind));
}

SIM_API cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                             cudaGraphNode_t node,
                                                             const void *symbol, const void *src,
                                                             size_t count, size_t offset,
                                                             enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_xfer x;
    cudaError_t e = sim_symbol_xfer(symbol, (void *)src, count, offset, kind, true, &x);
    if (e == cudaSuccess)
        e = exec_copy(hGraphExec, node, x, kind);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                               cudaGraphNode_t node, void *dst,
                                                               const void *symbol, size_t count,
                                                               size_t offset,
                                                               enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_xfer x;
    cudaError_t e = sim_symbol_xfer(symbol, dst, count, offset, kind, false, &x);
    if (e == cudaSuccess)
        e = exec_copy(hGraphExec, node, x, kind);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node,
                                                     const struct cudaMemsetParams *p) {
    SIM_ENTER();
    if (p == NULL)
        return sim_result(cudaErrorInvalidValue);
    size_t bytes;
    if (__builtin_mul_overflow(p->width, (size_t)p->elementSize, &bytes))
        return sim_result(cudaErrorInvalidValue);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeMemset;
    sim_xfer x = {p->dst, NULL, p->height > 1 ? p->pitch : bytes, 0, 0, 0, bytes, p->height, 1,
                  (int)p->value, p->elementSize};
    d.x = x;
    return sim_result(exec_set(hGraphExec, node, cudaGraphNodeTypeMemset, &d));
}

SIM_API cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec,
                                                   cudaGraphNode_t node,
                                                   const struct cudaHostNodeParams *p) {
    SIM_ENTER();
    if (p == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeHost;
    d.fn = p->fn;
    d.user = p->userData;
    return sim_result(exec_set(hGraphExec, node, cudaGraphNodeTypeHost, &d));
}

static cudaError_t exec_event(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                              enum cudaGraphNodeType type, cudaEvent_t event) {
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.event = event;
    return exec_set(hGraphExec, node, type, &d);
}

SIM_API cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                         cudaGraphNode_t hNode,
                                                         cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(exec_event(hGraphExec, hNode, cudaGraphNodeTypeEventRecord, event));
}

SIM_API cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t hNode, cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(exec_event(hGraphExec, hNode, cudaGraphNodeTypeWaitEvent, event));
}

SIM_API cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec,
                                                         cudaGraphNode_t node,
                                                         cudaGraph_t childGraph) {
    SIM_ENTER();
    update_info info = {cudaGraphExecUpdateError, NULL, NULL};
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *a = exec_node(exec_get(hGraphExec), node);
    sim_graph *g = sim_graph_get(childGraph);
    cudaError_t e = a && a->type == cudaGraphNodeTypeGraph && g ? cudaSuccess
                                                                 : cudaErrorInvalidValue;
    if (e == cudaSuccess && !compare(a->u.child, g, &info))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = apply(a->u.child, g);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                               struct cudaGraphNodeParams *nodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = sim_desc_from_params(nodeParams, &d);
    if (e == cudaSuccess && d.type == cudaGraphNodeTypeGraph) {
        free(d.arg_blob);
        return sim_result(cudaGraphExecChildGraphNodeSetParams(graphExec, node,
                                                               nodeParams->graph.graph));
    }
    if (e == cudaSuccess && (d.type == cudaGraphNodeTypeEmpty ||
                             d.type == cudaGraphNodeTypeMemAlloc ||
                             d.type == cudaGraphNodeTypeMemFree))
        e = cudaErrorNotSupported;
    if (e == cudaSuccess)
        e = exec_set(graphExec, node, d.type, &d);
    free(d.arg_blob);
    return sim_result(e);
}

/* Only kernel, memset and memcpy nodes can be disabled (they then do nothing). */
static cudaError_t enabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned *get,
                           unsigned set) {
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *a = exec_node(exec_get(hGraphExec), hNode);
    bool can = a && (a->type == cudaGraphNodeTypeKernel || a->type == cudaGraphNodeTypeMemset ||
                     a->type == cudaGraphNodeTypeMemcpy);
    cudaError_t e = can ? cudaSuccess : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        if (get)
            *get = a->enabled;
        else
            a->enabled = set != 0;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                            unsigned int isEnabled) {
    SIM_ENTER();
    return sim_result(enabled(hGraphExec, hNode, NULL, isEnabled));
}

SIM_API cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                            unsigned int *isEnabled) {
    SIM_ENTER();
    if (isEnabled == NULL)
        return sim_result(cudaErrorInvalidValue);
    return sim_result(enabled(hGraphExec, hNode, isEnabled, 0));
}
