/* What the graph hooks share: describing an executable graph's nodes (hooks_graph.c) and
 * recording one node changed (hooks_graph_nodes.c). */
#ifndef APPTRACE_GRAPH_RECORD_H
#define APPTRACE_GRAPH_RECORD_H

#include "hook.h"

/* Child graphs are expanded to this depth. */
#define MAX_DEPTH 16

typedef struct {
    cudaGraphExec_t exec;
    uint32_t nodes, edges, not_recorded;
    bool count_only;
    bool replace; /* the nodes replace those of the same id (one node changed) */
} at_graph_walk;

/* Whether no error is pending: the introspection runs only then (it clears its own errors). */
bool at_graph_no_error_pending(void);
/* A node's parameters as the Copy, Memset and KernelLaunch records hold them. */
void at_graph_kernel(const struct cudaKernelNodeParams *p, enc_launch *m, uint8_t *blob);
void at_graph_copy(const struct cudaMemcpy3DParms *p, enc_copy *m);
void at_graph_memset(const struct cudaMemsetParams *p, enc_memset *m);
/* One GraphExec record holding node `n` (on the call `c`'s Event when not NULL). */
void at_graph_emit_node(const at_graph_walk *wk, const enc_graph_node *n, bool replace, at_call *c, cudaError_t r);
/* Describes node `n` as the graph now has it (its child graph too, while `depth` is below 16). */
void at_graph_walk_node(at_graph_walk *wk, cudaGraphNode_t n, uint64_t parent, int depth);

#endif
