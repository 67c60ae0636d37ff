/* CUDA graphs on the simulated device: the objects shared by graph.c (graphs and nodes, the
 * explicit API), exec.c (executable graphs: instantiation, launch, update) and capture.c (stream
 * capture). Everything here is guarded by sim_sched_lock.
 *
 * Handles are pointers to these records, validated through tables before use (a made-up or
 * destroyed handle is an error, never a crash). A node's dependencies are its incoming edges,
 * each with its edge data; its dependents are kept too, for the queries and for destruction.
 * Nodes keep the order in which they were added: it is the order every query returns, and the
 * order by which cudaGraphExecUpdate pairs the nodes of two graphs. */
#ifndef APPTRACE_SIM_GRAPH_H
#define APPTRACE_SIM_GRAPH_H

#include "sim.h"

typedef struct sim_gnode sim_gnode;
typedef struct sim_graph sim_graph;

typedef struct {
    sim_gnode *node;
    cudaGraphEdgeData data;
} sim_edge;

/* A graph allocation: one per alloc node, shared with the executable graphs made from it.
 * `outstanding` while a launch has allocated it and nothing has freed it (or is about to). */
typedef struct {
    void *addr;
    size_t size;
    int device;
    int refs;              /* the alloc node and its copies in executable graphs */
    sim_gnode *alloc_node; /* NULL once its graph is destroyed */
    sim_gnode *free_node;  /* the free node for it (in its own graph or another), if any */
    bool outstanding;
} sim_gmem;

/* Launch attributes a kernel node keeps (cudaGraphKernelNodeSetAttribute), by attribute id. */
#define SIM_NODE_ATTRS 17

typedef struct {
    const void *func;
    dim3 grid, block;
    unsigned shmem;
    void *blob;           /* owns the copied arguments */
    void **params, **extra;
    unsigned attr_set;    /* bit per attribute id */
    cudaLaunchAttributeValue attrs[SIM_NODE_ATTRS];
} sim_kparams;

typedef struct {
    struct cudaMemcpy3DParms p; /* as returned by cudaGraphMemcpyNodeGetParams */
    sim_xfer x;
    bool one_d;                 /* created or set as a 1D copy (exec updates keep that) */
} sim_cparams;

struct sim_gnode {
    unsigned long long id;    /* unique in the process: identifies nodes across clones */
    unsigned long long origin; /* id of the node this is a clone of, 0 if none */
    sim_graph *graph;
    enum cudaGraphNodeType type;
    int device;               /* current device when added */
    bool enabled;             /* executable graphs: cudaGraphNodeSetEnabled */
    size_t tmp;               /* scratch for graph algorithms */
    sim_edge *in;
    size_t nin, in_cap;
    sim_gnode **out;
    size_t nout, out_cap;
    union {
        sim_kparams kernel;
        sim_cparams copy;
        struct {
            struct cudaMemsetParams p;
            sim_xfer x;
        } memset;
        struct cudaHostNodeParams host;
        sim_graph *child;
        cudaEvent_t event;
        struct {
            struct cudaMemAllocNodeParams p;
            struct cudaMemAccessDesc *access;
            sim_gmem *mem;
        } alloc;
        void *free_ptr;
    } u;
};

struct sim_graph {
    unsigned long long id;
    sim_gnode **nodes;
    size_t n, cap;
    sim_gnode *parent;            /* the child graph node embedding it, or NULL */
    bool shadow;                  /* an executable graph's private copy: no handle */
    int execs;                    /* executable graphs instantiated from it and alive */
    int mem_nodes;                /* alloc and free nodes, in it and its child graphs */
    struct sim_capture *capture;  /* a capture sequence adds to it */
};

/* ---- graph.c ------------------------------------------------------------------------------- */

sim_graph *sim_graph_new(bool shadow);
void sim_graph_free(sim_graph *g); /* with its nodes and child graphs; the handle goes too */
sim_graph *sim_graph_get(cudaGraph_t h); /* NULL unless a live graph with a handle */
sim_gnode *sim_gnode_get(cudaGraphNode_t h);
sim_graph *sim_graph_root(sim_graph *g);
/* Adds a node of d->type with the given dependencies (edge data may be NULL: all zero). Checks
 * the dependencies (in g, no duplicates) and the parameters. */
cudaError_t sim_graph_add(sim_graph *g, sim_node_desc *d, sim_gnode *const *deps,
                          const cudaGraphEdgeData *edges, size_t n, sim_gnode **out);
/* A copy of g (shadow: without handles, for an executable graph; may hold memory nodes). */
sim_graph *sim_graph_clone(const sim_graph *g, bool shadow, cudaError_t *e);
/* Copies the parameters of node `from` into `to` (same type): exec updates. */
cudaError_t sim_gnode_copy_params(sim_gnode *to, const sim_gnode *from);
/* Orders g's nodes: every node after its dependencies; NULL (and *bad set to a node on it) when
 * there is a cycle. The caller frees the array. */
sim_gnode **sim_graph_topo(const sim_graph *g, sim_gnode **bad);
sim_gmem *sim_gmem_find(const void *addr);
void sim_gmem_unref(sim_gmem *m);
/* The node a cudaGraphNodeParams describes (cudaGraphAddNode and the generic SetParams; takes
 * sim_reg_lock for kernels: call before sim_sched_lock). The caller frees d->arg_blob if no node
 * took it. cudaErrorNotSupported for conditional and external semaphore nodes. */
cudaError_t sim_desc_from_params(const struct cudaGraphNodeParams *p, sim_node_desc *d);

#endif
