// CUDA graphs built with the explicit API on the simulated runtime: nodes of every kind, their
// parameters, edges and the queries, cloning, instantiation and its errors, launches (real bytes,
// dependency order, host nodes, ordering against the stream, simulated time), executable graph
// updates, node parameters in executable graphs, child graphs, event nodes, graph memory, and the
// DOT output. Stream capture is sim_capture's. Timing checks run in a child with a known config.
#include "check.h"

#include <cuda.h> // CU_LAUNCH_PARAM_* (macros only)

#include <atomic>
#include <mutex>
#include <vector>

static const char *kConfig = R"(# timing injected by sim_graphs
[timing]
h2d_pinned_latency_ns = 7000
h2d_pinned_bandwidth_bytes_per_s = 10e9
kernel_duration_ns = 4000
memset_latency_ns = 0

[device *]
memory_bandwidth_bytes_per_s = 1e12
async_engine_count = 2
)";

__device__ int dev_var[16];

__global__ void kernel() {}

__global__ void kernel_args(int a, float *p, double d) {
    if (p)
        p[0] = a + (float)d;
}

static std::mutex order_lock;
static std::vector<int> order;

static void CUDART_CB append(void *p) {
    std::lock_guard<std::mutex> g(order_lock);
    order.push_back((int)(long)p);
}

struct Gate {
    std::atomic<bool> open{false};
};

static void CUDART_CB gate_fn(void *p) {
    while (!((Gate *)p)->open)
        usleep(200);
}

static cudaGraphNode_t empty_node(cudaGraph_t g, const cudaGraphNode_t *deps = nullptr,
                                  size_t n = 0) {
    cudaGraphNode_t node = nullptr;
    EXPECT_OK(cudaGraphAddEmptyNode(&node, g, deps, n));
    return node;
}

static cudaGraphNode_t host_node(cudaGraph_t g, int tag, const cudaGraphNode_t *deps = nullptr,
                                 size_t n = 0) {
    cudaGraphNode_t node = nullptr;
    cudaHostNodeParams hp = {append, (void *)(long)tag};
    EXPECT_OK(cudaGraphAddHostNode(&node, g, deps, n, &hp));
    return node;
}

static void run(cudaGraph_t g, cudaStream_t s) {
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaGraphExecDestroy(x));
}

// ---- structure ------------------------------------------------------------------------------

static void structure() {
    cudaGraph_t g, other;
    EXPECT_ERR(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphCreate(nullptr, 0), cudaErrorInvalidValue);
    EXPECT_OK(cudaGraphCreate(&g, 0));
    EXPECT_OK(cudaGraphCreate(&other, 0));
    cudaGraphNode_t a = empty_node(g), b = empty_node(g, &a, 1), c = empty_node(g, &a, 1);
    cudaGraphNode_t bc[] = {b, c};
    cudaGraphNode_t d = empty_node(g, bc, 2);
    cudaGraphNode_t foreign = empty_node(other);
    cudaGraphNode_t n;
    EXPECT_ERR(cudaGraphAddEmptyNode(&n, g, &foreign, 1), cudaErrorInvalidValue);
    cudaGraphNode_t dup[] = {a, a};
    EXPECT_ERR(cudaGraphAddEmptyNode(&n, g, dup, 2), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddEmptyNode(&n, g, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddEmptyNode(nullptr, g, nullptr, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddEmptyNode(&n, (cudaGraph_t)0x1234, nullptr, 0), cudaErrorInvalidValue);

    size_t count = 0;
    EXPECT_OK(cudaGraphGetNodes(g, nullptr, &count));
    EXPECT_EQ(count, 4);
    cudaGraphNode_t nodes[6];
    count = 6;
    EXPECT_OK(cudaGraphGetNodes(g, nodes, &count));
    EXPECT_EQ(count, 4);
    CHECK(nodes[0] == a && nodes[1] == b && nodes[2] == c && nodes[3] == d && !nodes[4]);
    count = 2;
    EXPECT_OK(cudaGraphGetNodes(g, nodes, &count));
    EXPECT_EQ(count, 2);
    EXPECT_OK(cudaGraphGetRootNodes(g, nullptr, &count));
    EXPECT_EQ(count, 1);
    count = 1;
    EXPECT_OK(cudaGraphGetRootNodes(g, nodes, &count));
    CHECK(nodes[0] == a);
    EXPECT_OK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
    EXPECT_EQ(count, 4);
    cudaGraphNode_t from[5], to[5];
    count = 5;
    EXPECT_OK(cudaGraphGetEdges(g, from, to, nullptr, &count));
    EXPECT_EQ(count, 4);
    CHECK(from[0] == a && to[0] == b && from[3] == c && to[3] == d && !from[4] && !to[4]);
    EXPECT_OK(cudaGraphNodeGetDependencies(d, nullptr, nullptr, &count));
    EXPECT_EQ(count, 2);
    EXPECT_OK(cudaGraphNodeGetDependentNodes(a, nullptr, nullptr, &count));
    EXPECT_EQ(count, 2);
    count = 2;
    EXPECT_OK(cudaGraphNodeGetDependentNodes(a, nodes, nullptr, &count));
    CHECK(nodes[0] == b && nodes[1] == c);
    cudaGraphNodeType type = cudaGraphNodeTypeKernel;
    EXPECT_OK(cudaGraphNodeGetType(d, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeEmpty);
    EXPECT_ERR(cudaGraphNodeGetType((cudaGraphNode_t)0x99, &type), cudaErrorInvalidValue);

    // edges: added, refused (existing, self, foreign, missing), removed
    EXPECT_OK(cudaGraphAddDependencies(g, &a, &d, nullptr, 1));
    EXPECT_OK(cudaGraphNodeGetDependencies(d, nullptr, nullptr, &count));
    EXPECT_EQ(count, 3);
    EXPECT_ERR(cudaGraphAddDependencies(g, &a, &d, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddDependencies(g, &a, &a, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddDependencies(g, &a, &foreign, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddDependencies(g, nullptr, nullptr, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_OK(cudaGraphRemoveDependencies(g, &a, &d, nullptr, 1));
    EXPECT_ERR(cudaGraphRemoveDependencies(g, &a, &d, nullptr, 1), cudaErrorInvalidValue);
    // edge data: only kernel nodes have ports; programmatic edges join two kernels
    cudaGraphEdgeData ed = {};
    ed.from_port = cudaGraphKernelNodePortProgrammatic;
    EXPECT_ERR(cudaGraphAddDependencies(g, &a, &d, &ed, 1), cudaErrorInvalidValue);
    ed = {};
    ed.to_port = 1;
    EXPECT_ERR(cudaGraphAddDependencies(g, &a, &d, &ed, 1), cudaErrorInvalidValue);

    // destroying a node takes its edges
    EXPECT_OK(cudaGraphDestroyNode(b));
    EXPECT_OK(cudaGraphGetNodes(g, nullptr, &count));
    EXPECT_EQ(count, 3);
    EXPECT_OK(cudaGraphNodeGetDependencies(d, nullptr, nullptr, &count));
    EXPECT_EQ(count, 1);
    EXPECT_ERR(cudaGraphNodeGetType(b, &type), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphDestroyNode(b), cudaErrorInvalidValue);

    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_ERR(cudaGraphDestroy(g), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphGetNodes(g, nullptr, &count), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphNodeGetType(a, &type), cudaErrorInvalidValue);
    EXPECT_OK(cudaGraphDestroy(other));
    cudaGetLastError();
}

// ---- node parameters ------------------------------------------------------------------------

static void kernel_nodes() {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    int a = 7;
    float *p = nullptr;
    double dv = 2.5;
    void *args[] = {&a, &p, &dv};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)kernel_args;
    kp.gridDim = dim3(4);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    cudaGraphNode_t k;
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    a = 99; // the node copied the arguments
    cudaKernelNodeParams got = {};
    EXPECT_OK(cudaGraphKernelNodeGetParams(k, &got));
    CHECK(got.func == (void *)kernel_args);
    EXPECT_EQ(got.gridDim.x, 4);
    EXPECT_EQ(got.blockDim.x, 64);
    CHECK(got.kernelParams != nullptr && got.extra == nullptr);
    if (got.kernelParams) {
        EXPECT_EQ(*(int *)got.kernelParams[0], 7);
        EXPECT_EQ(*(double *)got.kernelParams[2], 2.5);
    }
    cudaGraphNodeType type;
    EXPECT_OK(cudaGraphNodeGetType(k, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeKernel);

    // arguments as one buffer (the `extra` form)
    struct {
        int a;
        float *p;
        double d;
    } buf = {5, nullptr, 1.0};
    size_t size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    kp.kernelParams = nullptr;
    kp.extra = extra;
    EXPECT_OK(cudaGraphKernelNodeSetParams(k, &kp));
    buf.a = 6;
    EXPECT_OK(cudaGraphKernelNodeGetParams(k, &got));
    CHECK(got.extra != nullptr && got.kernelParams == nullptr);
    if (got.extra)
        EXPECT_EQ(((int *)got.extra[1])[0], 5);

    // errors: both forms, no kernel, bad configuration
    kp.kernelParams = args;
    EXPECT_ERR(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp), cudaErrorInvalidValue);
    kp.extra = nullptr;
    kp.func = (void *)&a;
    EXPECT_ERR(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp), cudaErrorInvalidDeviceFunction);
    kp.func = (void *)kernel_args;
    kp.blockDim = dim3(2048);
    EXPECT_ERR(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp), cudaErrorInvalidConfiguration);
    EXPECT_ERR(cudaGraphAddKernelNode(&k, g, nullptr, 0, nullptr), cudaErrorInvalidValue);

    // attributes
    cudaKernelNodeAttrValue v = {};
    v.priority = 3;
    EXPECT_OK(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, &v));
    v.priority = 0;
    EXPECT_OK(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &v));
    EXPECT_EQ(v.priority, 3);
    cudaGraphNode_t k2;
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    EXPECT_OK(cudaGraphAddKernelNode(&k2, g, nullptr, 0, &kp));
    EXPECT_OK(cudaGraphKernelNodeCopyAttributes(k2, k));
    v.priority = 0;
    EXPECT_OK(cudaGraphKernelNodeGetAttribute(k2, cudaKernelNodeAttributePriority, &v));
    EXPECT_EQ(v.priority, 3);
    EXPECT_ERR(cudaGraphKernelNodeGetAttribute(k2, (cudaKernelNodeAttrID)99, &v),
               cudaErrorInvalidValue);
    cudaGraphNode_t e = empty_node(g);
    EXPECT_ERR(cudaGraphKernelNodeGetParams(e, &got), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphKernelNodeGetAttribute(e, cudaKernelNodeAttributePriority, &v),
               cudaErrorInvalidValue);
    // a kernel node with no arguments
    kp.func = (void *)kernel;
    kp.kernelParams = nullptr;
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    EXPECT_OK(cudaGraphDestroy(g));
    cudaGetLastError();
}

static void copy_and_memset_nodes() {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    char *d, *h;
    EXPECT_OK(cudaMalloc(&d, 4096));
    EXPECT_OK(cudaMallocHost(&h, 4096));
    cudaGraphNode_t c, m;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, d, h, 1024, cudaMemcpyHostToDevice));
    cudaMemcpy3DParms p = {};
    EXPECT_OK(cudaGraphMemcpyNodeGetParams(c, &p));
    CHECK(p.srcPtr.ptr == h && p.dstPtr.ptr == d);
    EXPECT_EQ(p.extent.width, 1024);
    EXPECT_EQ(p.kind, cudaMemcpyHostToDevice);
    EXPECT_OK(cudaGraphMemcpyNodeSetParams1D(c, h, d, 512, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaGraphMemcpyNodeGetParams(c, &p));
    CHECK(p.srcPtr.ptr == d && p.dstPtr.ptr == h && p.extent.width == 512);
    // bad memory, kind, size
    EXPECT_ERR(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, d, h, 8192, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, h, h, 16, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, d, h, 16, (cudaMemcpyKind)9),
               cudaErrorInvalidMemcpyDirection);
    EXPECT_ERR(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, d, h, 0, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemcpyNode(&c, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    p = {};
    p.srcPtr = make_cudaPitchedPtr(h, 64, 64, 4);
    p.dstPtr = make_cudaPitchedPtr(d, 128, 64, 4);
    p.extent = make_cudaExtent(64, 4, 1);
    p.kind = cudaMemcpyDefault;
    EXPECT_OK(cudaGraphAddMemcpyNode(&c, g, nullptr, 0, &p));
    EXPECT_OK(cudaGraphMemcpyNodeSetParams(c, &p));

    // symbols
    int vals[16];
    for (int i = 0; i < 16; i++)
        vals[i] = i * 3;
    cudaGraphNode_t to_sym, from_sym;
    EXPECT_OK(cudaGraphAddMemcpyNodeToSymbol(&to_sym, g, nullptr, 0, dev_var, vals, sizeof vals,
                                             0, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, g, &to_sym, 1, h, dev_var, 8,
                                               4 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT_ERR(cudaGraphAddMemcpyNodeToSymbol(&c, g, nullptr, 0, dev_var, vals, sizeof vals, 4,
                                              cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemcpyNodeToSymbol(&c, g, nullptr, 0, vals, vals, 4, 0,
                                              cudaMemcpyHostToDevice),
               cudaErrorInvalidSymbol);
    EXPECT_OK(cudaGraphMemcpyNodeSetParamsToSymbol(to_sym, dev_var, vals, 8, 0,
                                                   cudaMemcpyHostToDevice));
    EXPECT_OK(cudaGraphMemcpyNodeSetParamsFromSymbol(from_sym, h, dev_var, 8, 0,
                                                     cudaMemcpyDeviceToHost));

    // memsets: 1-, 2- and 4-byte elements, 2D with a pitch
    cudaMemsetParams ms = {};
    ms.dst = d;
    ms.value = 0x11;
    ms.elementSize = 1;
    ms.width = 100;
    ms.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &ms));
    cudaMemsetParams got = {};
    EXPECT_OK(cudaGraphMemsetNodeGetParams(m, &got));
    CHECK(got.dst == d && got.value == 0x11 && got.width == 100 && got.elementSize == 1);
    ms.elementSize = 4;
    ms.width = 16;
    ms.height = 4;
    ms.pitch = 256;
    EXPECT_OK(cudaGraphMemsetNodeSetParams(m, &ms));
    EXPECT_OK(cudaGraphMemsetNodeGetParams(m, &got));
    CHECK(got.height == 4 && got.pitch == 256 && got.elementSize == 4);
    ms.elementSize = 3;
    EXPECT_ERR(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &ms), cudaErrorInvalidValue);
    ms.elementSize = 4;
    ms.pitch = 32; // narrower than a row
    EXPECT_ERR(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &ms), cudaErrorInvalidValue);
    ms.pitch = 4096; // past the allocation
    EXPECT_ERR(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &ms), cudaErrorInvalidValue);
    ms.dst = h - 4096 * 16; // not device or pinned memory
    ms.height = 1;
    EXPECT_ERR(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &ms), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphMemsetNodeGetParams(c, &got), cudaErrorInvalidValue);

    // host nodes
    cudaGraphNode_t hn = host_node(g, 1);
    cudaHostNodeParams hp = {};
    EXPECT_OK(cudaGraphHostNodeGetParams(hn, &hp));
    CHECK(hp.fn == append && hp.userData == (void *)1);
    hp.userData = (void *)2;
    EXPECT_OK(cudaGraphHostNodeSetParams(hn, &hp));
    hp.fn = nullptr;
    EXPECT_ERR(cudaGraphAddHostNode(&hn, g, nullptr, 0, &hp), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphHostNodeSetParams(hn, &hp), cudaErrorInvalidValue);

    // event nodes
    cudaEvent_t e1, e2;
    EXPECT_OK(cudaEventCreate(&e1));
    EXPECT_OK(cudaEventCreate(&e2));
    cudaGraphNode_t rec, wait;
    EXPECT_OK(cudaGraphAddEventRecordNode(&rec, g, nullptr, 0, e1));
    EXPECT_OK(cudaGraphAddEventWaitNode(&wait, g, nullptr, 0, e1));
    cudaEvent_t ev = nullptr;
    EXPECT_OK(cudaGraphEventRecordNodeGetEvent(rec, &ev));
    CHECK(ev == e1);
    EXPECT_OK(cudaGraphEventWaitNodeSetEvent(wait, e2));
    EXPECT_OK(cudaGraphEventWaitNodeGetEvent(wait, &ev));
    CHECK(ev == e2);
    EXPECT_OK(cudaGraphEventRecordNodeSetEvent(rec, e2));
    EXPECT_ERR(cudaGraphEventRecordNodeGetEvent(wait, &ev), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddEventRecordNode(&rec, g, nullptr, 0, (cudaEvent_t)0x77),
               cudaErrorInvalidValue);
    cudaGraphNodeType type;
    EXPECT_OK(cudaGraphNodeGetType(wait, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeWaitEvent);
    EXPECT_OK(cudaGraphNodeGetType(rec, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeEventRecord);

    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaEventDestroy(e1));
    EXPECT_OK(cudaEventDestroy(e2));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
    cudaGetLastError();
}

// ---- launches -------------------------------------------------------------------------------

// Copies and memsets move real bytes, in dependency order, on every launch.
static void launches_move_bytes() {
    const size_t n = 1 << 16;
    unsigned char *h_in = (unsigned char *)malloc(n), *h_out;
    unsigned char *d_a, *d_b;
    EXPECT_OK(cudaMallocHost(&h_out, n));
    EXPECT_OK(cudaMalloc(&d_a, n));
    EXPECT_OK(cudaMalloc(&d_b, n));
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t in, set, dd, out;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&in, g, nullptr, 0, d_a, h_in, n, cudaMemcpyHostToDevice));
    cudaMemsetParams ms = {};
    ms.dst = d_a + 1000;
    ms.value = 0xA1B2C3D4u;
    ms.elementSize = 4;
    ms.width = 8;
    ms.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, g, &in, 1, &ms));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&dd, g, &set, 1, d_b, d_a, n, cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&out, g, &dd, 1, h_out, d_b, n, cudaMemcpyDeviceToHost));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    for (int launch = 0; launch < 3; launch++) {
        for (size_t i = 0; i < n; i++)
            h_in[i] = (unsigned char)(i * 7 + launch);
        EXPECT_OK(cudaGraphLaunch(x, s));
        EXPECT_OK(cudaStreamSynchronize(s));
        bool same = true;
        for (size_t i = 0; i < n; i++) {
            unsigned char want = i >= 1000 && i < 1032
                                     ? (unsigned char)(0xA1B2C3D4u >> (8 * ((i - 1000) % 4)))
                                     : (unsigned char)(i * 7 + launch);
            same = same && h_out[i] == want;
        }
        CHECK(same);
    }
    // 2-byte elements, 2D with a pitch
    EXPECT_OK(cudaMemset(d_b, 0, n));
    cudaGraph_t g2;
    EXPECT_OK(cudaGraphCreate(&g2, 0));
    ms.dst = d_b;
    ms.value = 0xBEEF;
    ms.elementSize = 2;
    ms.width = 3;
    ms.height = 2;
    ms.pitch = 10;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, g2, nullptr, 0, &ms));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&out, g2, &set, 1, h_out, d_b, 32, cudaMemcpyDeviceToHost));
    run(g2, s);
    unsigned char want[20] = {0xEF, 0xBE, 0xEF, 0xBE, 0xEF, 0xBE, 0, 0, 0, 0,
                              0xEF, 0xBE, 0xEF, 0xBE, 0xEF, 0xBE, 0, 0, 0, 0};
    CHECK(memcmp(h_out, want, sizeof want) == 0);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaGraphDestroy(g2));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d_a));
    EXPECT_OK(cudaFree(d_b));
    EXPECT_OK(cudaFreeHost(h_out));
    free(h_in);
}

// Host nodes run after their dependencies; the launch waits for the stream's earlier work, and
// the stream's later work waits for the whole graph.
static void launch_order() {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a = host_node(g, 1);
    cudaGraphNode_t b = host_node(g, 2, &a, 1), c = host_node(g, 3, &a, 1);
    cudaGraphNode_t bc[] = {b, c};
    host_node(g, 4, bc, 2);
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    order.clear();
    Gate gate;
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &gate));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)5));
    EXPECT_OK(cudaGraphLaunch(x, s)); // a second launch, after the first
    usleep(20000);
    {
        std::lock_guard<std::mutex> l(order_lock);
        CHECK(order.empty()); // nothing passes the gate
    }
    EXPECT_ERR(cudaStreamQuery(s), cudaErrorNotReady);
    gate.open = true;
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(order.size(), 9);
    if (order.size() == 9) {
        CHECK(order[0] == 1 && order[3] == 4 && order[4] == 5 && order[5] == 1 && order[8] == 4);
        CHECK((order[1] == 2 && order[2] == 3) || (order[1] == 3 && order[2] == 2));
    }
    // the same executable graph on another stream still follows its previous launch
    cudaStream_t t;
    EXPECT_OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    order.clear();
    Gate gate2;
    cudaGraph_t gg;
    EXPECT_OK(cudaGraphCreate(&gg, 0));
    cudaHostNodeParams hp = {gate_fn, &gate2};
    cudaGraphNode_t gn, after;
    EXPECT_OK(cudaGraphAddHostNode(&gn, gg, nullptr, 0, &hp));
    hp = {append, (void *)7};
    EXPECT_OK(cudaGraphAddHostNode(&after, gg, &gn, 1, &hp));
    cudaGraphExec_t gx;
    EXPECT_OK(cudaGraphInstantiate(&gx, gg, 0));
    EXPECT_OK(cudaGraphLaunch(gx, s));
    EXPECT_OK(cudaGraphLaunch(gx, t));
    EXPECT_ERR(cudaStreamQuery(t), cudaErrorNotReady);
    gate2.open = true;
    EXPECT_OK(cudaStreamSynchronize(t));
    EXPECT_EQ(order.size(), 2);
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaGraphExecDestroy(gx));
    EXPECT_OK(cudaGraphDestroy(gg));
    EXPECT_OK(cudaStreamDestroy(t));

    // the legacy stream and per-thread default streams launch graphs too
    order.clear();
    EXPECT_OK(cudaGraphLaunch(x, 0));
    EXPECT_OK(cudaGraphLaunch(x, cudaStreamPerThread));
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_EQ(order.size(), 8);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamDestroy(s));
}

static void instantiate_errors() {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a = empty_node(g), b = empty_node(g, &a, 1), c = empty_node(g, &b, 1);
    cudaGraphExec_t x;
    EXPECT_ERR(cudaGraphInstantiate(&x, g, 0x100), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphInstantiate(&x, g, cudaGraphInstantiateFlagUpload), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphInstantiate(&x, g,
                                    cudaGraphInstantiateFlagDeviceLaunch |
                                        cudaGraphInstantiateFlagAutoFreeOnLaunch),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphInstantiate(nullptr, g, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphInstantiate(&x, (cudaGraph_t)0x42, 0), cudaErrorInvalidValue);
    // device launch: only kernels, copies, memsets and child graphs, and some work
    cudaGraphInstantiateParams ip = {};
    ip.flags = cudaGraphInstantiateFlagDeviceLaunch;
    EXPECT_ERR(cudaGraphInstantiateWithParams(&x, g, &ip), cudaErrorInvalidValue);
    EXPECT_EQ(ip.result_out, cudaGraphInstantiateNodeOperationNotSupported);
    CHECK(ip.errNode_out == a);
    // a cycle
    EXPECT_OK(cudaGraphAddDependencies(g, &c, &a, nullptr, 1));
    EXPECT_ERR(cudaGraphInstantiate(&x, g, 0), cudaErrorInvalidValue);
    ip = {};
    EXPECT_ERR(cudaGraphInstantiateWithParams(&x, g, &ip), cudaErrorInvalidValue);
    EXPECT_EQ(ip.result_out, cudaGraphInstantiateInvalidStructure);
    CHECK(ip.errNode_out == a || ip.errNode_out == b || ip.errNode_out == c);
    EXPECT_OK(cudaGraphRemoveDependencies(g, &c, &a, nullptr, 1));
    // with parameters: upload into a stream
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    ip = {};
    ip.flags = cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagAutoFreeOnLaunch;
    ip.uploadStream = s;
    EXPECT_OK(cudaGraphInstantiateWithParams(&x, g, &ip));
    EXPECT_EQ(ip.result_out, cudaGraphInstantiateSuccess);
    CHECK(ip.errNode_out == nullptr);
    unsigned long long flags = 0;
    EXPECT_OK(cudaGraphExecGetFlags(x, &flags));
    EXPECT_EQ(flags, cudaGraphInstantiateFlagAutoFreeOnLaunch);
    EXPECT_OK(cudaGraphUpload(x, s));
    EXPECT_ERR(cudaGraphUpload(x, (cudaStream_t)0x5), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_ERR(cudaGraphLaunch(x, (cudaStream_t)0x5), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaStreamSynchronize(s));
    // the graph may go; the executable graph stays
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphExecDestroy(x), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphExecGetFlags(x, &flags), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphUpload(x, s), cudaErrorInvalidValue);
    // an empty graph launches (and orders nothing but itself)
    EXPECT_OK(cudaGraphCreate(&g, 0));
    EXPECT_OK(cudaGraphInstantiateWithFlags(&x, g, 0));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

static void child_graphs_and_clones() {
    cudaGraph_t child, g;
    EXPECT_OK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t c1 = host_node(child, 2);
    host_node(child, 3, &c1, 1);
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t first = host_node(g, 1), node, last;
    EXPECT_OK(cudaGraphAddChildGraphNode(&node, g, &first, 1, child));
    last = host_node(g, 4, &node, 1);
    EXPECT_ERR(cudaGraphAddChildGraphNode(&node, g, nullptr, 0, (cudaGraph_t)0x8),
               cudaErrorInvalidValue);
    // the node holds a copy: changing the original does not change it
    host_node(child, 9);
    cudaGraph_t inner;
    EXPECT_OK(cudaGraphChildGraphNodeGetGraph(node, &inner));
    size_t count = 0;
    EXPECT_OK(cudaGraphGetNodes(inner, nullptr, &count));
    EXPECT_EQ(count, 2);
    EXPECT_ERR(cudaGraphDestroy(inner), cudaErrorInvalidValue); // owned by the node
    EXPECT_ERR(cudaGraphChildGraphNodeGetGraph(first, &inner), cudaErrorInvalidValue);
    cudaGraphNodeType type;
    EXPECT_OK(cudaGraphNodeGetType(node, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeGraph);
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    order.clear();
    run(g, s);
    EXPECT_EQ(order.size(), 4);
    if (order.size() == 4)
        CHECK(order[0] == 1 && order[1] == 2 && order[2] == 3 && order[3] == 4);

    // clones
    cudaGraph_t clone;
    EXPECT_OK(cudaGraphClone(&clone, g));
    cudaGraphNode_t found;
    EXPECT_OK(cudaGraphNodeFindInClone(&found, last, clone));
    CHECK(found != last);
    EXPECT_OK(cudaGraphNodeGetType(found, &type));
    EXPECT_EQ(type, cudaGraphNodeTypeHost);
    cudaGraphNode_t inner_first;
    count = 1;
    EXPECT_OK(cudaGraphGetNodes(inner, &inner_first, &count));
    EXPECT_OK(cudaGraphNodeFindInClone(&found, inner_first, clone)); // inside the child graph
    CHECK(found != inner_first);
    EXPECT_ERR(cudaGraphNodeFindInClone(&found, last, child), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphClone(nullptr, g), cudaErrorInvalidValue);
    order.clear();
    run(clone, s);
    EXPECT_EQ(order.size(), 4);
    EXPECT_OK(cudaGraphDestroy(clone));
    EXPECT_OK(cudaGraphDestroy(child));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

// ---- executable graphs ----------------------------------------------------------------------

static void exec_node_params() {
    char *d, *h, *h2;
    EXPECT_OK(cudaMalloc(&d, 256));
    EXPECT_OK(cudaMallocHost(&h, 256));
    EXPECT_OK(cudaMallocHost(&h2, 256));
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t set, copy, hn, kn, rec;
    cudaMemsetParams ms = {};
    ms.dst = d;
    ms.value = 1;
    ms.elementSize = 1;
    ms.width = 256;
    ms.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &ms));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&copy, g, &set, 1, h, d, 256, cudaMemcpyDeviceToHost));
    hn = host_node(g, 1, &copy, 1);
    cudaKernelNodeParams kp = {};
    kp.func = (void *)kernel;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    EXPECT_OK(cudaGraphAddKernelNode(&kn, g, nullptr, 0, &kp));
    cudaEvent_t ev, ev2;
    EXPECT_OK(cudaEventCreate(&ev));
    EXPECT_OK(cudaEventCreate(&ev2));
    EXPECT_OK(cudaGraphAddEventRecordNode(&rec, g, &kn, 1, ev));
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));

    // the executable graph's nodes change, not the graph's
    ms.value = 2;
    EXPECT_OK(cudaGraphExecMemsetNodeSetParams(x, set, &ms));
    EXPECT_OK(cudaGraphExecMemcpyNodeSetParams1D(x, copy, h2, d, 256, cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {append, (void *)2};
    EXPECT_OK(cudaGraphExecHostNodeSetParams(x, hn, &hp));
    EXPECT_OK(cudaGraphExecKernelNodeSetParams(x, kn, &kp));
    EXPECT_OK(cudaGraphExecEventRecordNodeSetEvent(x, rec, ev2));
    order.clear();
    memset(h, 0, 256);
    memset(h2, 0, 256);
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(h2[255], 2);
    EXPECT_EQ(h[0], 0);
    EXPECT_EQ(order.size(), 1);
    if (order.size() == 1)
        EXPECT_EQ(order[0], 2);
    EXPECT_OK(cudaEventQuery(ev2));
    cudaMemsetParams got;
    EXPECT_OK(cudaGraphMemsetNodeGetParams(set, &got));
    EXPECT_EQ(got.value, 1);

    // disabled nodes do nothing
    unsigned on = 0;
    EXPECT_OK(cudaGraphNodeGetEnabled(x, set, &on));
    EXPECT_EQ(on, 1);
    EXPECT_OK(cudaGraphNodeSetEnabled(x, set, 0));
    EXPECT_OK(cudaGraphNodeGetEnabled(x, set, &on));
    EXPECT_EQ(on, 0);
    EXPECT_OK(cudaMemset(d, 9, 256));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(h2[0], 9);
    EXPECT_OK(cudaGraphNodeSetEnabled(x, set, 1));
    EXPECT_ERR(cudaGraphNodeSetEnabled(x, hn, 0), cudaErrorInvalidValue); // host nodes cannot

    // errors: a node of another type, of another graph, changed memory kinds, 2D copies
    EXPECT_ERR(cudaGraphExecMemsetNodeSetParams(x, copy, &ms), cudaErrorInvalidValue);
    cudaGraph_t other;
    EXPECT_OK(cudaGraphCreate(&other, 0));
    cudaGraphNode_t stranger = host_node(other, 5);
    EXPECT_ERR(cudaGraphExecHostNodeSetParams(x, stranger, &hp), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphExecMemcpyNodeSetParams1D(x, copy, h2, h, 256, cudaMemcpyHostToHost),
               cudaErrorInvalidValue); // the source was device memory
    ms.dst = h;                       // the target was device memory
    EXPECT_ERR(cudaGraphExecMemsetNodeSetParams(x, set, &ms), cudaErrorInvalidValue);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(d, 64, 64, 4);
    p.dstPtr = make_cudaPitchedPtr(h2, 64, 64, 4);
    p.extent = make_cudaExtent(64, 4, 1);
    p.kind = cudaMemcpyDeviceToHost;
    EXPECT_ERR(cudaGraphExecMemcpyNodeSetParams(x, copy, &p), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphExecKernelNodeSetParams(nullptr, kn, &kp), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphExecEventRecordNodeSetEvent(x, rec, (cudaEvent_t)0x3),
               cudaErrorInvalidValue);

    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaGraphDestroy(other));
    EXPECT_OK(cudaEventDestroy(ev));
    EXPECT_OK(cudaEventDestroy(ev2));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
    EXPECT_OK(cudaFreeHost(h2));
    cudaGetLastError();
}

// A graph with `tag` host nodes after a copy of n bytes from src to dst.
static cudaGraph_t copy_graph(void *dst, const void *src, size_t n, int tag) {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t c;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, dst, src, n, cudaMemcpyDefault));
    host_node(g, tag, &c, 1);
    return g;
}

static void exec_update() {
    char *d, *h1, *h2;
    EXPECT_OK(cudaMalloc(&d, 64));
    EXPECT_OK(cudaMallocHost(&h1, 64));
    EXPECT_OK(cudaMallocHost(&h2, 64));
    EXPECT_OK(cudaMemset(d, 0x5a, 64));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    cudaGraph_t g = copy_graph(h1, d, 64, 1);
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    // same shape, new parameters: updated
    cudaGraph_t g2 = copy_graph(h2, d, 64, 2);
    cudaGraphExecUpdateResultInfo info = {};
    EXPECT_OK(cudaGraphExecUpdate(x, g2, &info));
    EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
    order.clear();
    memset(h1, 0, 64);
    memset(h2, 0, 64);
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(h2[10], 0x5a);
    EXPECT_EQ(h1[10], 0);
    EXPECT_EQ(order.size(), 1);
    if (order.size() == 1)
        EXPECT_EQ(order[0], 2);
    // another shape
    cudaGraph_t g3 = copy_graph(h2, d, 64, 3);
    host_node(g3, 4);
    EXPECT_ERR(cudaGraphExecUpdate(x, g3, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    CHECK(info.errorNode == nullptr);
    // another node type
    cudaGraph_t g4;
    EXPECT_OK(cudaGraphCreate(&g4, 0));
    cudaGraphNode_t e = empty_node(g4);
    cudaGraphNode_t h4 = host_node(g4, 5, &e, 1);
    EXPECT_ERR(cudaGraphExecUpdate(x, g4, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT_EQ(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
    CHECK(info.errorNode == e);
    (void)h4;
    // other edges
    cudaGraph_t g5;
    EXPECT_OK(cudaGraphCreate(&g5, 0));
    cudaGraphNode_t c5;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&c5, g5, nullptr, 0, h1, d, 64, cudaMemcpyDefault));
    cudaGraphNode_t h5 = host_node(g5, 6);
    EXPECT_ERR(cudaGraphExecUpdate(x, g5, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    CHECK(info.errorNode == h5);
    // memory of another kind
    cudaGraph_t g6 = copy_graph(h1, h2, 64, 7);
    EXPECT_ERR(cudaGraphExecUpdate(x, g6, &info), cudaErrorGraphExecUpdateFailure);
    EXPECT_EQ(info.result, cudaGraphExecUpdateErrorParametersChanged);
    EXPECT_ERR(cudaGraphExecUpdate(nullptr, g6, &info), cudaErrorInvalidValue);
    EXPECT_EQ(info.result, cudaGraphExecUpdateError);
    // the executable graph kept the successful update
    order.clear();
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(order.size(), 1);
    if (order.size() == 1)
        EXPECT_EQ(order[0], 2);

    // child graphs: updated through the node, or as part of the whole graph
    cudaGraph_t outer;
    EXPECT_OK(cudaGraphCreate(&outer, 0));
    cudaGraphNode_t child_node;
    EXPECT_OK(cudaGraphAddChildGraphNode(&child_node, outer, nullptr, 0, g));
    cudaGraphExec_t ox;
    EXPECT_OK(cudaGraphInstantiate(&ox, outer, 0));
    EXPECT_OK(cudaGraphExecChildGraphNodeSetParams(ox, child_node, g2));
    EXPECT_ERR(cudaGraphExecChildGraphNodeSetParams(ox, child_node, g3), cudaErrorInvalidValue);
    order.clear();
    EXPECT_OK(cudaGraphLaunch(ox, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(order.size(), 1);
    if (order.size() == 1)
        EXPECT_EQ(order[0], 2);

    EXPECT_OK(cudaGraphExecDestroy(ox));
    EXPECT_OK(cudaGraphExecDestroy(x));
    for (cudaGraph_t each : {g, g2, g3, g4, g5, g6, outer})
        EXPECT_OK(cudaGraphDestroy(each));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h1));
    EXPECT_OK(cudaFreeHost(h2));
    cudaGetLastError();
}

// Event record nodes record their event when the graph runs; event wait nodes wait for it.
static void event_nodes() {
    cudaEvent_t ev;
    EXPECT_OK(cudaEventCreate(&ev));
    cudaStream_t s, t;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    // waits: the graph waits for the record on t (behind a gate)
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t w;
    EXPECT_OK(cudaGraphAddEventWaitNode(&w, g, nullptr, 0, ev));
    host_node(g, 1, &w, 1);
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    Gate gate;
    EXPECT_OK(cudaLaunchHostFunc(t, gate_fn, &gate));
    EXPECT_OK(cudaEventRecord(ev, t));
    order.clear();
    EXPECT_OK(cudaGraphLaunch(x, s));
    usleep(10000);
    EXPECT_ERR(cudaStreamQuery(s), cudaErrorNotReady);
    gate.open = true;
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(order.size(), 1);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    // records: the event completes with the graph's work before it
    Gate gate2;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaHostNodeParams hp = {gate_fn, &gate2};
    cudaGraphNode_t gn, r;
    EXPECT_OK(cudaGraphAddHostNode(&gn, g, nullptr, 0, &hp));
    EXPECT_OK(cudaGraphAddEventRecordNode(&r, g, &gn, 1, ev));
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_ERR(cudaEventQuery(ev), cudaErrorNotReady);
    gate2.open = true;
    EXPECT_OK(cudaEventSynchronize(ev));
    EXPECT_OK(cudaStreamSynchronize(s));
    // a destroyed event makes the launch fail
    cudaEvent_t gone;
    EXPECT_OK(cudaEventCreate(&gone));
    EXPECT_OK(cudaGraphExecEventRecordNodeSetEvent(x, r, gone));
    EXPECT_OK(cudaEventDestroy(gone));
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaErrorInvalidValue);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaEventDestroy(ev));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaStreamDestroy(t));
    cudaGetLastError();
}

// ---- graph memory ---------------------------------------------------------------------------

static cudaMemAllocNodeParams alloc_params(size_t bytes) {
    cudaMemAllocNodeParams p = {};
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = bytes;
    return p;
}

static void graph_memory() {
    const size_t n = 1 << 20;
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    unsigned char *h;
    EXPECT_OK(cudaMallocHost(&h, n));
    size_t free0, total;
    EXPECT_OK(cudaMemGetInfo(&free0, &total));

    // alloc, memset, copy out, free: all in one graph
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = alloc_params(n);
    cudaGraphNode_t alloc, set, out, fr;
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    unsigned char *dptr = (unsigned char *)ap.dptr;
    CHECK(dptr != nullptr);
    cudaMemsetParams ms = {};
    ms.dst = dptr;
    ms.value = 0x3c;
    ms.elementSize = 1;
    ms.width = n;
    ms.height = 1;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, g, &alloc, 1, &ms));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&out, g, &set, 1, h, dptr, n, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaGraphAddMemFreeNode(&fr, g, &out, 1, dptr));
    cudaMemAllocNodeParams got = {};
    EXPECT_OK(cudaGraphMemAllocNodeGetParams(alloc, &got));
    CHECK(got.dptr == dptr && got.bytesize == n);
    void *freed = nullptr;
    EXPECT_OK(cudaGraphMemFreeNodeGetParams(fr, &freed));
    CHECK(freed == dptr);
    // not allocated outside a launch
    EXPECT_ERR(cudaMemcpy(h, dptr, 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    cudaPointerAttributes pa;
    EXPECT_OK(cudaPointerGetAttributes(&pa, dptr));
    EXPECT_EQ(pa.type, cudaMemoryTypeUnregistered);
    // the rules of graphs with memory nodes
    cudaGraph_t copy;
    EXPECT_ERR(cudaGraphClone(&copy, g), cudaErrorNotSupported);
    EXPECT_ERR(cudaGraphDestroyNode(set), cudaErrorInvalidValue);
    cudaGraphNode_t again;
    EXPECT_ERR(cudaGraphAddMemFreeNode(&again, g, nullptr, 0, dptr), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemFreeNode(&again, g, nullptr, 0, h), cudaErrorInvalidValue);
    cudaGraph_t outer;
    EXPECT_OK(cudaGraphCreate(&outer, 0));
    EXPECT_ERR(cudaGraphAddChildGraphNode(&again, outer, nullptr, 0, g), cudaErrorInvalidValue);
    ap = alloc_params(0);
    EXPECT_ERR(cudaGraphAddMemAllocNode(&again, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    ap = alloc_params(64);
    ap.poolProps.location.id = 7;
    EXPECT_ERR(cudaGraphAddMemAllocNode(&again, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    ap = alloc_params(64);
    ap.poolProps.location.type = cudaMemLocationTypeHost;
    EXPECT_ERR(cudaGraphAddMemAllocNode(&again, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddMemAllocNode(&again, g, nullptr, 0, nullptr), cudaErrorInvalidValue);

    cudaGraphExec_t x, x2;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_ERR(cudaGraphInstantiate(&x2, g, 0), cudaErrorInvalidValue); // one at a time
    for (int launch = 0; launch < 2; launch++) {
        memset(h, 0, n);
        EXPECT_OK(cudaGraphLaunch(x, s));
        EXPECT_OK(cudaStreamSynchronize(s));
        CHECK(h[0] == 0x3c && h[n - 1] == 0x3c);
    }
    unsigned long long used = 1;
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 0);
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used));
    EXPECT_EQ(used, n);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphInstantiate(&x2, g, 0)); // the previous one is gone
    EXPECT_OK(cudaGraphExecDestroy(x2));

    // an allocation that outlives its launch: stream work may use it, the program frees it
    cudaGraph_t ga;
    EXPECT_OK(cudaGraphCreate(&ga, 0));
    ap = alloc_params(n);
    EXPECT_OK(cudaGraphAddMemAllocNode(&alloc, ga, nullptr, 0, &ap));
    unsigned char *kept = (unsigned char *)ap.dptr;
    ms.dst = kept;
    ms.value = 0x77;
    EXPECT_OK(cudaGraphAddMemsetNode(&set, ga, &alloc, 1, &ms));
    EXPECT_OK(cudaGraphInstantiate(&x, ga, 0));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaMemcpyAsync(h, kept, n, cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    CHECK(h[5] == 0x77);
    size_t free1;
    EXPECT_OK(cudaMemGetInfo(&free1, &total));
    CHECK(free1 + n <= free0);
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, n);
    EXPECT_OK(cudaPointerGetAttributes(&pa, kept));
    EXPECT_EQ(pa.type, cudaMemoryTypeDevice);
    EXPECT_ERR(cudaGraphLaunch(x, s), cudaErrorInvalidValue); // still allocated
    EXPECT_OK(cudaFreeAsync(kept, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_ERR(cudaFree(kept), cudaErrorInvalidValue); // not allocated any more
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaFree(kept));
    EXPECT_OK(cudaGraphExecDestroy(x));
    // ... or the graph frees it before each launch
    EXPECT_OK(cudaGraphInstantiate(&x, ga, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    for (int launch = 0; launch < 3; launch++)
        EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, n);
    // ... or another graph frees it
    cudaGraph_t gf;
    EXPECT_OK(cudaGraphCreate(&gf, 0));
    EXPECT_OK(cudaGraphAddMemFreeNode(&fr, gf, nullptr, 0, kept));
    EXPECT_ERR(cudaGraphAddMemFreeNode(&fr, ga, nullptr, 0, kept), cudaErrorInvalidValue);
    cudaGraphExec_t fx;
    EXPECT_OK(cudaGraphInstantiate(&fx, gf, 0));
    EXPECT_OK(cudaGraphLaunch(fx, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 0);
    EXPECT_ERR(cudaGraphLaunch(fx, s), cudaErrorInvalidValue); // nothing to free
    unsigned long long zero = 0;
    EXPECT_OK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used));
    EXPECT_EQ(used, 0);
    unsigned long long one = 1;
    EXPECT_ERR(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaDeviceGetGraphMemAttribute(5, cudaGraphMemAttrUsedMemHigh, &used),
               cudaErrorInvalidDevice);
    EXPECT_OK(cudaDeviceGraphMemTrim(0));
    // an allocation larger than the device
    cudaGraph_t big;
    EXPECT_OK(cudaGraphCreate(&big, 0));
    ap = alloc_params(total - free0 / 2 + total / 2);
    cudaError_t e = cudaGraphAddMemAllocNode(&alloc, big, nullptr, 0, &ap);
    if (e == cudaSuccess) {
        EXPECT_OK(cudaGraphInstantiate(&x2, big, 0));
        EXPECT_ERR(cudaGraphLaunch(x2, s), cudaErrorMemoryAllocation);
        EXPECT_OK(cudaGraphExecDestroy(x2));
    }
    EXPECT_OK(cudaGraphDestroy(big));

    EXPECT_OK(cudaGraphExecDestroy(fx));
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(gf));
    EXPECT_OK(cudaGraphDestroy(ga));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaGraphDestroy(outer));
    EXPECT_OK(cudaFreeHost(h));
    EXPECT_OK(cudaStreamDestroy(s));
    size_t free2;
    EXPECT_OK(cudaMemGetInfo(&free2, &total));
    EXPECT_EQ(free2, free0);
    cudaGetLastError();
}

// ---- the generic node API (cudaGraphAddNode, cudaGraph[Exec]NodeSetParams) ------------------

static void generic_api() {
    unsigned char *d, *h;
    EXPECT_OK(cudaMalloc(&d, 64));
    EXPECT_OK(cudaMallocHost(&h, 64));
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = d;
    p.memset.value = 7;
    p.memset.elementSize = 1;
    p.memset.width = 64;
    p.memset.height = 1;
    cudaGraphNode_t set, cp, hn, moved;
    EXPECT_OK(cudaGraphAddNode(&set, g, nullptr, nullptr, 0, &p));
    p.memset.value = 8;
    EXPECT_OK(cudaGraphNodeSetParams(set, &p));
    cudaMemsetParams mp;
    EXPECT_OK(cudaGraphMemsetNodeGetParams(set, &mp));
    EXPECT_EQ(mp.value, 8);
    cudaGraphNodeParams c = {};
    c.type = cudaGraphNodeTypeMemcpy;
    c.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(d, 64, 64, 1);
    c.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(h, 64, 64, 1);
    c.memcpy.copyParams.extent = make_cudaExtent(64, 1, 1);
    c.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
    cudaGraphEdgeData ed = {};
    EXPECT_OK(cudaGraphAddNode(&cp, g, &set, &ed, 1, &c));
    cudaGraphNodeParams hp = {};
    hp.type = cudaGraphNodeTypeHost;
    hp.host.fn = append;
    hp.host.userData = (void *)11;
    EXPECT_OK(cudaGraphAddNode(&hn, g, &cp, nullptr, 1, &hp));
    EXPECT_ERR(cudaGraphNodeSetParams(set, &hp), cudaErrorInvalidValue); // another type
    // a graph moved into a node belongs to it
    cudaGraph_t child;
    EXPECT_OK(cudaGraphCreate(&child, 0));
    host_node(child, 12);
    cudaGraphNodeParams gp = {};
    gp.type = cudaGraphNodeTypeGraph;
    gp.graph.graph = child;
    gp.graph.ownership = cudaGraphChildGraphOwnershipMove;
    EXPECT_OK(cudaGraphAddNode(&moved, g, &hn, nullptr, 1, &gp));
    cudaGraph_t inside;
    EXPECT_OK(cudaGraphChildGraphNodeGetGraph(moved, &inside));
    CHECK(inside == child);
    EXPECT_ERR(cudaGraphDestroy(child), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddNode(&moved, g, nullptr, nullptr, 0, &gp), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphNodeSetParams(moved, &gp), cudaErrorNotSupported);
    // what the simulator has no nodes for, and malformed parameters
    cudaGraphNodeParams bad = {};
    bad.type = cudaGraphNodeTypeConditional;
    cudaGraphNode_t n;
    EXPECT_ERR(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &bad), cudaErrorNotSupported);
    bad.type = cudaGraphNodeTypeExtSemaphoreSignal;
    EXPECT_ERR(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &bad), cudaErrorNotSupported);
    bad = p;
    bad.reserved0[1] = 1;
    EXPECT_ERR(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, nullptr), cudaErrorInvalidValue);
    bad = c;
    bad.memcpy.flags = 1;
    EXPECT_ERR(cudaGraphAddNode(&n, g, nullptr, nullptr, 0, &bad), cudaErrorInvalidValue);

    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    p.memset.value = 9;
    EXPECT_OK(cudaGraphExecNodeSetParams(x, set, &p));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    order.clear();
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(h[0], 9);
    EXPECT_EQ(order.size(), 2);
    if (order.size() == 2)
        CHECK(order[0] == 11 && order[1] == 12);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g)); // with the graph moved into it

    // memory nodes
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNodeParams ap = {};
    ap.type = cudaGraphNodeTypeMemAlloc;
    ap.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.alloc.bytesize = 512;
    cudaGraphNode_t an, fn;
    EXPECT_OK(cudaGraphAddNode(&an, g, nullptr, nullptr, 0, &ap));
    CHECK(ap.alloc.dptr != nullptr);
    cudaGraphNodeParams fp = {};
    fp.type = cudaGraphNodeTypeMemFree;
    fp.free.dptr = ap.alloc.dptr;
    EXPECT_OK(cudaGraphAddNode(&fn, g, &an, nullptr, 1, &fp));
    run(g, s);
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
    cudaGetLastError();
}

// ---- DOT ------------------------------------------------------------------------------------

static void dot_print() {
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaKernelNodeParams kp = {};
    kp.func = (void *)kernel;
    kp.gridDim = dim3(2);
    kp.blockDim = dim3(32);
    cudaGraphNode_t k;
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    host_node(g, 1, &k, 1);
    std::string path = "/tmp/apptrace-sim-graphs-" + std::to_string(getpid()) + ".dot";
    EXPECT_OK(cudaGraphDebugDotPrint(g, path.c_str(), cudaGraphDebugDotFlagsVerbose));
    std::string dot = slurp(path);
    CHECK(dot.find("digraph") != std::string::npos);
    CHECK(dot.find("KERNEL") != std::string::npos && dot.find("HOST") != std::string::npos);
    CHECK(dot.find("_Z6kernelv") != std::string::npos);
    CHECK(dot.find("->") != std::string::npos);
    unlink(path.c_str());
    EXPECT_ERR(cudaGraphDebugDotPrint(g, nullptr, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0), cudaErrorOperatingSystem);
    EXPECT_ERR(cudaGraphDebugDotPrint((cudaGraph_t)0x10, path.c_str(), 0), cudaErrorInvalidValue);
    EXPECT_OK(cudaGraphDestroy(g));
    cudaGetLastError();
}

// ---- simulated time (with kConfig) ----------------------------------------------------------

static double timed_launch(cudaGraphExec_t x, cudaStream_t s) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaDeviceSynchronize();
    cudaEventRecord(a, s);
    EXPECT_OK(cudaGraphLaunch(x, s));
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = -1;
    EXPECT_OK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms * 1e6;
}

static void timing() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    cudaKernelNodeParams kp = {};
    kp.func = (void *)kernel;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    // a chain of three kernels
    cudaGraph_t g;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t prev = nullptr, k;
    for (int i = 0; i < 3; i++) {
        EXPECT_OK(cudaGraphAddKernelNode(&k, g, prev ? &prev : nullptr, prev ? 1 : 0, &kp));
        prev = k;
    }
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_NS(timed_launch(x, s), 3 * 4000.0);
    EXPECT_NS(timed_launch(x, s), 3 * 4000.0); // every launch alike
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    // two independent kernels share the compute engine; a copy beside them overlaps
    char *hp, *dp;
    const size_t bytes = 30000;
    EXPECT_OK(cudaMallocHost(&hp, bytes));
    EXPECT_OK(cudaMalloc(&dp, bytes));
    EXPECT_OK(cudaGraphCreate(&g, 0));
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    cudaGraphNode_t c;
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, dp, hp, bytes, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    double copy = 7000 + bytes * 1e9 / 10e9; // 10 us
    EXPECT_NS(timed_launch(x, s), copy > 8000 ? copy : 8000.0);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    // a copy then a kernel that depends on it
    EXPECT_OK(cudaGraphCreate(&g, 0));
    EXPECT_OK(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, dp, hp, bytes, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaGraphAddKernelNode(&k, g, &c, 1, &kp));
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_NS(timed_launch(x, s), copy + 4000);
    // the graph starts after the stream's earlier work and the stream's later work after it
    // (all of it queued behind a gate, so that the host's issue delays do not count)
    cudaEvent_t a, b;
    EXPECT_OK(cudaEventCreate(&a));
    EXPECT_OK(cudaEventCreate(&b));
    EXPECT_OK(cudaDeviceSynchronize());
    Gate gate;
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &gate));
    EXPECT_OK(cudaEventRecord(a, s));
    kernel<<<1, 1, 0, s>>>();
    EXPECT_OK(cudaGraphLaunch(x, s));
    kernel<<<1, 1, 0, s>>>();
    EXPECT_OK(cudaEventRecord(b, s));
    gate.open = true;
    EXPECT_OK(cudaEventSynchronize(b));
    float ms = 0;
    EXPECT_OK(cudaEventElapsedTime(&ms, a, b));
    EXPECT_NS(ms * 1e6, 4000 + copy + 4000 + 4000);
    EXPECT_OK(cudaEventDestroy(a));
    EXPECT_OK(cudaEventDestroy(b));
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaFree(dp));
    EXPECT_OK(cudaFreeHost(hp));
    EXPECT_OK(cudaStreamDestroy(s));
}

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "timing") {
        timing();
        return check_report("sim_graphs timing");
    }
    structure();
    kernel_nodes();
    copy_and_memset_nodes();
    launches_move_bytes();
    launch_order();
    instantiate_errors();
    child_graphs_and_clones();
    exec_node_params();
    exec_update();
    event_nodes();
    graph_memory();
    generic_api();
    dot_print();
    std::string cfg = write_config("graphs", kConfig);
    std::string env = "APPTRACE_SIM_CONFIG=" + cfg;
    const char *timed[] = {env.c_str(), nullptr};
    EXPECT_EQ(run_child(argv[0], "timing", timed), 0);
    unlink(cfg.c_str());
    return check_report("sim_graphs");
}
