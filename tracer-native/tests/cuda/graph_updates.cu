// CUDA graphs changed after instantiation, and a loop of small kernels captured once. A graph
// holds a memset, a child graph of two kernels and a copy back; its executable graph is launched,
// the memset is disabled and enabled again (cudaGraphNodeSetEnabled), it gets new values twice
// (cudaGraphExecMemsetNodeSetParams, cudaGraphExecNodeSetParams), and the whole executable graph
// is replaced by one with a larger copy (cudaGraphExecUpdate). Then 100 small kernels are launched one by one, and
// the same 100 captured into a graph that is launched 10 times. Prints what it checked; exits 0
// when every check passes. Kernels do nothing on the simulated device: only copies and memsets
// are checked.
#include "check.h"

#include <cstring>

#define N 4096
#define SMALL 100
#define LOOPS 10

__global__ void scale(float *x, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= f;
}

__global__ void tiny(float *x) {
    x[threadIdx.x] += 1;
}

static int failures = 0;

static void expect(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "failed: %s\n", what);
        failures++;
    }
}

// memset(d, 0) -> child { scale(d), scale(d) } -> copy d to h (`bytes` of it)
static cudaGraph_t build(float *d, float *h, size_t bytes, cudaGraphNode_t *kernel, cudaGraphNode_t *set) {
    cudaGraph_t child, g;
    CHECK(cudaGraphCreate(&child, 0));
    int n = N;
    float f = 2;
    void *args[] = {&d, &n, &f};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t k1, k2;
    CHECK(cudaGraphAddKernelNode(&k1, child, nullptr, 0, &kp));
    CHECK(cudaGraphAddKernelNode(&k2, child, &k1, 1, &kp));
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 0;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(set, g, nullptr, 0, &mp));
    cudaGraphNode_t sub, back;
    CHECK(cudaGraphAddChildGraphNode(&sub, g, set, 1, child));
    CHECK(cudaGraphAddMemcpyNode1D(&back, g, &sub, 1, h, d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphDestroy(child));
    *kernel = k1; // a node of the child graph, not of g: found in g's executable graph below
    return g;
}

int main() {
    float *d, *h;
    CHECK(cudaMalloc(&d, N * sizeof(float)));
    CHECK(cudaMallocHost(&h, N * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaGraphNode_t k1, set;
    cudaGraph_t g = build(d, h, N * sizeof(float) / 2, &k1, &set);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    memset(h, 0xff, N * sizeof(float));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    expect(h[0] == 0 && h[N / 2 - 1] == 0 && h[N / 2] != 0, "the first launch copied half the cleared buffer");

    // the memset disabled: the device keeps what the host copies in
    CHECK(cudaGraphNodeSetEnabled(exec, set, 0));
    for (int i = 0; i < N; i++)
        h[i] = 3;
    CHECK(cudaMemcpy(d, h, N * sizeof(float), cudaMemcpyHostToDevice));
    memset(h, 0, N * sizeof(float));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    expect(h[0] == 3, "a launch with the memset disabled left the buffer as it was");
    CHECK(cudaGraphNodeSetEnabled(exec, set, 1));

    // the memset node gets new parameters in the executable graph alone
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 0x3f800000; // 1.0f
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphExecMemsetNodeSetParams(exec, set, &mp));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    expect(h[0] == 1.0f, "a launch after cudaGraphExecMemsetNodeSetParams set the new value");

    // and again through the generic cudaGraphExecNodeSetParams
    cudaGraphNodeParams np = {};
    np.type = cudaGraphNodeTypeMemset;
    np.memset.dst = d;
    np.memset.value = 0x40000000; // 2.0f
    np.memset.elementSize = 4;
    np.memset.width = N;
    np.memset.height = 1;
    CHECK(cudaGraphExecNodeSetParams(exec, set, &np));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    expect(h[0] == 2.0f, "a launch after cudaGraphExecNodeSetParams set the new value");

    // the whole executable graph replaced: the copy back is of the whole buffer now
    cudaGraphNode_t k1b, setb;
    cudaGraph_t g2 = build(d, h, N * sizeof(float), &k1b, &setb);
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(exec, g2, &info));
    memset(h, 0xff, N * sizeof(float));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    expect(h[N - 1] == 0, "a launch after cudaGraphExecUpdate copied the whole buffer");

    // a loop of small kernels, one by one, then captured once and launched as a graph
    for (int i = 0; i < SMALL; i++)
        tiny<<<1, 32, 0, s>>>(d);
    CHECK(cudaStreamSynchronize(s));
    cudaGraph_t loop;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < SMALL; i++)
        tiny<<<1, 32, 0, s>>>(d);
    CHECK(cudaStreamEndCapture(s, &loop));
    cudaGraphExec_t loop_exec;
    CHECK(cudaGraphInstantiate(&loop_exec, loop, 0));
    for (int i = 0; i < LOOPS; i++)
        CHECK(cudaGraphLaunch(loop_exec, s));
    CHECK(cudaStreamSynchronize(s));

    CHECK(cudaGraphExecDestroy(loop_exec));
    CHECK(cudaGraphDestroy(loop));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    printf("%s\n", failures == 0 ? "every graph update took effect" : "some graph updates did not take effect");
    return failures == 0 ? 0 : 1;
}
