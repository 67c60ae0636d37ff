// Two graphs of the same two nodes, a memset of a device buffer and a copy of it to the host:
// in the first nothing orders them (two roots: a race, as on a GPU, where the branches may run in
// any order), in the second the copy depends on the memset. Each is launched twice. Exits 0.
#include "check.h"

#define N 4096

static cudaGraphExec_t build(unsigned char *d, unsigned char *h, bool ordered) {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemsetParams mp = {};
    mp.dst = d;
    mp.value = 5;
    mp.elementSize = 1;
    mp.width = N;
    mp.height = 1;
    cudaGraphNode_t set, copy;
    CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
    CHECK(cudaGraphAddMemcpyNode1D(&copy, g, ordered ? &set : nullptr, ordered ? 1 : 0, h, d, N,
                                   cudaMemcpyDeviceToHost));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphDestroy(g));
    return exec;
}

int main() {
    unsigned char *d, *h;
    CHECK(cudaMalloc(&d, N));
    CHECK(cudaMallocHost(&h, N));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaGraphExec_t racy = build(d, h, false), ordered = build(d, h, true);
    for (int i = 0; i < 2; i++) {
        CHECK(cudaGraphLaunch(racy, s));
        CHECK(cudaGraphLaunch(ordered, s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(racy));
    CHECK(cudaGraphExecDestroy(ordered));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    printf("launched\n");
    return 0;
}
