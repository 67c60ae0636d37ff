/* CUDA graphs: graphs, nodes, edges and the explicit graph API (cudaGraphCreate,
 * cudaGraphAdd*Node, the queries, cloning, node parameters, DOT output), and graph memory
 * (alloc and free nodes).
 *
 * A node's parameters are checked when it is added, as CUDA checks them: the memory of a copy or
 * memset must lie in live allocations (graph allocations count, mapped or not), a kernel must be
 * registered and its configuration valid on the current device. Kernel arguments are copied into
 * the node (CUDA does so too) when the kernel's parameter layout is known from its cubin, or
 * when they come as an `extra` buffer; otherwise the node keeps none (the kernel never runs).
 *
 * Graph memory: an alloc node gets its address when it is created, from a range of graph
 * addresses (memory.c), and keeps it for good; the memory is mapped when a launch reaches the
 * node and unmapped when a free node (in this graph or another), cudaFree or cudaFreeAsync frees
 * it. As in CUDA, a graph with memory nodes cannot be cloned, has at most one executable graph at
 * a time, and its nodes and edges cannot be removed; graphs used as child graphs cannot hold
 * memory nodes (they are copied into the parent). Invalid handles give cudaErrorInvalidValue, as
 * the graph API documents. */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sim_ptrmap graphs; /* handle -> graph (executable graphs' copies have no handle) */
static sim_ptrmap nodes;  /* handle -> node */
static sim_ptrmap gmems;  /* address -> graph allocation */
static unsigned long long next_id = 1;

static const cudaGraphEdgeData NO_EDGE_DATA;

sim_graph *sim_graph_get(cudaGraph_t h) {
    return h ? sim_ptrmap_get(&graphs, h) : NULL;
}

sim_gnode *sim_gnode_get(cudaGraphNode_t h) {
    return h ? sim_ptrmap_get(&nodes, h) : NULL;
}

sim_graph *sim_graph_root(sim_graph *g) {
    while (g->parent)
        g = g->parent->graph;
    return g;
}

sim_gmem *sim_gmem_find(const void *addr) {
    return addr ? sim_ptrmap_get(&gmems, addr) : NULL;
}

static void gmem_drop(sim_gmem *m) {
    sim_ptrmap_remove(&gmems, m->addr);
    pthread_mutex_lock(&sim_mem_lock);
    sim_graph_mem_release(m->addr);
    pthread_mutex_unlock(&sim_mem_lock);
    free(m);
}

/* The last node or executable graph using an allocation is gone: its address goes back unless a
 * launch allocated it and nothing freed it yet (the program may still free it). */
void sim_gmem_unref(sim_gmem *m) {
    if (m && --m->refs == 0 && !m->outstanding)
        gmem_drop(m);
}

bool sim_graph_mem_program_free(void *p, cudaError_t *e) {
    sim_gmem *m = sim_gmem_find(p);
    if (m == NULL)
        return false;
    if (!m->outstanding) {
        *e = cudaErrorInvalidValue; /* not allocated now, or a launch of a freeing graph will */
        return true;
    }
    m->outstanding = false;
    *e = cudaSuccess;
    if (m->refs == 0) { /* orphaned: its address goes once unmapped (memory.c defers it) */
        sim_ptrmap_remove(&gmems, m->addr);
        pthread_mutex_lock(&sim_mem_lock);
        sim_graph_mem_release(m->addr);
        pthread_mutex_unlock(&sim_mem_lock);
        free(m);
    }
    return true;
}

/* ---- graphs and nodes ---------------------------------------------------------------------- */

sim_graph *sim_graph_new(bool shadow) {
    sim_graph *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->id = next_id++;
    g->shadow = shadow;
    if (!shadow && sim_ptrmap_put(&graphs, g, g) != 0) {
        free(g);
        return NULL;
    }
    return g;
}

static void drop_params(sim_gnode *n) {
    switch (n->type) {
    case cudaGraphNodeTypeKernel:
        free(n->u.kernel.blob);
        break;
    case cudaGraphNodeTypeGraph:
        sim_graph_free(n->u.child);
        break;
    case cudaGraphNodeTypeMemAlloc:
        free(n->u.alloc.access);
        if (n->u.alloc.mem && n->u.alloc.mem->alloc_node == n)
            n->u.alloc.mem->alloc_node = NULL;
        sim_gmem_unref(n->u.alloc.mem);
        break;
    case cudaGraphNodeTypeMemFree: {
        sim_gmem *m = sim_gmem_find(n->u.free_ptr);
        if (m && m->free_node == n)
            m->free_node = NULL;
        break;
    }
    default:
        break;
    }
}

static void free_node(sim_gnode *n, bool shadow) {
    drop_params(n);
    if (!shadow)
        sim_ptrmap_remove(&nodes, n);
    free(n->in);
    free(n->out);
    free(n);
}

void sim_graph_free(sim_graph *g) {
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n; i++)
        free_node(g->nodes[i], g->shadow);
    if (!g->shadow)
        sim_ptrmap_remove(&graphs, g);
    free(g->nodes);
    free(g);
}

static int grow(void **v, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 4;
    while (c < need)
        c *= 2;
    void *nv = realloc(*v, c * elem);
    if (nv == NULL)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

static sim_gnode *new_node(sim_graph *g, enum cudaGraphNodeType type) {
    sim_gnode *n = calloc(1, sizeof *n);
    if (n == NULL || grow((void **)&g->nodes, &g->cap, g->n + 1, sizeof *g->nodes) != 0) {
        free(n);
        return NULL;
    }
    if (!g->shadow && sim_ptrmap_put(&nodes, n, n) != 0) {
        free(n);
        return NULL;
    }
    n->id = next_id++;
    n->graph = g;
    n->type = type;
    n->device = sim_current_device;
    n->enabled = true;
    g->nodes[g->n++] = n;
    return n;
}

/* Room for one more edge from `from` to `to`; then add_edge cannot fail. */
static int reserve_edge(sim_gnode *from, sim_gnode *to) {
    if (grow((void **)&to->in, &to->in_cap, to->nin + 1, sizeof *to->in) != 0 ||
        grow((void **)&from->out, &from->out_cap, from->nout + 1, sizeof *from->out) != 0)
        return -1;
    return 0;
}

static void add_edge(sim_gnode *from, sim_gnode *to, const cudaGraphEdgeData *data) {
    to->in[to->nin].node = from;
    to->in[to->nin].data = data ? *data : NO_EDGE_DATA;
    to->nin++;
    from->out[from->nout++] = to;
}

static bool has_edge(const sim_gnode *from, const sim_gnode *to) {
    for (size_t i = 0; i < to->nin; i++)
        if (to->in[i].node == from)
            return true;
    return false;
}

static void remove_edge(sim_gnode *from, sim_gnode *to) {
    for (size_t i = 0; i < to->nin; i++) {
        if (to->in[i].node == from) {
            memmove(&to->in[i], &to->in[i + 1], (to->nin - i - 1) * sizeof *to->in);
            to->nin--;
            break;
        }
    }
    for (size_t i = 0; i < from->nout; i++) {
        if (from->out[i] == to) {
            memmove(&from->out[i], &from->out[i + 1], (from->nout - i - 1) * sizeof *from->out);
            from->nout--;
            break;
        }
    }
}

/* Edge data: ports and types as CUDA 13 defines them (only kernel nodes have outgoing ports;
 * programmatic dependencies join two kernel nodes). The simulator orders both kinds alike. */
static cudaError_t check_edge(const sim_gnode *from, enum cudaGraphNodeType to_type,
                              const cudaGraphEdgeData *d) {
    if (d == NULL)
        return cudaSuccess;
    for (size_t i = 0; i < sizeof d->reserved; i++)
        if (d->reserved[i])
            return cudaErrorInvalidValue;
    if (d->to_port != 0 || d->type > cudaGraphDependencyTypeProgrammatic)
        return cudaErrorInvalidValue;
    if (d->from_port > cudaGraphKernelNodePortLaunchCompletion ||
        (d->from_port != 0 && from->type != cudaGraphNodeTypeKernel))
        return cudaErrorInvalidValue;
    if (d->type == cudaGraphDependencyTypeProgrammatic &&
        (from->type != cudaGraphNodeTypeKernel || to_type != cudaGraphNodeTypeKernel ||
         d->from_port == cudaGraphKernelNodePortDefault))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* Dependencies of a new node: handles of nodes of g, no duplicates. */
static cudaError_t check_deps(const sim_graph *g, sim_gnode *const *deps,
                              const cudaGraphEdgeData *edges, size_t n,
                              enum cudaGraphNodeType type) {
    if (n > 0 && deps == NULL)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; i++) {
        if (deps[i] == NULL || deps[i]->graph != g)
            return cudaErrorInvalidValue;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return cudaErrorInvalidValue;
        cudaError_t e = check_edge(deps[i], type, edges ? &edges[i] : NULL);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* Converts handles from the program into nodes (NULL entries stay NULL, and fail later). */
static cudaError_t resolve_nodes(const cudaGraphNode_t *h, size_t n, sim_gnode ***out) {
    *out = NULL;
    if (n == 0)
        return cudaSuccess;
    if (h == NULL)
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; i++)
        if (sim_gnode_get(h[i]) == NULL)
            return cudaErrorInvalidValue;
    *out = (sim_gnode **)h; /* a handle is the node's address */
    return cudaSuccess;
}

/* ---- node parameters ----------------------------------------------------------------------- */

static struct cudaMemcpy3DParms params_of_xfer(const sim_xfer *x, enum cudaMemcpyKind kind) {
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr.ptr = (void *)x->src;
    p.srcPtr.pitch = x->spitch;
    p.srcPtr.xsize = x->width;
    p.srcPtr.ysize = x->spitch && x->depth > 1 ? x->sslice / x->spitch : x->height;
    p.dstPtr.ptr = x->dst;
    p.dstPtr.pitch = x->dpitch;
    p.dstPtr.xsize = x->width;
    p.dstPtr.ysize = x->dpitch && x->depth > 1 ? x->dslice / x->dpitch : x->height;
    p.extent.width = x->width;
    p.extent.height = x->height;
    p.extent.depth = x->depth;
    p.kind = kind;
    return p;
}

static cudaError_t check_alloc_params(const sim_node_desc *d) {
    const struct cudaMemPoolProps *p = d->pool;
    if (p == NULL || d->bytes == 0 || p->allocType != cudaMemAllocationTypePinned ||
        p->location.type != cudaMemLocationTypeDevice)
        return cudaErrorInvalidValue;
    if (sim_check_device(p->location.id) != cudaSuccess)
        return cudaErrorInvalidValue;
    if (!sim_cfg.dev[p->location.id].prop.memoryPoolsSupported) /* configured without */
        return cudaErrorNotSupported;
    if (d->access_count > (size_t)sim_cfg.device_count || (d->access_count && d->access == NULL))
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < d->access_count; i++) {
        const struct cudaMemAccessDesc *a = &d->access[i];
        if (a->location.type != cudaMemLocationTypeDevice ||
            sim_check_device(a->location.id) != cudaSuccess ||
            (a->flags != cudaMemAccessFlagsProtNone && a->flags != cudaMemAccessFlagsProtRead &&
             a->flags != cudaMemAccessFlagsProtReadWrite))
            return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* Fills n->u from d, checking it; nothing is left to free on failure. For alloc nodes the
 * address is reserved here (d->dptr returns it). */
static cudaError_t make_params(sim_graph *g, sim_node_desc *d, sim_gnode *n) {
    sim_op op;
    cudaError_t e = cudaSuccess;
    memset(&n->u, 0, sizeof n->u);
    switch (d->type) {
    case cudaGraphNodeTypeKernel:
        n->u.kernel.func = d->func;
        n->u.kernel.grid = d->grid;
        n->u.kernel.block = d->block;
        n->u.kernel.shmem = d->shmem;
        n->u.kernel.blob = d->arg_blob;
        n->u.kernel.params = d->arg_params;
        n->u.kernel.extra = d->arg_extra;
        d->arg_blob = NULL; /* the node owns it now */
        return cudaSuccess;
    case cudaGraphNodeTypeMemcpy:
        if (d->x.width == 0 || d->x.height == 0 || d->x.depth == 0)
            return cudaErrorInvalidValue;
        e = sim_copy_plan(&d->x, d->kind, sim_current_device, true, &op);
        if (e == cudaSuccess) {
            n->u.copy.x = d->x;
            n->u.copy.p = params_of_xfer(&d->x, d->kind);
            n->u.copy.one_d = d->x.height == 1 && d->x.depth == 1;
        }
        return e;
    case cudaGraphNodeTypeMemset: {
        unsigned elem = d->x.elem ? d->x.elem : 1;
        if ((elem != 1 && elem != 2 && elem != 4) || d->x.width == 0 || d->x.height == 0 ||
            d->x.width % elem != 0)
            return cudaErrorInvalidValue;
        if (d->x.height > 1 && d->x.dpitch < d->x.width)
            return cudaErrorInvalidValue;
        e = sim_memset_plan(&d->x, sim_current_device, true, &op, NULL);
        if (e == cudaSuccess) {
            n->u.memset.x = d->x;
            n->u.memset.p.dst = d->x.dst;
            n->u.memset.p.pitch = d->x.height > 1 ? d->x.dpitch : 0;
            n->u.memset.p.value = (unsigned)d->x.value;
            n->u.memset.p.elementSize = elem;
            n->u.memset.p.width = d->x.width / elem;
            n->u.memset.p.height = d->x.height;
        }
        return e;
    }
    case cudaGraphNodeTypeHost:
        if (d->fn == NULL)
            return cudaErrorInvalidValue;
        n->u.host.fn = d->fn;
        n->u.host.userData = d->user;
        return cudaSuccess;
    case cudaGraphNodeTypeGraph: {
        sim_graph *child = d->child_direct ? d->child : sim_graph_get(d->child);
        if (child && d->child_move) { /* the node takes the graph itself */
            if (child->parent || child->capture || child->execs > 0 ||
                (child->mem_nodes > 0 && g->parent))
                return cudaErrorInvalidValue;
            for (sim_graph *a = g; a; a = a->parent ? a->parent->graph : NULL)
                if (a == child)
                    return cudaErrorInvalidValue; /* into itself */
            n->u.child = child;
            return cudaSuccess;
        }
        if (child == NULL || child->mem_nodes > 0)
            return cudaErrorInvalidValue; /* memory nodes cannot be copied into a parent */
        sim_graph *copy = sim_graph_clone(child, g->shadow, &e);
        if (copy == NULL)
            return e;
        n->u.child = copy;
        return cudaSuccess;
    }
    case cudaGraphNodeTypeEmpty:
        return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent:
        if (sim_event_get(d->event) == NULL)
            return cudaErrorInvalidValue;
        n->u.event = d->event;
        return cudaSuccess;
    case cudaGraphNodeTypeMemAlloc: {
        if (g->parent || g->shadow)
            return cudaErrorInvalidValue;
        if ((e = check_alloc_params(d)) != cudaSuccess)
            return e;
        sim_gmem *m = calloc(1, sizeof *m);
        struct cudaMemAccessDesc *access =
            d->access_count ? malloc(d->access_count * sizeof *access) : NULL;
        if (m == NULL || (d->access_count && access == NULL)) {
            free(m);
            free(access);
            return cudaErrorMemoryAllocation;
        }
        int device = d->pool->location.id;
        pthread_mutex_lock(&sim_mem_lock);
        void *addr = sim_graph_mem_reserve(device, d->bytes);
        pthread_mutex_unlock(&sim_mem_lock);
        if (addr == NULL || sim_ptrmap_put(&gmems, addr, m) != 0) {
            if (addr) {
                pthread_mutex_lock(&sim_mem_lock);
                sim_graph_mem_release(addr);
                pthread_mutex_unlock(&sim_mem_lock);
            }
            free(m);
            free(access);
            return cudaErrorMemoryAllocation;
        }
        if (d->access_count)
            memcpy(access, d->access, d->access_count * sizeof *access);
        m->addr = addr;
        m->size = d->bytes;
        m->device = device;
        m->refs = 1;
        n->u.alloc.mem = m;
        n->u.alloc.access = access;
        memset(&n->u.alloc.p, 0, sizeof n->u.alloc.p);
        n->u.alloc.p.poolProps = *d->pool;
        n->u.alloc.p.accessDescs = access;
        n->u.alloc.p.accessDescCount = d->access_count;
        n->u.alloc.p.bytesize = d->bytes;
        n->u.alloc.p.dptr = addr;
        d->dptr = addr;
        return cudaSuccess;
    }
    case cudaGraphNodeTypeMemFree: {
        if (g->parent || g->shadow)
            return cudaErrorInvalidValue;
        sim_gmem *m = sim_gmem_find(d->dptr);
        if (m == NULL || m->free_node != NULL)
            return cudaErrorInvalidValue; /* not a graph allocation, or freed by a node already */
        n->u.free_ptr = d->dptr;
        return cudaSuccess;
    }
    default:
        return cudaErrorNotSupported;
    }
}

cudaError_t sim_graph_add(sim_graph *g, sim_node_desc *d, sim_gnode *const *deps,
                          const cudaGraphEdgeData *edges, size_t n, sim_gnode **out) {
    cudaError_t e = check_deps(g, deps, edges, n, d->type);
    if (e != cudaSuccess)
        return e;
    sim_gnode tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = d->type;
    if ((e = make_params(g, d, &tmp)) != cudaSuccess)
        return e;
    sim_gnode *node = new_node(g, d->type);
    bool room = node != NULL;
    for (size_t i = 0; room && i < n; i++)
        room = reserve_edge(deps[i], node) == 0;
    if (!room) {
        if (node) {
            g->n--;
            node->type = cudaGraphNodeTypeEmpty;
            free_node(node, g->shadow);
        }
        drop_params(&tmp);
        return cudaErrorMemoryAllocation;
    }
    node->u = tmp.u;
    if (d->type == cudaGraphNodeTypeGraph) {
        node->u.child->parent = node;
        g->mem_nodes += node->u.child->mem_nodes; /* moved in with them */
    }
    if (d->type == cudaGraphNodeTypeMemAlloc) {
        node->u.alloc.mem->alloc_node = node;
        g->mem_nodes++;
    }
    if (d->type == cudaGraphNodeTypeMemFree) {
        sim_gmem_find(d->dptr)->free_node = node;
        g->mem_nodes++;
    }
    for (size_t i = 0; i < n; i++)
        add_edge(deps[i], node, edges ? &edges[i] : NULL);
    *out = node;
    return cudaSuccess;
}

/* Kernel arguments live in one block that points into itself (module.c describes it): a copy
 * moves the pointers. */
static void *copy_blob(const sim_kparams *k, void ***params, void ***extra) {
    *params = *extra = NULL;
    const size_t *head = k->blob;
    uint8_t *b = malloc(head[0]);
    if (b == NULL)
        return NULL;
    memcpy(b, k->blob, head[0]);
    uintptr_t lo = (uintptr_t)k->blob, hi = lo + head[0];
    void **v = (void **)(b + 2 * sizeof(size_t));
    for (size_t i = 0; i < head[1]; i++)
        if ((uintptr_t)v[i] >= lo && (uintptr_t)v[i] < hi)
            v[i] = b + ((uintptr_t)v[i] - lo);
    if (k->params)
        *params = v;
    else
        *extra = v;
    return b;
}

/* Copies the parameters of `from` into a fresh node `to` of the same type. */
static cudaError_t clone_params(sim_gnode *to, const sim_gnode *from, bool shadow) {
    cudaError_t e = cudaSuccess;
    to->u = from->u;
    switch (from->type) {
    case cudaGraphNodeTypeKernel:
        if (from->u.kernel.blob) {
            to->u.kernel.blob = copy_blob(&from->u.kernel, &to->u.kernel.params,
                                          &to->u.kernel.extra);
            if (to->u.kernel.blob == NULL) {
                memset(&to->u, 0, sizeof to->u);
                return cudaErrorMemoryAllocation;
            }
        }
        return cudaSuccess;
    case cudaGraphNodeTypeGraph:
        to->u.child = sim_graph_clone(from->u.child, shadow, &e);
        if (to->u.child == NULL) {
            memset(&to->u, 0, sizeof to->u);
            return e;
        }
        to->u.child->parent = to;
        return cudaSuccess;
    case cudaGraphNodeTypeMemAlloc: {
        size_t count = from->u.alloc.p.accessDescCount;
        to->u.alloc.access = count ? malloc(count * sizeof *to->u.alloc.access) : NULL;
        if (count && to->u.alloc.access == NULL) {
            memset(&to->u, 0, sizeof to->u);
            return cudaErrorMemoryAllocation;
        }
        if (count)
            memcpy(to->u.alloc.access, from->u.alloc.access, count * sizeof *to->u.alloc.access);
        to->u.alloc.p.accessDescs = to->u.alloc.access;
        to->u.alloc.mem->refs++;
        return cudaSuccess;
    }
    default:
        return cudaSuccess;
    }
}

sim_graph *sim_graph_clone(const sim_graph *g, bool shadow, cudaError_t *e) {
    if (!shadow && g->mem_nodes > 0) {
        *e = cudaErrorNotSupported;
        return NULL;
    }
    sim_graph *c = sim_graph_new(shadow);
    if (c == NULL) {
        *e = cudaErrorMemoryAllocation;
        return NULL;
    }
    *e = cudaSuccess;
    c->mem_nodes = g->mem_nodes;
    for (size_t i = 0; i < g->n; i++)
        g->nodes[i]->tmp = i;
    for (size_t i = 0; i < g->n && *e == cudaSuccess; i++) {
        const sim_gnode *from = g->nodes[i];
        sim_gnode *to = new_node(c, cudaGraphNodeTypeEmpty);
        if (to == NULL) {
            *e = cudaErrorMemoryAllocation;
            break;
        }
        to->origin = from->id;
        to->device = from->device;
        to->enabled = from->enabled;
        if ((*e = clone_params(to, from, shadow)) != cudaSuccess)
            break;
        to->type = from->type;
        for (size_t k = 0; k < from->nin && *e == cudaSuccess; k++) {
            sim_gnode *dep = c->nodes[from->in[k].node->tmp];
            if (reserve_edge(dep, to) != 0)
                *e = cudaErrorMemoryAllocation;
            else
                add_edge(dep, to, &from->in[k].data);
        }
    }
    if (*e != cudaSuccess) {
        sim_graph_free(c);
        return NULL;
    }
    return c;
}

cudaError_t sim_gnode_copy_params(sim_gnode *to, const sim_gnode *from) {
    sim_gnode tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = from->type;
    if (from->type == cudaGraphNodeTypeGraph || from->type == cudaGraphNodeTypeMemAlloc ||
        from->type == cudaGraphNodeTypeMemFree)
        return cudaErrorInvalidValue; /* not copied: child graphs are updated node by node */
    cudaError_t e = clone_params(&tmp, from, to->graph->shadow);
    if (e != cudaSuccess)
        return e;
    drop_params(to);
    to->u = tmp.u;
    return cudaSuccess;
}

sim_gnode **sim_graph_topo(const sim_graph *g, sim_gnode **bad) {
    sim_gnode **order = malloc((g->n ? g->n : 1) * sizeof *order);
    if (order == NULL)
        return NULL;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < g->n; i++) {
        g->nodes[i]->tmp = g->nodes[i]->nin;
        if (g->nodes[i]->nin == 0)
            order[tail++] = g->nodes[i];
    }
    while (head < tail) {
        sim_gnode *n = order[head++];
        for (size_t k = 0; k < n->nout; k++)
            if (--n->out[k]->tmp == 0)
                order[tail++] = n->out[k];
    }
    if (tail < g->n) {
        *bad = NULL;
        for (size_t i = 0; i < g->n && *bad == NULL; i++)
            if (g->nodes[i]->tmp > 0)
                *bad = g->nodes[i];
        free(order);
        return NULL;
    }
    return order;
}

/* ---- creation and destruction -------------------------------------------------------------- */

SIM_API cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
    SIM_ENTER();
    if (pGraph == NULL || flags != 0)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_new(false);
    pthread_mutex_unlock(&sim_sched_lock);
    if (g == NULL)
        return sim_result(cudaErrorMemoryAllocation);
    *pGraph = (cudaGraph_t)g;
    return cudaSuccess;
}

/* A graph embedded in a child graph node belongs to it; one being captured into belongs to the
 * capture until it ends. */
SIM_API cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    cudaError_t e = g == NULL || g->parent || g->capture ? cudaErrorInvalidValue : cudaSuccess;
    if (e == cudaSuccess)
        sim_graph_free(g);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
    SIM_ENTER();
    if (pGraphClone == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(originalGraph), *c = NULL;
    cudaError_t e = cudaErrorInvalidValue;
    if (g)
        c = sim_graph_clone(g, false, &e);
    pthread_mutex_unlock(&sim_sched_lock);
    if (c)
        *pGraphClone = (cudaGraph_t)c;
    return sim_result(e);
}

static sim_gnode *find_clone(sim_graph *g, unsigned long long origin) {
    for (size_t i = 0; i < g->n; i++) {
        sim_gnode *n = g->nodes[i];
        if (n->origin == origin)
            return n;
        if (n->type == cudaGraphNodeTypeGraph) {
            sim_gnode *r = find_clone(n->u.child, origin);
            if (r)
                return r;
        }
    }
    return NULL;
}

SIM_API cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                             cudaGraph_t clonedGraph) {
    SIM_ENTER();
    if (pNode == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *o = sim_gnode_get(originalNode);
    sim_graph *c = sim_graph_get(clonedGraph);
    sim_gnode *r = o && c ? find_clone(c, o->id) : NULL;
    if (r)
        *pNode = (cudaGraphNode_t)r;
    pthread_mutex_unlock(&sim_sched_lock);
    return r ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

/* ---- adding nodes -------------------------------------------------------------------------- */

/* The common part of every cudaGraphAdd*Node: handles, dependencies, the node. */
static cudaError_t add_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                            const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t n,
                            sim_node_desc *d) {
    if (pGraphNode == NULL)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    sim_gnode **dn = NULL, *node = NULL;
    cudaError_t e = g ? resolve_nodes(deps, n, &dn) : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_graph_add(g, d, dn, edges, n, &node);
    pthread_mutex_unlock(&sim_sched_lock);
    if (e == cudaSuccess)
        *pGraphNode = (cudaGraphNode_t)node;
    return e;
}

/* Checks a kernel node's function and configuration and copies its arguments (sim_reg_lock:
 * before sim_sched_lock). */
static cudaError_t kernel_desc(const struct cudaKernelNodeParams *p, sim_node_desc *d) {
    memset(d, 0, sizeof *d);
    if (p == NULL || (p->kernelParams && p->extra))
        return cudaErrorInvalidValue;
    cudaError_t e = sim_check_launch(p->func, p->gridDim, p->blockDim, p->sharedMemBytes);
    if (e != cudaSuccess)
        return e;
    d->type = cudaGraphNodeTypeKernel;
    d->func = p->func;
    d->grid = p->gridDim;
    d->block = p->blockDim;
    d->shmem = p->sharedMemBytes;
    return sim_kernel_args_copy(p->func, p->kernelParams, p->extra, &d->arg_blob, &d->arg_params,
                                &d->arg_extra);
}

SIM_API cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const struct cudaKernelNodeParams *pNodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = kernel_desc(pNodeParams, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    free(d.arg_blob); /* still ours if the node was not made */
    return sim_result(e);
}

static cudaError_t copy_desc_3d(const struct cudaMemcpy3DParms *p, sim_node_desc *d) {
    if (p == NULL)
        return cudaErrorInvalidValue;
    memset(d, 0, sizeof *d);
    d->type = cudaGraphNodeTypeMemcpy;
    d->kind = p->kind;
    cudaError_t e = sim_xfer_3d(p, &d->x);
    return e == cudaErrorNotSupported ? cudaErrorInvalidValue : e; /* no arrays exist here */
}

static void copy_desc_1d(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                         sim_node_desc *d) {
    memset(d, 0, sizeof *d);
    d->type = cudaGraphNodeTypeMemcpy;
    d->kind = kind;
    sim_xfer x = {dst, src, count, count, count, count, count, 1, 1, 0, 0};
    d->x = x;
}

static cudaError_t copy_desc_symbol(const void *symbol, void *other, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, bool to_symbol, sim_node_desc *d) {
    memset(d, 0, sizeof *d);
    d->type = cudaGraphNodeTypeMemcpy;
    d->kind = kind;
    return sim_symbol_xfer(symbol, other, count, offset, kind, to_symbol, &d->x);
}

SIM_API cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const struct cudaMemcpy3DParms *pCopyParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_3d(pCopyParams, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *src,
                                             size_t count, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    copy_desc_1d(dst, src, count, kind, &d);
    return sim_result(add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d));
}

SIM_API cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies, const void *symbol,
                                                   const void *src, size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_symbol(symbol, (void *)src, count, offset, kind, true, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode,
                                                     cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies,
                                                     size_t numDependencies, void *dst,
                                                     const void *symbol, size_t count,
                                                     size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_symbol(symbol, dst, count, offset, kind, false, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    return sim_result(e);
}

static cudaError_t memset_desc(const struct cudaMemsetParams *p, sim_node_desc *d) {
    if (p == NULL)
        return cudaErrorInvalidValue;
    memset(d, 0, sizeof *d);
    d->type = cudaGraphNodeTypeMemset;
    size_t bytes;
    if (__builtin_mul_overflow(p->width, (size_t)p->elementSize, &bytes))
        return cudaErrorInvalidValue;
    sim_xfer x = {p->dst, NULL, p->height > 1 ? p->pitch : bytes, 0, 0, 0, bytes, p->height, 1,
                  (int)p->value, p->elementSize};
    d->x = x;
    return cudaSuccess;
}

SIM_API cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies,
                                           const struct cudaMemsetParams *pMemsetParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = memset_desc(pMemsetParams, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t *pDependencies,
                                         size_t numDependencies,
                                         const struct cudaHostNodeParams *pNodeParams) {
    SIM_ENTER();
    if (pNodeParams == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeHost;
    d.fn = pNodeParams->fn;
    d.user = pNodeParams->userData;
    return sim_result(add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d));
}

SIM_API cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies, cudaGraph_t childGraph) {
    SIM_ENTER();
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeGraph;
    d.child = childGraph;
    return sim_result(add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d));
}

SIM_API cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t *pDependencies,
                                          size_t numDependencies) {
    SIM_ENTER();
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeEmpty;
    return sim_result(add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d));
}

static cudaError_t add_event_node(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, size_t n, cudaEvent_t event,
                                  enum cudaGraphNodeType type) {
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.event = event;
    return add_node(pGraphNode, graph, deps, NULL, n, &d);
}

SIM_API cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies,
                                                size_t numDependencies, cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                                     cudaGraphNodeTypeEventRecord));
}

SIM_API cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies, cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                                     cudaGraphNodeTypeWaitEvent));
}

SIM_API cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             struct cudaMemAllocNodeParams *nodeParams) {
    SIM_ENTER();
    if (nodeParams == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeMemAlloc;
    d.pool = &nodeParams->poolProps;
    d.access = nodeParams->accessDescs;
    d.access_count = nodeParams->accessDescCount;
    d.bytes = nodeParams->bytesize;
    cudaError_t e = add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d);
    if (e == cudaSuccess)
        nodeParams->dptr = d.dptr;
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies,
                                            size_t numDependencies, void *dptr) {
    SIM_ENTER();
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeMemFree;
    d.dptr = dptr;
    return sim_result(add_node(pGraphNode, graph, pDependencies, NULL, numDependencies, &d));
}

/* ---- node parameters ----------------------------------------------------------------------- */

/* Looks up a node of the given type (sim_sched_lock held). */
static sim_gnode *typed(cudaGraphNode_t h, enum cudaGraphNodeType type) {
    sim_gnode *n = sim_gnode_get(h);
    return n && n->type == type ? n : NULL;
}

/* Replaces a node's parameters with those of d, checked as when adding (sim_sched_lock held). */
static cudaError_t set_params(sim_gnode *n, sim_node_desc *d) {
    sim_gnode tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = n->type;
    cudaError_t e = make_params(n->graph, d, &tmp);
    if (e == cudaSuccess) {
        if (n->type == cudaGraphNodeTypeKernel) { /* attributes are not parameters */
            memcpy(tmp.u.kernel.attrs, n->u.kernel.attrs, sizeof tmp.u.kernel.attrs);
            tmp.u.kernel.attr_set = n->u.kernel.attr_set;
        }
        drop_params(n);
        n->u = tmp.u;
    }
    return e;
}

static cudaError_t set_node(cudaGraphNode_t node, enum cudaGraphNodeType type, sim_node_desc *d) {
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(node, type);
    cudaError_t e = n ? set_params(n, d) : cudaErrorInvalidValue;
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

/*
 * The body of a cudaGraph*NodeGetParams: the node's parameters of kind TYPE copied to OUT (LVALUE
 * is what OUT points to), under the scheduler's lock; cudaErrorInvalidValue for a NULL OUT or a
 * node of another kind.
 */
#define NODE_GET_PARAMS(node, type, out, lvalue, field)                                            \
    do {                                                                                           \
        SIM_ENTER();                                                                               \
        if ((out) == NULL)                                                                         \
            return sim_result(cudaErrorInvalidValue);                                              \
        pthread_mutex_lock(&sim_sched_lock);                                                       \
        sim_gnode *n_ = typed((node), (type));                                                     \
        if (n_)                                                                                    \
            lvalue = n_->field;                                                                    \
        pthread_mutex_unlock(&sim_sched_lock);                                                     \
        return n_ ? cudaSuccess : sim_result(cudaErrorInvalidValue);                               \
    } while (0)

SIM_API cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                 struct cudaKernelNodeParams *pNodeParams) {
    SIM_ENTER();
    if (pNodeParams == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(node, cudaGraphNodeTypeKernel);
    if (n) {
        const sim_kparams *k = &n->u.kernel;
        pNodeParams->func = (void *)k->func;
        pNodeParams->gridDim = k->grid;
        pNodeParams->blockDim = k->block;
        pNodeParams->sharedMemBytes = k->shmem;
        pNodeParams->kernelParams = k->params;
        pNodeParams->extra = k->extra;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                 const struct cudaKernelNodeParams *pNodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = kernel_desc(pNodeParams, &d);
    if (e == cudaSuccess) {
        pthread_mutex_lock(&sim_sched_lock);
        sim_gnode *n = typed(node, cudaGraphNodeTypeKernel);
        e = n ? set_params(n, &d) : cudaErrorInvalidValue;
        pthread_mutex_unlock(&sim_sched_lock);
    }
    free(d.arg_blob);
    return sim_result(e);
}

/* Attributes a kernel node may carry; the others belong to streams or to launches. */
static bool node_attr(cudaLaunchAttributeID id) {
    switch ((int)id) {
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributeClusterDimension:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredClusterDimension:
    case cudaLaunchAttributeDeviceUpdatableKernelNode:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
        return true;
    default:
        return false;
    }
}

SIM_API cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode,
                                                    cudaKernelNodeAttrID attr,
                                                    cudaKernelNodeAttrValue *value_out) {
    SIM_ENTER();
    if (value_out == NULL || !node_attr(attr))
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(hNode, cudaGraphNodeTypeKernel);
    if (n) {
        if (n->u.kernel.attr_set & (1u << attr))
            *value_out = n->u.kernel.attrs[attr];
        else
            memset(value_out, 0, sizeof *value_out);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode,
                                                    cudaKernelNodeAttrID attr,
                                                    const cudaKernelNodeAttrValue *value) {
    SIM_ENTER();
    if (value == NULL || !node_attr(attr))
        return sim_result(cudaErrorInvalidValue);
    if (attr == cudaLaunchAttributeClusterDimension &&
        (value->clusterDim.x > 1 || value->clusterDim.y > 1 || value->clusterDim.z > 1) &&
        !sim_cfg.dev[sim_current_device].prop.clusterLaunch)
        return sim_result(cudaErrorNotSupported);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(hNode, cudaGraphNodeTypeKernel);
    if (n) {
        n->u.kernel.attrs[attr] = *value;
        n->u.kernel.attr_set |= 1u << attr;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *d = typed(hDst, cudaGraphNodeTypeKernel), *s = typed(hSrc, cudaGraphNodeTypeKernel);
    if (d && s) {
        memcpy(d->u.kernel.attrs, s->u.kernel.attrs, sizeof d->u.kernel.attrs);
        d->u.kernel.attr_set = s->u.kernel.attr_set;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return d && s ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                                 struct cudaMemcpy3DParms *pNodeParams) {
    NODE_GET_PARAMS(node, cudaGraphNodeTypeMemcpy, pNodeParams, *pNodeParams, u.copy.p);
}

SIM_API cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                                 const struct cudaMemcpy3DParms *pNodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_3d(pNodeParams, &d);
    if (e == cudaSuccess)
        e = set_node(node, cudaGraphNodeTypeMemcpy, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst,
                                                   const void *src, size_t count,
                                                   enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    copy_desc_1d(dst, src, count, kind, &d);
    return sim_result(set_node(node, cudaGraphNodeTypeMemcpy, &d));
}

SIM_API cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                         const void *src, size_t count,
                                                         size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_symbol(symbol, (void *)src, count, offset, kind, true, &d);
    if (e == cudaSuccess)
        e = set_node(node, cudaGraphNodeTypeMemcpy, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                           const void *symbol, size_t count,
                                                           size_t offset,
                                                           enum cudaMemcpyKind kind) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = copy_desc_symbol(symbol, dst, count, offset, kind, false, &d);
    if (e == cudaSuccess)
        e = set_node(node, cudaGraphNodeTypeMemcpy, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
                                                 struct cudaMemsetParams *pNodeParams) {
    NODE_GET_PARAMS(node, cudaGraphNodeTypeMemset, pNodeParams, *pNodeParams, u.memset.p);
}

SIM_API cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                                 const struct cudaMemsetParams *pNodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = memset_desc(pNodeParams, &d);
    if (e == cudaSuccess)
        e = set_node(node, cudaGraphNodeTypeMemset, &d);
    return sim_result(e);
}

SIM_API cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
                                               struct cudaHostNodeParams *pNodeParams) {
    NODE_GET_PARAMS(node, cudaGraphNodeTypeHost, pNodeParams, *pNodeParams, u.host);
}

SIM_API cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                               const struct cudaHostNodeParams *pNodeParams) {
    SIM_ENTER();
    if (pNodeParams == NULL)
        return sim_result(cudaErrorInvalidValue);
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = cudaGraphNodeTypeHost;
    d.fn = pNodeParams->fn;
    d.user = pNodeParams->userData;
    return sim_result(set_node(node, cudaGraphNodeTypeHost, &d));
}

SIM_API cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
    SIM_ENTER();
    if (pGraph == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(node, cudaGraphNodeTypeGraph);
    if (n)
        *pGraph = (cudaGraph_t)n->u.child;
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

static cudaError_t get_event(cudaGraphNode_t node, enum cudaGraphNodeType type, cudaEvent_t *out) {
    if (out == NULL)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = typed(node, type);
    if (n)
        *out = n->u.event;
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : cudaErrorInvalidValue;
}

static cudaError_t set_event(cudaGraphNode_t node, enum cudaGraphNodeType type, cudaEvent_t ev) {
    sim_node_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.event = ev;
    return set_node(node, type, &d);
}

SIM_API cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    SIM_ENTER();
    return sim_result(get_event(node, cudaGraphNodeTypeEventRecord, event_out));
}

SIM_API cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(set_event(node, cudaGraphNodeTypeEventRecord, event));
}

SIM_API cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    SIM_ENTER();
    return sim_result(get_event(node, cudaGraphNodeTypeWaitEvent, event_out));
}

SIM_API cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    SIM_ENTER();
    return sim_result(set_event(node, cudaGraphNodeTypeWaitEvent, event));
}

SIM_API cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                                   struct cudaMemAllocNodeParams *params_out) {
    NODE_GET_PARAMS(node, cudaGraphNodeTypeMemAlloc, params_out, *params_out, u.alloc.p);
}

SIM_API cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out) {
    NODE_GET_PARAMS(node, cudaGraphNodeTypeMemFree, dptr_out, *(void **)dptr_out, u.free_ptr);
}

/* ---- structure ----------------------------------------------------------------------------- */

SIM_API cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
    SIM_ENTER();
    if (pType == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = sim_gnode_get(node);
    if (n)
        *pType = n->type;
    pthread_mutex_unlock(&sim_sched_lock);
    return n ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

/* The query convention: with a NULL array, the count; else up to *count entries, the rest NULL,
 * and *count becomes the number written. */
static void fill(cudaGraphNode_t *out, size_t *count, sim_gnode *const *v, size_t n) {
    if (out == NULL) {
        *count = n;
        return;
    }
    size_t k = n < *count ? n : *count;
    for (size_t i = 0; i < *count; i++)
        out[i] = i < k ? (cudaGraphNode_t)v[i] : NULL;
    *count = k;
}

SIM_API cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes_out,
                                      size_t *numNodes) {
    SIM_ENTER();
    if (numNodes == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    if (g)
        fill(nodes_out, numNodes, g->nodes, g->n);
    pthread_mutex_unlock(&sim_sched_lock);
    return g ? cudaSuccess : sim_result(cudaErrorInvalidValue);
}

SIM_API cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                          size_t *pNumRootNodes) {
    SIM_ENTER();
    if (pNumRootNodes == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    cudaError_t e = g ? cudaSuccess : cudaErrorInvalidValue;
    sim_gnode **roots = g ? malloc((g->n ? g->n : 1) * sizeof *roots) : NULL;
    if (g && roots == NULL)
        e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        size_t k = 0;
        for (size_t i = 0; i < g->n; i++)
            if (g->nodes[i]->nin == 0)
                roots[k++] = g->nodes[i];
        fill(pRootNodes, pNumRootNodes, roots, k);
    }
    free(roots);
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

/* Edge data must be asked for when some is not zero, or the answer would lose it. */
static bool has_data(const cudaGraphEdgeData *d) {
    return memcmp(d, &NO_EDGE_DATA, sizeof *d) != 0;
}

SIM_API cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from,
                                      cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                                      size_t *numEdges) {
    SIM_ENTER();
    if (numEdges == NULL || (from == NULL) != (to == NULL) || (edgeData && from == NULL))
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    cudaError_t e = g ? cudaSuccess : cudaErrorInvalidValue;
    size_t total = 0, k = 0;
    for (size_t i = 0; g && i < g->n; i++) {
        const sim_gnode *n = g->nodes[i];
        for (size_t j = 0; j < n->nin; j++, total++) {
            if (from == NULL || k >= *numEdges)
                continue;
            if (edgeData == NULL && has_data(&n->in[j].data))
                e = cudaErrorLossyQuery;
            from[k] = (cudaGraphNode_t)n->in[j].node;
            to[k] = (cudaGraphNode_t)n;
            if (edgeData)
                edgeData[k] = n->in[j].data;
            k++;
        }
    }
    if (e == cudaSuccess) {
        if (from == NULL) {
            *numEdges = total;
        } else {
            for (size_t i = k; i < *numEdges; i++) {
                from[i] = to[i] = NULL;
                if (edgeData)
                    edgeData[i] = NO_EDGE_DATA;
            }
            *numEdges = k;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

static cudaError_t neighbours(cudaGraphNode_t node, cudaGraphNode_t *out,
                              cudaGraphEdgeData *edgeData, size_t *count, bool dependents) {
    if (count == NULL || (edgeData && out == NULL))
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = sim_gnode_get(node);
    cudaError_t e = n ? cudaSuccess : cudaErrorInvalidValue;
    size_t total = n ? (dependents ? n->nout : n->nin) : 0, k = 0;
    for (size_t i = 0; e == cudaSuccess && out && i < total && k < *count; i++, k++) {
        const sim_gnode *other = dependents ? n->out[i] : n->in[i].node;
        const cudaGraphEdgeData *d = NULL;
        if (dependents) {
            for (size_t j = 0; j < other->nin; j++)
                if (other->in[j].node == n)
                    d = &other->in[j].data;
        } else {
            d = &n->in[i].data;
        }
        if (edgeData == NULL && d && has_data(d))
            e = cudaErrorLossyQuery;
        out[k] = (cudaGraphNode_t)other;
        if (edgeData)
            edgeData[k] = d ? *d : NO_EDGE_DATA;
    }
    if (e == cudaSuccess) {
        if (out == NULL) {
            *count = total;
        } else {
            for (size_t i = k; i < *count; i++) {
                out[i] = NULL;
                if (edgeData)
                    edgeData[i] = NO_EDGE_DATA;
            }
            *count = k;
        }
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                 cudaGraphNode_t *pDependencies,
                                                 cudaGraphEdgeData *edgeData,
                                                 size_t *pNumDependencies) {
    SIM_ENTER();
    return sim_result(neighbours(node, pDependencies, edgeData, pNumDependencies, false));
}

SIM_API cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node,
                                                   cudaGraphNode_t *pDependentNodes,
                                                   cudaGraphEdgeData *edgeData,
                                                   size_t *pNumDependentNodes) {
    SIM_ENTER();
    return sim_result(neighbours(node, pDependentNodes, edgeData, pNumDependentNodes, true));
}

/* Edges are checked all before any is changed: a failing call changes nothing. */
static cudaError_t edges_call(cudaGraph_t graph, const cudaGraphNode_t *from,
                              const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                              size_t n, bool add) {
    if (n > 0 && (from == NULL || to == NULL))
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    cudaError_t e = g ? cudaSuccess : cudaErrorInvalidValue;
    if (e == cudaSuccess && !add && g->mem_nodes > 0)
        e = cudaErrorInvalidValue; /* edges of graphs with memory nodes stay */
    for (size_t i = 0; e == cudaSuccess && i < n; i++) {
        sim_gnode *a = sim_gnode_get(from[i]), *b = sim_gnode_get(to[i]);
        if (a == NULL || b == NULL || a == b || a->graph != g || b->graph != g)
            e = cudaErrorInvalidValue;
        else if (has_edge(a, b) != !add)
            e = cudaErrorInvalidValue; /* adding an existing edge, removing a missing one */
        else if (add && (e = check_edge(a, b->type, edgeData ? &edgeData[i] : NULL)) != cudaSuccess)
            break;
        for (size_t j = 0; e == cudaSuccess && j < i; j++)
            if (from[j] == from[i] && to[j] == to[i])
                e = cudaErrorInvalidValue;
    }
    for (size_t i = 0; e == cudaSuccess && add && i < n; i++)
        if (reserve_edge((sim_gnode *)from[i], (sim_gnode *)to[i]) != 0)
            e = cudaErrorMemoryAllocation;
    for (size_t i = 0; e == cudaSuccess && i < n; i++) {
        if (add)
            add_edge((sim_gnode *)from[i], (sim_gnode *)to[i], edgeData ? &edgeData[i] : NULL);
        else
            remove_edge((sim_gnode *)from[i], (sim_gnode *)to[i]);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return e;
}

SIM_API cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                             const cudaGraphNode_t *to,
                                             const cudaGraphEdgeData *edgeData,
                                             size_t numDependencies) {
    SIM_ENTER();
    return sim_result(edges_call(graph, from, to, edgeData, numDependencies, true));
}

SIM_API cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                const cudaGraphNode_t *to,
                                                const cudaGraphEdgeData *edgeData,
                                                size_t numDependencies) {
    SIM_ENTER();
    (void)edgeData;
    return sim_result(edges_call(graph, from, to, NULL, numDependencies, false));
}

SIM_API cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_sched_lock);
    sim_gnode *n = sim_gnode_get(node);
    /* not from graphs with memory nodes, nor from one a capture is adding to */
    cudaError_t e = n && n->graph->mem_nodes == 0 && !sim_graph_root(n->graph)->capture
                        ? cudaSuccess
                        : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        sim_graph *g = n->graph;
        while (n->nin)
            remove_edge(n->in[0].node, n);
        while (n->nout)
            remove_edge(n, n->out[0]);
        for (size_t i = 0; i < g->n; i++) {
            if (g->nodes[i] == n) {
                memmove(&g->nodes[i], &g->nodes[i + 1], (g->n - i - 1) * sizeof *g->nodes);
                g->n--;
                break;
            }
        }
        free_node(n, g->shadow);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

/* ---- the generic node API ------------------------------------------------------------------- */

cudaError_t sim_desc_from_params(const struct cudaGraphNodeParams *p, sim_node_desc *d) {
    memset(d, 0, sizeof *d);
    if (p == NULL || p->reserved0[0] || p->reserved0[1] || p->reserved0[2])
        return cudaErrorInvalidValue;
    d->type = p->type;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams k;
        k.func = p->kernel.func;
        k.gridDim = p->kernel.gridDim;
        k.blockDim = p->kernel.blockDim;
        k.sharedMemBytes = p->kernel.sharedMemBytes;
        k.kernelParams = p->kernel.kernelParams;
        k.extra = p->kernel.extra;
        return kernel_desc(&k, d);
    }
    case cudaGraphNodeTypeMemcpy:
        if (p->memcpy.flags || p->memcpy.reserved[0] || p->memcpy.reserved[1] ||
            p->memcpy.reserved[2])
            return cudaErrorInvalidValue;
        return copy_desc_3d(&p->memcpy.copyParams, d);
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams m;
        m.dst = p->memset.dst;
        m.pitch = p->memset.pitch;
        m.value = p->memset.value;
        m.elementSize = p->memset.elementSize;
        m.width = p->memset.width;
        m.height = p->memset.height;
        return memset_desc(&m, d);
    }
    case cudaGraphNodeTypeHost:
        d->fn = p->host.fn;
        d->user = p->host.userData;
        return cudaSuccess;
    case cudaGraphNodeTypeGraph:
        if (p->graph.ownership != cudaGraphChildGraphOwnershipClone &&
            p->graph.ownership != cudaGraphChildGraphOwnershipMove)
            return cudaErrorInvalidValue;
        d->child_move = p->graph.ownership == cudaGraphChildGraphOwnershipMove;
        d->child = p->graph.graph;
        return cudaSuccess;
    case cudaGraphNodeTypeEmpty:
        return cudaSuccess;
    case cudaGraphNodeTypeWaitEvent:
        d->event = p->eventWait.event;
        return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
        d->event = p->eventRecord.event;
        return cudaSuccess;
    case cudaGraphNodeTypeMemAlloc:
        d->pool = &p->alloc.poolProps;
        d->access = p->alloc.accessDescs;
        d->access_count = p->alloc.accessDescCount;
        d->bytes = p->alloc.bytesize;
        return cudaSuccess;
    case cudaGraphNodeTypeMemFree:
        d->dptr = p->free.dptr;
        return cudaSuccess;
    case cudaGraphNodeTypeExtSemaphoreSignal:
    case cudaGraphNodeTypeExtSemaphoreWait:
    case cudaGraphNodeTypeConditional:
        return cudaErrorNotSupported; /* no external semaphores, no conditional nodes here */
    default:
        return cudaErrorInvalidValue;
    }
}

SIM_API cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     const cudaGraphEdgeData *dependencyData,
                                     size_t numDependencies,
                                     struct cudaGraphNodeParams *nodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = sim_desc_from_params(nodeParams, &d);
    if (e == cudaSuccess)
        e = add_node(pGraphNode, graph, pDependencies, dependencyData, numDependencies, &d);
    if (e == cudaSuccess && d.type == cudaGraphNodeTypeMemAlloc)
        nodeParams->alloc.dptr = d.dptr;
    free(d.arg_blob);
    return sim_result(e);
}

/* Kernel, copy, memset, host and event nodes take new parameters; the others cannot. */
SIM_API cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node,
                                           struct cudaGraphNodeParams *nodeParams) {
    SIM_ENTER();
    sim_node_desc d;
    cudaError_t e = sim_desc_from_params(nodeParams, &d);
    if (e == cudaSuccess && (d.type == cudaGraphNodeTypeGraph || d.type == cudaGraphNodeTypeEmpty ||
                             d.type == cudaGraphNodeTypeMemAlloc ||
                             d.type == cudaGraphNodeTypeMemFree))
        e = cudaErrorNotSupported;
    if (e == cudaSuccess)
        e = set_node(node, d.type, &d);
    free(d.arg_blob);
    return sim_result(e);
}

/* ---- DOT output ---------------------------------------------------------------------------- */

static const char *type_name(enum cudaGraphNodeType t) {
    switch (t) {
    case cudaGraphNodeTypeKernel: return "KERNEL";
    case cudaGraphNodeTypeMemcpy: return "MEMCPY";
    case cudaGraphNodeTypeMemset: return "MEMSET";
    case cudaGraphNodeTypeHost: return "HOST";
    case cudaGraphNodeTypeGraph: return "CHILD_GRAPH";
    case cudaGraphNodeTypeEmpty: return "EMPTY";
    case cudaGraphNodeTypeWaitEvent: return "WAIT_EVENT";
    case cudaGraphNodeTypeEventRecord: return "EVENT_RECORD";
    case cudaGraphNodeTypeMemAlloc: return "MEM_ALLOC";
    case cudaGraphNodeTypeMemFree: return "MEM_FREE";
    default: return "UNKNOWN";
    }
}

static const char *copy_direction(const sim_gnode *n) {
    sim_ptrinfo d, s;
    pthread_mutex_lock(&sim_mem_lock);
    sim_mem_lookup_ex(n->u.copy.x.dst, &d, true);
    sim_mem_lookup_ex(n->u.copy.x.src, &s, true);
    pthread_mutex_unlock(&sim_mem_lock);
    bool dd = sim_is_device_side(d.type), sd = sim_is_device_side(s.type);
    return dd && sd ? "DtoD" : dd ? "HtoD" : sd ? "DtoH" : "HtoH";
}

/* Nodes are named by their ids; child graphs are clusters, entered and left through their node's
 * edges drawn to and from the cluster's first node. */
static void dot_graph(FILE *f, const sim_graph *g, unsigned flags, int depth) {
    bool verbose = flags & cudaGraphDebugDotFlagsVerbose;
    fprintf(f, "%*ssubgraph cluster_%llu {\n%*slabel=\"graph_%llu\";\n", depth * 4, "",
            g->id, depth * 4 + 4, "", g->id);
    for (size_t i = 0; i < g->n; i++) {
        const sim_gnode *n = g->nodes[i];
        fprintf(f, "%*s\"node_%llu\" [shape=box, label=\"%s\\nnode_id %llu", depth * 4 + 4, "",
                n->id, type_name(n->type), n->id);
        switch (n->type) {
        case cudaGraphNodeTypeKernel: {
            const char *name = sim_kernel_name(n->u.kernel.func);
            fprintf(f, "\\n%s", name ? name : "(unknown kernel)");
            if (verbose || (flags & cudaGraphDebugDotFlagsKernelNodeParams))
                fprintf(f, "\\ngrid (%u,%u,%u) block (%u,%u,%u) shared %u",
                        n->u.kernel.grid.x, n->u.kernel.grid.y, n->u.kernel.grid.z,
                        n->u.kernel.block.x, n->u.kernel.block.y, n->u.kernel.block.z,
                        n->u.kernel.shmem);
            break;
        }
        case cudaGraphNodeTypeMemcpy:
            fprintf(f, "\\n%s", copy_direction(n));
            if (verbose || (flags & cudaGraphDebugDotFlagsMemcpyNodeParams))
                fprintf(f, "\\n%p -> %p (%zu x %zu x %zu)", (const void *)n->u.copy.x.src,
                        (void *)n->u.copy.x.dst, n->u.copy.x.width, n->u.copy.x.height,
                        n->u.copy.x.depth);
            break;
        case cudaGraphNodeTypeMemset:
            if (verbose || (flags & cudaGraphDebugDotFlagsMemsetNodeParams))
                fprintf(f, "\\n%p value %u element %u width %zu height %zu",
                        n->u.memset.p.dst, n->u.memset.p.value, n->u.memset.p.elementSize,
                        n->u.memset.p.width, n->u.memset.p.height);
            break;
        case cudaGraphNodeTypeHost:
            if (verbose || (flags & cudaGraphDebugDotFlagsHostNodeParams))
                fprintf(f, "\\nfn %p data %p", (void *)(uintptr_t)n->u.host.fn,
                        n->u.host.userData);
            break;
        case cudaGraphNodeTypeEventRecord:
        case cudaGraphNodeTypeWaitEvent:
            if (verbose || (flags & cudaGraphDebugDotFlagsEventNodeParams))
                fprintf(f, "\\nevent %p", (void *)n->u.event);
            break;
        case cudaGraphNodeTypeMemAlloc:
            fprintf(f, "\\n%p %zu bytes", n->u.alloc.p.dptr, n->u.alloc.p.bytesize);
            break;
        case cudaGraphNodeTypeMemFree:
            fprintf(f, "\\n%p", n->u.free_ptr);
            break;
        default:
            break;
        }
        if (verbose || (flags & cudaGraphDebugDotFlagsHandles))
            fprintf(f, "\\nhandle %p", (const void *)n);
        fprintf(f, "\"];\n");
        if (n->type == cudaGraphNodeTypeGraph)
            dot_graph(f, n->u.child, flags, depth + 1);
    }
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->nin; j++)
            fprintf(f, "%*s\"node_%llu\" -> \"node_%llu\";\n", depth * 4 + 4, "",
                    g->nodes[i]->in[j].node->id, g->nodes[i]->id);
    for (size_t i = 0; i < g->n; i++) /* a child graph node before its graph's roots */
        if (g->nodes[i]->type == cudaGraphNodeTypeGraph)
            for (size_t j = 0; j < g->nodes[i]->u.child->n; j++)
                if (g->nodes[i]->u.child->nodes[j]->nin == 0)
                    fprintf(f, "%*s\"node_%llu\" -> \"node_%llu\" [style=dashed];\n",
                            depth * 4 + 4, "", g->nodes[i]->id,
                            g->nodes[i]->u.child->nodes[j]->id);
    fprintf(f, "%*s}\n", depth * 4, "");
}

SIM_API cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path,
                                           unsigned int flags) {
    SIM_ENTER();
    if (path == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_reg_lock); /* kernel names */
    pthread_mutex_lock(&sim_sched_lock);
    sim_graph *g = sim_graph_get(graph);
    cudaError_t e = g ? cudaSuccess : cudaErrorInvalidValue;
    FILE *f = g ? fopen(path, "w") : NULL;
    if (g && f == NULL)
        e = cudaErrorOperatingSystem;
    if (f) {
        fprintf(f, "digraph dot {\n    compound=true;\n");
        dot_graph(f, g, flags, 1);
        fprintf(f, "}\n");
        if (fclose(f) != 0)
            e = cudaErrorOperatingSystem;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    pthread_mutex_unlock(&sim_reg_lock);
    return sim_result(e);
}

/* ---- graph memory attributes --------------------------------------------------------------- */

/* Graph memory is mapped only while allocated (nothing is kept for reuse): what is reserved is
 * what is used. */
SIM_API cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                   void *value) {
    SIM_ENTER();
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    if (value == NULL || attr < cudaGraphMemAttrUsedMemCurrent ||
        attr > cudaGraphMemAttrReservedMemHigh)
        return sim_result(cudaErrorInvalidValue);
    size_t current, high;
    pthread_mutex_lock(&sim_mem_lock);
    sim_graph_mem_stats(device, &current, &high);
    pthread_mutex_unlock(&sim_mem_lock);
    bool is_high = attr == cudaGraphMemAttrUsedMemHigh || attr == cudaGraphMemAttrReservedMemHigh;
    *(unsigned long long *)value = is_high ? high : current;
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                   void *value) {
    SIM_ENTER();
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    if (value == NULL || (attr != cudaGraphMemAttrUsedMemHigh &&
                          attr != cudaGraphMemAttrReservedMemHigh) ||
        *(unsigned long long *)value != 0) /* only the high-water marks, and only to zero */
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_mem_lock);
    sim_graph_mem_reset_high(device);
    pthread_mutex_unlock(&sim_mem_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceGraphMemTrim(int device) {
    SIM_ENTER();
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    return cudaSuccess; /* nothing is cached */
}
