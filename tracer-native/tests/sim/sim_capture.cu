// Stream capture on the simulated runtime: what a capturing stream turns into graph nodes (and
// does not run), forks and joins through events, the capture queries, capturing into an existing
// graph and changing a stream's dependencies, the capture modes and the calls they prohibit, and
// every way of invalidating or failing a capture, with CUDA's error codes.
#include "check.h"

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

__global__ void kernel(int *p) {
    if (p)
        p[0] = 1;
}

static std::mutex order_lock;
static std::vector<int> order;

static void CUDART_CB append(void *p) {
    std::lock_guard<std::mutex> g(order_lock);
    order.push_back((int)(long)p);
}

static void CUDART_CB callback(cudaStream_t, cudaError_t, void *) {}

static size_t count_nodes(cudaGraph_t g) {
    size_t n = 0;
    EXPECT_OK(cudaGraphGetNodes(g, nullptr, &n));
    return n;
}

static size_t count_edges(cudaGraph_t g) {
    size_t n = 0;
    EXPECT_OK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n));
    return n;
}

static cudaGraphNodeType type_of(cudaGraphNode_t node) {
    cudaGraphNodeType t = cudaGraphNodeTypeCount;
    EXPECT_OK(cudaGraphNodeGetType(node, &t));
    return t;
}

static cudaStreamCaptureStatus status_of(cudaStream_t s) {
    cudaStreamCaptureStatus st = (cudaStreamCaptureStatus)-1;
    EXPECT_OK(cudaStreamIsCapturing(s, &st));
    return st;
}

// Ends a capture that is expected to have been invalidated.
static void end_invalidated(cudaStream_t s) {
    cudaGraph_t g = (cudaGraph_t)0x1;
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK(g == nullptr);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusNone);
    cudaGetLastError();
}

static void run_graph(cudaGraph_t g, cudaStream_t s) {
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, g, 0));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaGraphExecDestroy(x));
}

struct Memory {
    int *d;
    unsigned char *h;
    Memory() {
        cudaMalloc(&d, 4096);
        cudaMallocHost(&h, 4096);
        cudaMemset(d, 0, 4096);
    }
    ~Memory() {
        cudaFree(d);
        cudaFreeHost(h);
    }
};

// ---- what a capture records ------------------------------------------------------------------

static void basics() {
    Memory m;
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusNone);
    EXPECT_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
               cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal),
               cudaErrorStreamCaptureUnsupported);
    EXPECT_ERR(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamBeginCapture((cudaStream_t)0x77, cudaStreamCaptureModeGlobal),
               cudaErrorInvalidResourceHandle);

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusActive);
    cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    const cudaGraphEdgeData *edges = nullptr;
    size_t ndeps = 9;
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, &id, &graph, &deps, &edges, &ndeps));
    EXPECT_EQ(st, cudaStreamCaptureStatusActive);
    CHECK(id != 0 && graph != nullptr);
    EXPECT_EQ(ndeps, 0);
    EXPECT_ERR(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, nullptr, &edges, nullptr),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamGetCaptureInfo(s, nullptr), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    cudaGetLastError();

    // work becomes nodes, each after the previous one, and does not run
    memset(m.h, 1, 64);
    EXPECT_OK(cudaMemcpyAsync(m.d, m.h, 64, cudaMemcpyHostToDevice, s));
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, &edges, &ndeps));
    EXPECT_EQ(ndeps, 1);
    cudaGraphNode_t copy = ndeps ? deps[0] : nullptr;
    EXPECT_EQ(type_of(copy), cudaGraphNodeTypeMemcpy);
    CHECK(edges != nullptr && edges[0].type == 0);
    kernel<<<1, 1, 0, s>>>(m.d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &ndeps));
    cudaGraphNode_t kn = ndeps ? deps[0] : nullptr;
    EXPECT_EQ(type_of(kn), cudaGraphNodeTypeKernel);
    cudaGraphNode_t dep = nullptr;
    size_t one = 1;
    EXPECT_OK(cudaGraphNodeGetDependencies(kn, &dep, nullptr, &one));
    CHECK(dep == copy);
    EXPECT_OK(cudaMemsetAsync(m.d + 4, 5, 16, s));
    order.clear();
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)1));
    EXPECT_ERR(cudaStreamEndCapture(s, nullptr), cudaErrorInvalidValue);
    cudaGraph_t g = nullptr;
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    CHECK(g == graph);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusNone);
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, &id, &graph));
    EXPECT_EQ(st, cudaStreamCaptureStatusNone);
    EXPECT_ERR(cudaStreamEndCapture(s, &graph), cudaErrorIllegalState);
    EXPECT_OK(cudaStreamSynchronize(s));
    CHECK(order.empty());
    int first = -1;
    EXPECT_OK(cudaMemcpy(&first, m.d, sizeof first, cudaMemcpyDeviceToHost));
    EXPECT_EQ(first, 0); // the captured copy did not run

    EXPECT_EQ(count_nodes(g), 4);
    EXPECT_EQ(count_edges(g), 3);
    cudaKernelNodeParams kp = {};
    EXPECT_OK(cudaGraphKernelNodeGetParams(kn, &kp));
    CHECK(kp.func == (void *)kernel && kp.gridDim.x == 1 && kp.kernelParams != nullptr);
    if (kp.kernelParams)
        CHECK(*(int **)kp.kernelParams[0] == m.d);

    // the graph does it all, in order
    run_graph(g, s);
    EXPECT_OK(cudaMemcpy(m.h + 1000, m.d, 64, cudaMemcpyDeviceToHost));
    CHECK(m.h[1000] == 1 && m.h[1015] == 1 && m.h[1016] == 5 && m.h[1031] == 5 &&
          m.h[1032] == 1);
    EXPECT_EQ(order.size(), 1);
    EXPECT_OK(cudaGraphDestroy(g));

    // the thread's capture mode
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    EXPECT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT_EQ(mode, cudaStreamCaptureModeGlobal);
    EXPECT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT_EQ(mode, cudaStreamCaptureModeRelaxed);
    mode = (cudaStreamCaptureMode)3;
    EXPECT_ERR(cudaThreadExchangeStreamCaptureMode(&mode), cudaErrorInvalidValue);
    EXPECT_ERR(cudaThreadExchangeStreamCaptureMode(nullptr), cudaErrorInvalidValue);

    // a per-thread default stream captures too; a copy reads pageable memory when it runs
    EXPECT_OK(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal));
    std::vector<unsigned char> pageable(64, 7);
    EXPECT_OK(cudaMemcpyAsync(m.d, pageable.data(), 64, cudaMemcpyHostToDevice,
                              cudaStreamPerThread));
    EXPECT_OK(cudaStreamEndCapture(cudaStreamPerThread, &g));
    pageable.assign(64, 9);
    run_graph(g, s);
    EXPECT_OK(cudaMemcpy(m.h, m.d, 64, cudaMemcpyDeviceToHost));
    EXPECT_EQ(m.h[63], 9);
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

// ---- forks and joins ------------------------------------------------------------------------

static void fork_join() {
    Memory m;
    cudaStream_t s, t, u;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreate(&u));
    cudaEvent_t e1, e2;
    EXPECT_OK(cudaEventCreate(&e1));
    EXPECT_OK(cudaEventCreate(&e2));

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMemsetAsync(m.d, 1, 64, s));
    EXPECT_OK(cudaEventRecord(e1, s));
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusNone);
    EXPECT_OK(cudaStreamWaitEvent(t, e1, 0)); // t joins the capture
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusActive);
    unsigned long long id_s = 0, id_t = 1;
    cudaStreamCaptureStatus st;
    const cudaGraphNode_t *deps;
    size_t n = 0;
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, &id_s));
    EXPECT_OK(cudaStreamGetCaptureInfo(t, &st, &id_t, nullptr, &deps, nullptr, &n));
    EXPECT_EQ(id_s, id_t);
    EXPECT_EQ(n, 1);
    EXPECT_OK(cudaMemsetAsync(m.d + 16, 2, 64, t));
    kernel<<<1, 1, 0, s>>>(m.d);
    EXPECT_OK(cudaEventRecord(e2, t));
    EXPECT_OK(cudaStreamWaitEvent(s, e2, 0)); // joined back
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    EXPECT_EQ(n, 2);
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)1));
    cudaGraph_t g;
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusNone);
    EXPECT_EQ(count_nodes(g), 4);
    EXPECT_EQ(count_edges(g), 4);
    size_t roots = 0;
    EXPECT_OK(cudaGraphGetRootNodes(g, nullptr, &roots));
    EXPECT_EQ(roots, 1);
    EXPECT_OK(cudaEventQuery(e1)); // as before its capture: never recorded
    order.clear();
    run_graph(g, s);
    EXPECT_OK(cudaMemcpy(m.h, m.d, 128, cudaMemcpyDeviceToHost));
    CHECK(m.h[0] == 1 && m.h[63] == 1 && m.h[64] == 2 && m.h[127] == 2);
    EXPECT_EQ(order.size(), 1);
    EXPECT_OK(cudaGraphDestroy(g));

    // a fork that does nothing needs no join
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMemsetAsync(m.d, 1, 64, s));
    EXPECT_OK(cudaEventRecord(e1, s));
    EXPECT_OK(cudaStreamWaitEvent(t, e1, 0));
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusNone);

    // a fork never joined
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaEventRecord(e1, s));
    EXPECT_OK(cudaStreamWaitEvent(t, e1, 0));
    EXPECT_OK(cudaMemsetAsync(m.d, 1, 64, t));
    g = (cudaGraph_t)0x1;
    EXPECT_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
    CHECK(g == nullptr);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusNone);
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusNone);

    // ended on a stream that did not begin it
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaEventRecord(e1, s));
    EXPECT_OK(cudaStreamWaitEvent(t, e1, 0));
    EXPECT_ERR(cudaStreamEndCapture(t, &g), cudaErrorStreamCaptureUnmatched);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusInvalidated);
    end_invalidated(s);
    EXPECT_EQ(status_of(t), cudaStreamCaptureStatusNone);

    // two captures cannot merge
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaStreamBeginCapture(u, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaEventRecord(e1, u));
    EXPECT_ERR(cudaStreamWaitEvent(s, e1, 0), cudaErrorStreamCaptureMerge);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    EXPECT_EQ(status_of(u), cudaStreamCaptureStatusInvalidated);
    end_invalidated(s);
    end_invalidated(u);

    // a capture cannot wait for work outside it, unless as an external wait
    EXPECT_OK(cudaEventRecord(e2, t));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamWaitEvent(s, e2, 0), cudaErrorStreamCaptureIsolation);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    EXPECT_ERR(cudaMemsetAsync(m.d, 0, 4, s), cudaErrorStreamCaptureInvalidated);
    kernel<<<1, 1, 0, s>>>(m.d);
    EXPECT_ERR(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
    end_invalidated(s);
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaStreamWaitEvent(s, e2, cudaEventWaitExternal));
    EXPECT_OK(cudaEventRecordWithFlags(e1, s, cudaEventRecordExternal));
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    cudaGraphNode_t nodes[2];
    n = 2;
    EXPECT_OK(cudaGraphGetNodes(g, nodes, &n));
    EXPECT_EQ(n, 2);
    EXPECT_EQ(type_of(nodes[0]), cudaGraphNodeTypeWaitEvent);
    EXPECT_EQ(type_of(nodes[1]), cudaGraphNodeTypeEventRecord);
    run_graph(g, s);
    EXPECT_OK(cudaEventQuery(e1));
    EXPECT_OK(cudaGraphDestroy(g));
    // an event never recorded: nothing to wait for
    cudaEvent_t fresh;
    EXPECT_OK(cudaEventCreate(&fresh));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaStreamWaitEvent(s, fresh, 0));
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    EXPECT_EQ(count_nodes(g), 0);
    EXPECT_OK(cudaGraphDestroy(g));

    EXPECT_OK(cudaEventDestroy(fresh));
    EXPECT_OK(cudaEventDestroy(e1));
    EXPECT_OK(cudaEventDestroy(e2));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaStreamDestroy(t));
    EXPECT_OK(cudaStreamDestroy(u));
    cudaGetLastError();
}

// ---- what a capture forbids -----------------------------------------------------------------

static void invalidation() {
    Memory m;
    cudaStream_t s, nb;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    cudaEvent_t e;
    EXPECT_OK(cudaEventCreate(&e));

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorStreamCaptureInvalidated);
    end_invalidated(s);

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaEventRecord(e, s));
    EXPECT_ERR(cudaEventSynchronize(e), cudaErrorCapturedEvent);
    EXPECT_ERR(cudaEventQuery(e), cudaErrorCapturedEvent);
    end_invalidated(s);

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamAddCallback(s, callback, nullptr, 0), cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);

    int *managed;
    EXPECT_OK(cudaMallocManaged(&managed, 4096));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamAttachMemAsync(s, managed, 0, cudaMemAttachSingle),
               cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMemPrefetchAsync(managed, 4096, loc, 0, s), cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);
    EXPECT_OK(cudaFree(managed));

    // the legacy stream while a blocking stream captures: queries fail, use invalidates
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st;
    EXPECT_ERR(cudaStreamIsCapturing(0, &st), cudaErrorStreamCaptureImplicit);
    EXPECT_ERR(cudaStreamGetCaptureInfo(0, &st), cudaErrorStreamCaptureImplicit);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusActive);
    EXPECT_ERR(cudaMemsetAsync(m.d, 0, 4, 0), cudaErrorStreamCaptureImplicit);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    end_invalidated(s);
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    kernel<<<1, 1>>>(m.d);
    EXPECT_ERR(cudaGetLastError(), cudaErrorStreamCaptureImplicit);
    end_invalidated(s);
    // ... but not while only a non-blocking stream captures
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_EQ(status_of(0), cudaStreamCaptureStatusNone);
    EXPECT_OK(cudaMemsetAsync(m.d, 0, 4, 0));
    cudaGraph_t g;
    EXPECT_OK(cudaStreamEndCapture(nb, &g));
    EXPECT_OK(cudaGraphDestroy(g));

    // a destroyed capturing stream ends its capture
    cudaStream_t tmp;
    EXPECT_OK(cudaStreamCreate(&tmp));
    EXPECT_OK(cudaStreamBeginCapture(tmp, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMemsetAsync(m.d, 0, 4, tmp));
    EXPECT_OK(cudaStreamDestroy(tmp));
    EXPECT_EQ(status_of(0), cudaStreamCaptureStatusNone);

    EXPECT_OK(cudaEventDestroy(e));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaStreamDestroy(nb));
    cudaGetLastError();
}

template <typename F> static void in_thread(F f) {
    std::thread t(f);
    t.join();
}

// Potentially unsafe calls and the capture modes.
static void unsafe_calls() {
    Memory m;
    cudaStream_t s, nb;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    void *p = nullptr;

    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
    EXPECT_EQ(status_of(s), cudaStreamCaptureStatusInvalidated);
    end_invalidated(s);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMemcpy(m.h, m.d, 64, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureUnsupported);
    end_invalidated(nb);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMemset(m.d, 0, 64), cudaErrorStreamCaptureUnsupported);
    end_invalidated(nb);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeThreadLocal));
    EXPECT_ERR(cudaMallocHost(&p, 64), cudaErrorStreamCaptureUnsupported);
    end_invalidated(nb);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaFree(m.d), cudaErrorStreamCaptureUnsupported);
    end_invalidated(nb);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaMallocManaged(&p, 64), cudaErrorStreamCaptureUnsupported);
    end_invalidated(nb);

    // a capture begun relaxed allows them; so does a thread in relaxed mode
    cudaGraph_t g;
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeRelaxed));
    EXPECT_OK(cudaMalloc(&p, 64));
    EXPECT_OK(cudaFree(p));
    EXPECT_OK(cudaStreamEndCapture(nb, &g));
    EXPECT_OK(cudaGraphDestroy(g));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    EXPECT_OK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMalloc(&p, 64));
    EXPECT_OK(cudaMemcpy(m.h, m.d, 64, cudaMemcpyDeviceToHost)); // nb is not blocking
    EXPECT_OK(cudaFree(p));
    EXPECT_EQ(status_of(nb), cudaStreamCaptureStatusActive);
    EXPECT_OK(cudaStreamEndCapture(nb, &g));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaThreadExchangeStreamCaptureMode(&mode));

    // other threads: a global capture prohibits their unsafe calls unless they are not global
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    in_thread([] {
        void *q = nullptr;
        cudaStreamCaptureMode local = cudaStreamCaptureModeThreadLocal;
        cudaThreadExchangeStreamCaptureMode(&local);
        EXPECT_OK(cudaMalloc(&q, 64));
        EXPECT_OK(cudaFree(q));
    });
    EXPECT_EQ(status_of(nb), cudaStreamCaptureStatusActive);
    in_thread([] {
        void *q = nullptr;
        EXPECT_ERR(cudaMalloc(&q, 64), cudaErrorStreamCaptureUnsupported);
    });
    EXPECT_EQ(status_of(nb), cudaStreamCaptureStatusInvalidated);
    end_invalidated(nb);
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeThreadLocal));
    in_thread([] {
        void *q = nullptr;
        EXPECT_OK(cudaMalloc(&q, 64));
        EXPECT_OK(cudaFree(q));
    });
    EXPECT_OK(cudaStreamEndCapture(nb, &g));
    EXPECT_OK(cudaGraphDestroy(g));

    // only the thread that began a capture (not relaxed) may end it
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
    in_thread([nb] {
        cudaGraph_t other;
        EXPECT_ERR(cudaStreamEndCapture(nb, &other), cudaErrorStreamCaptureWrongThread);
    });
    EXPECT_OK(cudaStreamEndCapture(nb, &g));
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeRelaxed));
    cudaGraph_t from_thread = nullptr;
    in_thread([nb, &from_thread] { EXPECT_OK(cudaStreamEndCapture(nb, &from_thread)); });
    CHECK(from_thread != nullptr);
    EXPECT_OK(cudaGraphDestroy(from_thread));

    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaStreamDestroy(nb));
    cudaGetLastError();
}

// ---- capturing into a graph, dependencies -----------------------------------------------------

static void into_graph() {
    Memory m;
    cudaStream_t s, other;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamCreate(&other));
    cudaGraph_t g, g2;
    EXPECT_OK(cudaGraphCreate(&g, 0));
    EXPECT_OK(cudaGraphCreate(&g2, 0));
    cudaGraphNode_t a, foreign;
    EXPECT_OK(cudaGraphAddEmptyNode(&a, g, nullptr, 0));
    EXPECT_OK(cudaGraphAddEmptyNode(&foreign, g2, nullptr, 0));
    EXPECT_ERR(cudaStreamBeginCaptureToGraph(s, g, &foreign, nullptr, 1,
                                             cudaStreamCaptureModeGlobal),
               cudaErrorInvalidValue);
    EXPECT_OK(cudaStreamBeginCaptureToGraph(s, g, &a, nullptr, 1, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaStreamBeginCaptureToGraph(other, g, nullptr, nullptr, 0,
                                             cudaStreamCaptureModeGlobal),
               cudaErrorIllegalState);
    EXPECT_ERR(cudaGraphDestroy(g), cudaErrorInvalidValue); // it is being captured into
    EXPECT_ERR(cudaGraphDestroyNode(a), cudaErrorInvalidValue);
    EXPECT_OK(cudaMemsetAsync(m.d, 3, 16, s));
    cudaGraph_t out = nullptr;
    EXPECT_OK(cudaStreamEndCapture(s, &out));
    CHECK(out == g);
    EXPECT_EQ(count_nodes(g), 2);
    EXPECT_EQ(count_edges(g), 1);

    // changing a stream's dependencies
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaMemsetAsync(m.d, 1, 16, s));
    const cudaGraphNode_t *deps;
    size_t n;
    cudaStreamCaptureStatus st;
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    cudaGraphNode_t n1 = deps[0];
    EXPECT_OK(cudaMemsetAsync(m.d, 2, 16, s));
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    cudaGraphNode_t n2 = deps[0];
    EXPECT_OK(cudaStreamUpdateCaptureDependencies(s, &n1, nullptr, 1,
                                                  cudaStreamSetCaptureDependencies));
    EXPECT_OK(cudaMemsetAsync(m.d, 3, 16, s)); // after n1 only
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    cudaGraphNode_t n3 = deps[0];
    size_t nd = 0;
    EXPECT_OK(cudaGraphNodeGetDependencies(n3, nullptr, nullptr, &nd));
    EXPECT_EQ(nd, 1);
    EXPECT_OK(cudaStreamUpdateCaptureDependencies(s, &n2, nullptr, 1,
                                                  cudaStreamAddCaptureDependencies));
    EXPECT_OK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    EXPECT_EQ(n, 2);
    EXPECT_ERR(cudaStreamUpdateCaptureDependencies(s, &n2, nullptr, 1, 7), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamUpdateCaptureDependencies(s, &foreign, nullptr, 1, 0),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamUpdateCaptureDependencies(other, &n2, nullptr, 1, 0),
               cudaErrorIllegalState);
    EXPECT_OK(cudaStreamEndCapture(s, &out));
    EXPECT_EQ(count_nodes(out), 3);
    EXPECT_OK(cudaGraphDestroy(out));

    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaGraphDestroy(g2));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaStreamDestroy(other));
    cudaGetLastError();
}

// Stream-ordered allocations become memory nodes; a graph launched into a capture, a child graph.
static void memory_and_launches() {
    Memory m;
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    unsigned char *p = nullptr;
    EXPECT_OK(cudaMallocAsync(&p, 256, s));
    CHECK(p != nullptr);
    EXPECT_OK(cudaMemsetAsync(p, 0x42, 256, s));
    EXPECT_OK(cudaMemcpyAsync(m.h, p, 256, cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaFreeAsync(p, s));
    cudaGraph_t g;
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    cudaGraphNode_t nodes[4];
    size_t n = 4;
    EXPECT_OK(cudaGraphGetNodes(g, nodes, &n));
    EXPECT_EQ(n, 4);
    EXPECT_EQ(type_of(nodes[0]), cudaGraphNodeTypeMemAlloc);
    EXPECT_EQ(type_of(nodes[3]), cudaGraphNodeTypeMemFree);
    memset(m.h, 0, 256);
    run_graph(g, s);
    EXPECT_EQ(m.h[255], 0x42);
    unsigned long long used = 1;
    EXPECT_OK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 0);
    EXPECT_OK(cudaGraphDestroy(g));
    // freeing in a capture what no graph allocated
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaFreeAsync(m.d, s), cudaErrorInvalidValue);
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    EXPECT_OK(cudaGraphDestroy(g));

    // a graph launched into a capture
    cudaGraph_t inner;
    EXPECT_OK(cudaGraphCreate(&inner, 0));
    cudaHostNodeParams hp = {append, (void *)3};
    cudaGraphNode_t hn;
    EXPECT_OK(cudaGraphAddHostNode(&hn, inner, nullptr, 0, &hp));
    cudaGraphExec_t x;
    EXPECT_OK(cudaGraphInstantiate(&x, inner, 0));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_OK(cudaGraphLaunch(x, s));
    EXPECT_OK(cudaGraphUpload(x, cudaStreamPerThread));
    EXPECT_OK(cudaStreamEndCapture(s, &g));
    n = 1;
    EXPECT_OK(cudaGraphGetNodes(g, nodes, &n));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(type_of(nodes[0]), cudaGraphNodeTypeGraph);
    order.clear();
    run_graph(g, s);
    EXPECT_EQ(order.size(), 1);
    EXPECT_OK(cudaGraphDestroy(g));
    EXPECT_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT_ERR(cudaGraphUpload(x, s), cudaErrorStreamCaptureUnsupported);
    end_invalidated(s);
    EXPECT_OK(cudaGraphExecDestroy(x));
    EXPECT_OK(cudaGraphDestroy(inner));
    EXPECT_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

int main() {
    basics();
    fork_join();
    invalidation();
    unsafe_calls();
    into_graph();
    memory_and_launches();
    return check_report("sim_capture");
}
