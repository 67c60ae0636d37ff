/* One node of an executable graph changed: the per-node cudaGraphExec*SetParams calls and
 * cudaGraphNodeSetEnabled record the node as it now is, replacing the node of the same id in the
 * executable graph's description (docs/CAPTURE.md, "CUDA graphs"). */
#include "graph_record.h"

/* Records the call with the node's new description (replacing the node of the same id). */
static void changed(at_call *c, cudaError_t r, cudaGraphExec_t exec, enc_graph_node *n) {
    at_graph_walk wk = {.exec = exec};
    if (r == cudaSuccess) {
        at_graph_emit_node(&wk, n, true, c, r);
    } else {
        at_record_call(c, r);
    }
    at_leave(c);
}

APPTRACE_HOOK(cudaGraphExecKernelNodeSetParams, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                              const struct cudaKernelNodeParams *pNodeParams)) {
    REAL(cudaGraphExecKernelNodeSetParams);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecKernelNodeSetParams))
        return real_cudaGraphExecKernelNodeSetParams(hGraphExec, node, pNodeParams);
    cudaError_t r = real_cudaGraphExecKernelNodeSetParams(hGraphExec, node, pNodeParams);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_KERNEL};
    enc_launch launch;
    uint8_t blob[ENC_MAX_LAUNCH_ARGS];
    if (r == cudaSuccess) {
        at_graph_kernel(pNodeParams, &launch, blob);
        m.launch = &launch;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

APPTRACE_HOOK(cudaGraphExecMemcpyNodeSetParams, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                              const struct cudaMemcpy3DParms *pNodeParams)) {
    REAL(cudaGraphExecMemcpyNodeSetParams);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecMemcpyNodeSetParams))
        return real_cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, pNodeParams);
    cudaError_t r = real_cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, pNodeParams);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_MEMCPY};
    enc_copy copy;
    if (r == cudaSuccess) {
        at_graph_copy(pNodeParams, &copy);
        m.copy = &copy;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

APPTRACE_HOOK(cudaGraphExecMemcpyNodeSetParams1D, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                                void *dst, const void *src, size_t count,
                                                                enum cudaMemcpyKind kind)) {
    REAL(cudaGraphExecMemcpyNodeSetParams1D);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecMemcpyNodeSetParams1D))
        return real_cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, src, count, kind);
    cudaError_t r = real_cudaGraphExecMemcpyNodeSetParams1D(hGraphExec, node, dst, src, count, kind);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_MEMCPY};
    enc_copy copy = {.dst = (uint64_t)(uintptr_t)dst, .src = (uint64_t)(uintptr_t)src, .bytes = count,
                     .dims = 1, .async = true, .device = at_tls.device};
    if (r == cudaSuccess) {
        at_copy_kinds(&copy, kind, dst, src);
        m.copy = &copy;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

APPTRACE_HOOK(cudaGraphExecMemsetNodeSetParams, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                              const struct cudaMemsetParams *pNodeParams)) {
    REAL(cudaGraphExecMemsetNodeSetParams);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecMemsetNodeSetParams))
        return real_cudaGraphExecMemsetNodeSetParams(hGraphExec, node, pNodeParams);
    cudaError_t r = real_cudaGraphExecMemsetNodeSetParams(hGraphExec, node, pNodeParams);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_MEMSET};
    enc_memset set;
    if (r == cudaSuccess) {
        at_graph_memset(pNodeParams, &set);
        m.memset = &set;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

APPTRACE_HOOK(cudaGraphNodeSetEnabled, cudaError_t, (cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                     unsigned int isEnabled)) {
    REAL(cudaGraphNodeSetEnabled);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphNodeSetEnabled))
        return real_cudaGraphNodeSetEnabled(hGraphExec, hNode, isEnabled);
    cudaError_t r = real_cudaGraphNodeSetEnabled(hGraphExec, hNode, isEnabled);
    /* the node as the graph has it, disabled or not */
    at_graph_walk wk = {.exec = hGraphExec, .replace = true};
    at_event e;
    if (r == cudaSuccess && at_graph_no_error_pending() && at_begin(&e, &c, (int)r)) {
        enc_graph_exec h = {.exec = (uint64_t)(uintptr_t)hGraphExec, .part = true, .replace = true,
                            .device = at_tls.device};
        uint8_t *head = enc_graph_exec_begin(&e.w, &h);
        enc_graph_exec_end(&e.w, head);
        at_commit(&e);
        at_graph_walk_node(&wk, hNode, 0, MAX_DEPTH);
    } else {
        at_record_call(&c, r);
    }
    at_leave(&c);
    return r;
}

/* ---- the other per-node setters of an executable graph ---- */

/* A copy node's new parameters to or from a device variable (`to`: into it). */
static void symbol_node(enc_copy *m, const void *symbol, const void *other, size_t count, size_t offset,
                        enum cudaMemcpyKind kind, bool to) {
    const char *name = NULL;
    uint64_t device_address = 0;
    at_symbol_resolve(symbol, &name, &device_address);
    uint64_t var = device_address != 0 ? device_address + offset : 0;
    *m = (enc_copy){.dst = to ? var : (uint64_t)(uintptr_t)other, .src = to ? (uint64_t)(uintptr_t)other : var,
                    .bytes = count, .dims = 1, .async = true, .device = at_tls.device, .symbol = name,
                    .symbol_host_address = (uint64_t)(uintptr_t)symbol, .symbol_offset = offset};
    at_copy_kinds(m, kind, (const void *)(uintptr_t)m->dst, (const void *)(uintptr_t)m->src);
}

APPTRACE_HOOK(cudaGraphExecMemcpyNodeSetParamsToSymbol, cudaError_t,
              (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const void *symbol, const void *src, size_t count,
               size_t offset, enum cudaMemcpyKind kind)) {
    REAL(cudaGraphExecMemcpyNodeSetParamsToSymbol);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecMemcpyNodeSetParamsToSymbol))
        return real_cudaGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec, node, symbol, src, count, offset, kind);
    cudaError_t r = real_cudaGraphExecMemcpyNodeSetParamsToSymbol(hGraphExec, node, symbol, src, count, offset, kind);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_MEMCPY};
    enc_copy copy;
    if (r == cudaSuccess) {
        symbol_node(&copy, symbol, src, count, offset, kind, true);
        m.copy = &copy;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

APPTRACE_HOOK(cudaGraphExecMemcpyNodeSetParamsFromSymbol, cudaError_t,
              (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *symbol, size_t count,
               size_t offset, enum cudaMemcpyKind kind)) {
    REAL(cudaGraphExecMemcpyNodeSetParamsFromSymbol);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecMemcpyNodeSetParamsFromSymbol))
        return real_cudaGraphExecMemcpyNodeSetParamsFromSymbol(hGraphExec, node, dst, symbol, count, offset, kind);
    cudaError_t r = real_cudaGraphExecMemcpyNodeSetParamsFromSymbol(hGraphExec, node, dst, symbol, count, offset, kind);
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node, .kind = PB_GraphNodeKind_GRAPH_MEMCPY};
    enc_copy copy;
    if (r == cudaSuccess) {
        symbol_node(&copy, symbol, dst, count, offset, kind, false);
        m.copy = &copy;
    }
    changed(&c, r, hGraphExec, &m);
    return r;
}

/* cudaGraphExecNodeSetParams: kernel, memcpy and memset nodes are described anew; the others
 * (host, event, child graph, memory nodes) run nothing the consumer counts as an operation. */
APPTRACE_HOOK(cudaGraphExecNodeSetParams, cudaError_t, (cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                        struct cudaGraphNodeParams *nodeParams)) {
    REAL(cudaGraphExecNodeSetParams);
    at_call c;
    if (!AT_ENTER(&c, APPTRACE_API_cudaGraphExecNodeSetParams))
        return real_cudaGraphExecNodeSetParams(graphExec, node, nodeParams);
    cudaError_t r = real_cudaGraphExecNodeSetParams(graphExec, node, nodeParams);
    enc_launch launch;
    enc_copy copy;
    enc_memset set;
    uint8_t blob[ENC_MAX_LAUNCH_ARGS];
    enc_graph_node m = {.id = (uint64_t)(uintptr_t)node};
    bool described = r == cudaSuccess && nodeParams != NULL;
    if (described && nodeParams->type == cudaGraphNodeTypeKernel) {
        const struct cudaKernelNodeParamsV2 *k = &nodeParams->kernel;
        struct cudaKernelNodeParams p = {.func = k->func, .gridDim = k->gridDim, .blockDim = k->blockDim,
                                         .sharedMemBytes = k->sharedMemBytes, .kernelParams = k->kernelParams,
                                         .extra = k->extra};
        at_graph_kernel(&p, &launch, blob);
        m.kind = PB_GraphNodeKind_GRAPH_KERNEL;
        m.launch = &launch;
    } else if (described && nodeParams->type == cudaGraphNodeTypeMemcpy) {
        at_graph_copy(&nodeParams->memcpy.copyParams, &copy);
        m.kind = PB_GraphNodeKind_GRAPH_MEMCPY;
        m.copy = &copy;
    } else if (described && nodeParams->type == cudaGraphNodeTypeMemset) {
        const struct cudaMemsetParamsV2 *s = &nodeParams->memset;
        struct cudaMemsetParams p = {.dst = s->dst, .pitch = s->pitch, .value = s->value,
                                     .elementSize = s->elementSize, .width = s->width, .height = s->height};
        at_graph_memset(&p, &set);
        m.kind = PB_GraphNodeKind_GRAPH_MEMSET;
        m.memset = &set;
    } else {
        described = false;
    }
    if (described) {
        changed(&c, r, graphExec, &m);
    } else {
        at_record_call(&c, r);
        at_leave(&c);
    }
    return r;
}
