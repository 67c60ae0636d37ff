// NVTX ranges and marks and cudaProfilerStart/Stop, made with the toolkit's own NVTX v3 headers
// and nothing of apptrace: what `apptrace run` records with no change to the program
// (NvtxCaptureTest). It prints only what it computes, the same whether NVTX is injected or not.
//
// Ranges (12): "setup" (push/pop) holding "io:load" (a pushed range of domain "io" named by a
// registered string); "handoff" (nvtxRangeStartEx on the main thread, nvtxRangeEnd on a worker);
// "wörker" (nvtxRangePushW on the worker); 3 x "step" (push/pop, 4 kernels each) each holding an
// "inner" one; "cudaProfiler" (cudaProfilerStart/Stop around 5 kernels); "unclosed" (pushed and
// never popped: closed at the thread's last event). Marks (3): "start" (nvtxMarkA), "" (nvtxMarkEx
// with no attributes), "io:saved ✓" (nvtxDomainMarkEx, a wide string). And one pop too many.
#include <nvtx3/nvToolsExt.h>
#include <cuda_profiler_api.h>
#include <pthread.h>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

static const int N = 1 << 16;
static float *d_x;

static void *worker(void *arg) {
    nvtxRangeId_t handoff = *(nvtxRangeId_t *)arg;
    nvtxRangePushW(L"wörker");
    scale<<<N / 256, 256>>>(d_x, 0.5f, N);
    CHECK(cudaDeviceSynchronize());
    nvtxRangePop();
    nvtxRangeEnd(handoff);
    return NULL;
}

int main() {
    nvtxDomainHandle_t io = nvtxDomainCreateA("io");
    nvtxStringHandle_t load = nvtxDomainRegisterStringA(io, "load");
    nvtxMarkA("start");

    std::vector<float> h(N, 1.0f);
    float *d_y;
    nvtxRangePushA("setup");
    CHECK(cudaMalloc(&d_x, N * sizeof(float)));
    CHECK(cudaMalloc(&d_y, N * sizeof(float)));
    CHECK(cudaMemcpy(d_x, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = load;
    nvtxDomainRangePushEx(io, &a);
    CHECK(cudaMemcpy(d_y, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    nvtxDomainRangePop(io);
    nvtxRangePop();

    nvtxEventAttributes_t b;
    memset(&b, 0, sizeof b);
    b.version = NVTX_VERSION;
    b.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    b.messageType = NVTX_MESSAGE_TYPE_ASCII;
    b.message.ascii = "handoff";
    nvtxRangeId_t handoff = nvtxRangeStartEx(&b);
    pthread_t t;
    pthread_create(&t, NULL, worker, &handoff);
    pthread_join(t, NULL);

    for (int step = 0; step < 3; step++) {
        nvtxRangePushA("step");
        for (int k = 0; k < 4; k++) scale<<<N / 256, 256>>>(d_x, 1.0f + k, N);
        nvtxRangePushA("inner");
        CHECK(cudaDeviceSynchronize());
        nvtxRangePop();
        nvtxRangePop();
    }
    nvtxMarkEx(NULL);
    nvtxEventAttributes_t c;
    memset(&c, 0, sizeof c);
    c.version = NVTX_VERSION;
    c.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    c.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    c.message.unicode = L"saved \u2713";
    nvtxDomainMarkEx(io, &c);

    CHECK(cudaProfilerStart());
    for (int k = 0; k < 5; k++) scale<<<N / 256, 256>>>(d_y, 2.0f, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());

    CHECK(cudaMemcpy(h.data(), d_x, N * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float v : h) sum += v;
    printf("sum %.1f\n", sum);
    printf("extra pop %s\n", nvtxRangePop() < 0 ? "refused" : "accepted");
    nvtxRangePushA("unclosed");
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_x));
    return 0;
}
