// CUDA Graphs in the manner of CUDA's simpleCudaGraphs sample: the same work (copy the input in,
// clear a buffer, a reduction in two kernels on a forked stream, a device-to-device copy, copies
// back, a host function) is built into a graph twice, once by capturing two streams forked and
// joined through events and once with the explicit graph API. Each graph is instantiated and
// launched several times with new input each time, and the bytes its copies moved are checked.
// Kernels only add up the input: on the simulated device they do not run, so nothing checks
// their results. Exits 0 when every check passes.
#include "check.h"

#include <cstdlib>
#include <cstring>

#define N (1 << 16)
#define THREADS 256
#define BLOCKS 64
#define LAUNCHES 5

__global__ void reduce(const float *in, float *partial, size_t n) {
    __shared__ float sum[THREADS];
    float s = 0;
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += in[i];
    sum[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k)
            sum[threadIdx.x] += sum[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sum[0];
}

__global__ void finish(float *partial, int n) {
    if (threadIdx.x == 0)
        for (int i = 1; i < n; i++)
            partial[0] += partial[i];
}

struct Work {
    float *h_in;   // pageable
    float *h_out;  // pinned
    float *h_sum;  // pinned
    float *d_in, *d_copy, *d_partial;
    int host_calls;
};

static void CUDART_CB count_call(void *p) {
    ++*(int *)p;
}

static int failures = 0;

static void expect(bool ok, const char *what, int launch) {
    if (!ok) {
        fprintf(stderr, "launch %d: %s\n", launch, what);
        failures++;
    }
}

// The work, captured from stream s with a fork onto stream t.
static cudaGraph_t capture(Work &w, cudaStream_t s, cudaStream_t t) {
    cudaEvent_t forked, joined;
    cudaGraph_t g;
    size_t bytes = N * sizeof(float);
    CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(w.d_in, w.h_in, bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaEventRecord(forked, s));
    CHECK(cudaStreamWaitEvent(t, forked, 0));
    CHECK(cudaMemsetAsync(w.d_partial, 0, BLOCKS * sizeof(float), t));
    reduce<<<BLOCKS, THREADS, 0, t>>>(w.d_in, w.d_partial, N);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(joined, t));
    CHECK(cudaMemcpyAsync(w.d_copy, w.d_in, bytes, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaStreamWaitEvent(s, joined, 0));
    finish<<<1, 32, 0, s>>>(w.d_partial, BLOCKS);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(w.h_out, w.d_copy, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaMemcpyAsync(w.h_sum, w.d_partial, sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaLaunchHostFunc(s, count_call, &w.host_calls));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaEventDestroy(forked));
    CHECK(cudaEventDestroy(joined));
    return g;
}

// The same work with the explicit graph API.
static cudaGraph_t build(Work &w) {
    cudaGraph_t g;
    size_t bytes = N * sizeof(float);
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t copy_in, clear, red, copy_dd, fin, copy_out, copy_sum, host;
    CHECK(cudaGraphAddMemcpyNode1D(&copy_in, g, nullptr, 0, w.d_in, w.h_in, bytes,
                                   cudaMemcpyHostToDevice));
    cudaMemsetParams ms = {};
    ms.dst = w.d_partial;
    ms.value = 0;
    ms.elementSize = sizeof(float);
    ms.width = BLOCKS;
    ms.height = 1;
    CHECK(cudaGraphAddMemsetNode(&clear, g, &copy_in, 1, &ms));
    const float *in = w.d_in;
    float *partial = w.d_partial;
    size_t n = N;
    void *reduce_args[] = {&in, &partial, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)reduce;
    kp.gridDim = dim3(BLOCKS);
    kp.blockDim = dim3(THREADS);
    kp.kernelParams = reduce_args;
    CHECK(cudaGraphAddKernelNode(&red, g, &clear, 1, &kp));
    cudaMemcpy3DParms dd = {};
    dd.srcPtr = make_cudaPitchedPtr(w.d_in, bytes, N, 1);
    dd.dstPtr = make_cudaPitchedPtr(w.d_copy, bytes, N, 1);
    dd.extent = make_cudaExtent(bytes, 1, 1);
    dd.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaGraphAddMemcpyNode(&copy_dd, g, &copy_in, 1, &dd));
    int blocks = BLOCKS;
    void *finish_args[] = {&partial, &blocks};
    kp.func = (void *)finish;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = finish_args;
    cudaGraphNode_t fin_deps[] = {red, copy_dd};
    CHECK(cudaGraphAddKernelNode(&fin, g, fin_deps, 2, &kp));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_out, g, &fin, 1, w.h_out, w.d_copy, bytes,
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_sum, g, &copy_out, 1, w.h_sum, w.d_partial,
                                   sizeof(float), cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {count_call, &w.host_calls};
    CHECK(cudaGraphAddHostNode(&host, g, &copy_sum, 1, &hp));
    return g;
}

// Launches the graph LAUNCHES times on s, new input each time, and checks what came back.
static void run(const char *name, cudaGraph_t g, Work &w, cudaStream_t s) {
    size_t nodes = 0, edges = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
    printf("%s: %zu nodes, %zu edges\n", name, nodes, edges);
    if (nodes != 8 || edges != 8) {
        fprintf(stderr, "%s: expected 8 nodes and 8 edges\n", name);
        failures++;
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    w.host_calls = 0;
    for (int launch = 0; launch < LAUNCHES; launch++) {
        for (int i = 0; i < N; i++)
            w.h_in[i] = (float)(launch * 1000 + i % 997);
        memset(w.h_out, 0xff, N * sizeof(float));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        expect(memcmp(w.h_in, w.h_out, N * sizeof(float)) == 0, "output differs from input",
               launch);
        expect(w.host_calls == launch + 1, "host node did not run once", launch);
    }
    CHECK(cudaGraphExecDestroy(exec));
}

int main() {
    Work w = {};
    size_t bytes = N * sizeof(float);
    w.h_in = (float *)malloc(bytes);
    if (w.h_in == nullptr)
        return 1;
    CHECK(cudaMallocHost(&w.h_out, bytes));
    CHECK(cudaMallocHost(&w.h_sum, sizeof(float)));
    CHECK(cudaMalloc(&w.d_in, bytes));
    CHECK(cudaMalloc(&w.d_copy, bytes));
    CHECK(cudaMalloc(&w.d_partial, BLOCKS * sizeof(float)));
    cudaStream_t s, t;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));

    cudaGraph_t captured = capture(w, s, t);
    run("captured", captured, w, s);
    cudaGraph_t built = build(w);
    run("built", built, w, s);

    // A clone runs like its original.
    cudaGraph_t clone;
    CHECK(cudaGraphClone(&clone, built));
    run("clone", clone, w, s);

    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphDestroy(built));
    CHECK(cudaGraphDestroy(captured));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(w.d_in));
    CHECK(cudaFree(w.d_copy));
    CHECK(cudaFree(w.d_partial));
    CHECK(cudaFreeHost(w.h_out));
    CHECK(cudaFreeHost(w.h_sum));
    free(w.h_in);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all graph launches copied their bytes\n");
    return 0;
}
