// Managed memory on the simulated runtime: allocation and its errors, host access, copies and
// memsets in every direction, prefetches (validation and modeled time: a pinned transfer when the
// data moves, nothing when it is already there), advice, stream attachment, and cudaFree.
#include "check.h"

static const char *kTiming = R"([timing]
h2d_pinned_latency_ns = 5000
h2d_pinned_bandwidth_bytes_per_s = 10e9
d2h_pinned_latency_ns = 6000
d2h_pinned_bandwidth_bytes_per_s = 8e9
)";

static double prefetch_ns(const void *p, size_t n, cudaMemLocation where) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaDeviceSynchronize();
    cudaEventRecord(a, 0);
    EXPECT_OK(cudaMemPrefetchAsync(p, n, where, 0, 0));
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = -1;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms * 1e6;
}

static void managed() {
    const size_t n = 1 << 20;
    int *m;
    EXPECT_OK(cudaMallocManaged(&m, n));
    for (int i = 0; i < 1024; i++)
        m[i] = i; // the host reads and writes managed memory directly
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, m));
    EXPECT_EQ(a.type, cudaMemoryTypeManaged);
    EXPECT_EQ(a.device, 0);
    int *h;
    EXPECT_OK(cudaMallocHost(&h, 4096));
    int *d;
    EXPECT_OK(cudaMalloc(&d, 4096));
    EXPECT_OK(cudaMemcpy(d, m, 4096, cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaMemcpy(h, d, 4096, cudaMemcpyDeviceToHost));
    EXPECT_EQ(h[1023], 1023);
    EXPECT_OK(cudaMemset(m, 0, 8)); // synchronous for managed memory
    EXPECT_EQ(m[0], 0);
    EXPECT_EQ(m[2], 2);
    h[0] = 99;
    EXPECT_OK(cudaMemcpyAsync(m + 5, h, 4, cudaMemcpyHostToDevice, 0));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_EQ(m[5], 99);

    EXPECT_ERR(cudaMallocManaged(&m, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMallocManaged(&m, 16, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMallocManaged(nullptr, 16), cudaErrorInvalidValue);
    int *host_attached;
    EXPECT_OK(cudaMallocManaged(&host_attached, 64, cudaMemAttachHost));
    EXPECT_OK(cudaFree(host_attached));
    cudaGetLastError();

    cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    cudaMemLocation bad_dev = {cudaMemLocationTypeDevice, 3};
    EXPECT_NS(prefetch_ns(m, n, dev0), 5000 + n * 1e9 / 10e9);
    CHECK(prefetch_ns(m, n, dev0) < 1); // already there
    EXPECT_NS(prefetch_ns(m, n, host), 6000 + n * 1e9 / 8e9);
    EXPECT_ERR(cudaMemPrefetchAsync(m, n, bad_dev, 0, 0), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaMemPrefetchAsync(m, n + 4, dev0, 0, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemPrefetchAsync(d, 64, dev0, 0, 0), cudaErrorInvalidValue); // not managed
    EXPECT_ERR(cudaMemPrefetchAsync(m, n, dev0, 1, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemPrefetchAsync(m, n, dev0, 0, (cudaStream_t)0x5), cudaErrorInvalidResourceHandle);

    EXPECT_OK(cudaMemAdvise(m, n, cudaMemAdviseSetReadMostly, dev0));
    EXPECT_OK(cudaMemAdvise(m, n, cudaMemAdviseSetPreferredLocation, host));
    EXPECT_OK(cudaMemAdvise(m, 4096, cudaMemAdviseSetAccessedBy, dev0));
    EXPECT_ERR(cudaMemAdvise(m, n, (cudaMemoryAdvise)42, dev0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemAdvise(d, 64, cudaMemAdviseSetReadMostly, dev0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemAdvise(m, n, cudaMemAdviseSetAccessedBy, bad_dev), cudaErrorInvalidDevice);

    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
    EXPECT_OK(cudaStreamAttachMemAsync(s, m, n, cudaMemAttachGlobal));
    EXPECT_ERR(cudaStreamAttachMemAsync(s, m + 1, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamAttachMemAsync(s, m, 0, 9), cudaErrorInvalidValue);
    EXPECT_OK(cudaStreamDestroy(s));

    EXPECT_OK(cudaFree(m));
    EXPECT_OK(cudaPointerGetAttributes(&a, m));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
    cudaGetLastError();
}

int main(int argc, char **argv) {
    if (argc > 1 && std::string(argv[1]) == "run")
        return managed(), check_report("sim_managed run");
    std::string cfg = write_config("managed", kTiming);
    std::string env = "APPTRACE_SIM_CONFIG=" + cfg;
    const char *e[] = {env.c_str(), nullptr};
    EXPECT_EQ(run_child(argv[0], "run", e), 0);
    unlink(cfg.c_str());
    return check_report("sim_managed");
}
