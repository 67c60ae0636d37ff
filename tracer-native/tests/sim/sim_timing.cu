// The simulated clock: events around an operation must measure exactly the configured duration
// (latency + bytes / bandwidth for copies, bytes / memory bandwidth for memsets, the kernel
// constant), engines overlap or serialize as asyncEngineCount says, the legacy stream waits for
// blocking streams, and APPTRACE_SIM_REALTIME makes synchronization wait for simulated time.
// The parent runs the checks in children with a known timing config written to a file.
#include "check.h"

#include <chrono>

static const char *kConfig = R"(# timing injected by sim_timing
[timing]
h2d_pinned_latency_ns = 7000
h2d_pinned_bandwidth_bytes_per_s = 10e9
d2h_pinned_latency_ns = 8000
d2h_pinned_bandwidth_bytes_per_s = 5GB
h2d_pageable_latency_ns = 20000
h2d_pageable_bandwidth_bytes_per_s = 2e9
d2h_pageable_latency_ns = 21000
d2h_pageable_bandwidth_bytes_per_s = 1e9
d2d_latency_ns = 1000
d2d_bandwidth_bytes_per_s = 100e9
h2h_latency_ns = 0
h2h_bandwidth_bytes_per_s = 50e9
kernel_duration_ns = 12345
memset_latency_ns = 500

[device *]
memory_bandwidth_bytes_per_s = 1e12   # memsets
async_engine_count = 2
)";

__global__ void kernel() {}

static double copy_ns(double latency, double bw, double bytes) {
    return latency + bytes * 1e9 / bw;
}

struct Timer {
    cudaEvent_t a, b;
    cudaStream_t s;
    explicit Timer(cudaStream_t stream) : s(stream) {
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaDeviceSynchronize();
        cudaEventRecord(a, s);
    }
    double stop_ns() {
        float ms = -1;
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        EXPECT_OK(cudaEventElapsedTime(&ms, a, b));
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        return ms * 1e6;
    }
};

// Every kind of operation, alone on an idle stream, for several sizes.
static void durations() {
    const size_t max = 8 << 20;
    char *d, *d2, *pinned, *pageable = (char *)malloc(max);
    EXPECT_OK(cudaMalloc(&d, max));
    EXPECT_OK(cudaMalloc(&d2, max));
    EXPECT_OK(cudaMallocHost(&pinned, max));
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    for (size_t n : {(size_t)1, (size_t)4096, (size_t)1 << 20, max}) {
        Timer t1(s);
        EXPECT_OK(cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s));
        EXPECT_NS(t1.stop_ns(), copy_ns(7000, 10e9, n));
        Timer t2(s);
        EXPECT_OK(cudaMemcpyAsync(pinned, d, n, cudaMemcpyDeviceToHost, s));
        EXPECT_NS(t2.stop_ns(), copy_ns(8000, 5e9, n));
        Timer t3(s);
        EXPECT_OK(cudaMemcpyAsync(d, pageable, n, cudaMemcpyHostToDevice, s));
        EXPECT_NS(t3.stop_ns(), copy_ns(20000, 2e9, n));
        Timer t4(s);
        EXPECT_OK(cudaMemcpyAsync(pageable, d, n, cudaMemcpyDeviceToHost, s));
        EXPECT_NS(t4.stop_ns(), copy_ns(21000, 1e9, n));
        Timer t5(s);
        EXPECT_OK(cudaMemcpyAsync(d2, d, n, cudaMemcpyDeviceToDevice, s));
        EXPECT_NS(t5.stop_ns(), copy_ns(1000, 100e9, n));
        Timer t6(s);
        EXPECT_OK(cudaMemsetAsync(d, 0, n, s));
        EXPECT_NS(t6.stop_ns(), copy_ns(500, 1e12, n));
        Timer t7(s);
        EXPECT_OK(cudaMemcpyAsync(d, pinned, n, cudaMemcpyDefault, s)); // kind from the pointers
        EXPECT_NS(t7.stop_ns(), copy_ns(7000, 10e9, n));
    }
    Timer t(s);
    kernel<<<1, 1, 0, s>>>();
    kernel<<<1, 1, 0, s>>>();
    kernel<<<1, 1, 0, s>>>();
    EXPECT_NS(t.stop_ns(), 3 * 12345.0);
    Timer legacy(0); // synchronous cudaMemcpy on the legacy stream
    EXPECT_OK(cudaMemcpy(d, pinned, 1 << 20, cudaMemcpyHostToDevice));
    EXPECT_NS(legacy.stop_ns(), copy_ns(7000, 10e9, 1 << 20));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFree(d2));
    EXPECT_OK(cudaFreeHost(pinned));
    free(pageable);
}

// Two copy engines: a host-to-device and a device-to-host copy overlap; copies of one direction
// share their engine; a kernel overlaps both. With one engine (engines == 1) every copy queues.
static void engines(int engine_count) {
    const size_t n = 4 << 20;
    char *d, *h;
    EXPECT_OK(cudaMalloc(&d, 2 * n));
    EXPECT_OK(cudaMallocHost(&h, 2 * n));
    cudaStream_t a, b;
    EXPECT_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    double up = copy_ns(7000, 10e9, n), down = copy_ns(8000, 5e9, n);
    cudaEvent_t start, end_a, end_b;
    cudaEventCreate(&start);
    cudaEventCreate(&end_a);
    cudaEventCreate(&end_b);
    EXPECT_OK(cudaDeviceSynchronize());
    cudaEventRecord(start, a);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, a);
    cudaMemcpyAsync(h + n, d + n, n, cudaMemcpyDeviceToHost, b);
    cudaEventRecord(end_a, a);
    cudaEventRecord(end_b, b);
    cudaDeviceSynchronize();
    float ms_a, ms_b;
    EXPECT_OK(cudaEventElapsedTime(&ms_a, start, end_a));
    EXPECT_OK(cudaEventElapsedTime(&ms_b, start, end_b));
    EXPECT_NS(ms_a * 1e6, up);
    if (engine_count >= 2)
        CHECK(ms_b * 1e6 < up + down - 1000); // overlapped (b started a host moment later)
    else
        CHECK(ms_b * 1e6 >= up + down - 1); // behind a on the one engine

    cudaDeviceSynchronize();
    cudaEventRecord(start, a);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, a);
    cudaMemcpyAsync(d + n, h + n, n, cudaMemcpyHostToDevice, b); // same direction: queues
    cudaEventRecord(end_b, b);
    cudaDeviceSynchronize();
    EXPECT_OK(cudaEventElapsedTime(&ms_b, start, end_b));
    CHECK(ms_b * 1e6 >= 2 * up - 1);

    cudaDeviceSynchronize();
    cudaEventRecord(start, a);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, a);
    cudaEventRecord(end_a, b); // when the host got to the launch
    kernel<<<1, 1, 0, b>>>(); // compute engine: runs beside the copy
    cudaEventRecord(end_b, b);
    cudaDeviceSynchronize();
    EXPECT_OK(cudaEventElapsedTime(&ms_a, start, end_a));
    EXPECT_OK(cudaEventElapsedTime(&ms_b, start, end_b));
    // a loaded machine may reach the launch only after the copy: then the launch tells nothing
    if (ms_a * 1e6 < up / 2)
        CHECK(ms_b * 1e6 < up);
    for (cudaEvent_t e : {start, end_a, end_b})
        cudaEventDestroy(e);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(d);
    cudaFreeHost(h);
}

// The legacy stream starts after earlier work of blocking streams; a stream waiting on an event
// starts after the event's work; a non-blocking stream does not wait for the legacy stream.
static void dependencies() {
    const size_t n = 4 << 20;
    char *d, *h;
    EXPECT_OK(cudaMalloc(&d, n));
    EXPECT_OK(cudaMallocHost(&h, n));
    double up = copy_ns(7000, 10e9, n);
    cudaStream_t blocking, free_running;
    EXPECT_OK(cudaStreamCreate(&blocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&free_running, cudaStreamNonBlocking));
    cudaEvent_t start, end, mid;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    cudaEventCreate(&mid);
    float ms;

    cudaDeviceSynchronize();
    cudaEventRecord(start, blocking);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, blocking);
    kernel<<<1, 1>>>(); // legacy stream
    cudaEventRecord(end, 0);
    cudaEventSynchronize(end);
    EXPECT_OK(cudaEventElapsedTime(&ms, start, end));
    EXPECT_NS(ms * 1e6, up + 12345);

    cudaDeviceSynchronize();
    cudaEventRecord(start, blocking);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, blocking);
    cudaEventRecord(mid, blocking);
    cudaStreamWaitEvent(free_running, mid, 0);
    kernel<<<1, 1, 0, free_running>>>();
    cudaEventRecord(end, free_running);
    cudaEventSynchronize(end);
    EXPECT_OK(cudaEventElapsedTime(&ms, start, end));
    EXPECT_NS(ms * 1e6, up + 12345);

    // An event on the idle legacy stream followed by work on a blocking stream (which must wait
    // for it) starts when that work starts.
    cudaDeviceSynchronize();
    cudaEventRecord(start, 0);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, blocking);
    cudaEventRecord(end, blocking);
    cudaEventSynchronize(end);
    EXPECT_OK(cudaEventElapsedTime(&ms, start, end));
    EXPECT_NS(ms * 1e6, up);

    cudaDeviceSynchronize();
    cudaEventRecord(start, 0);
    cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, 0);
    kernel<<<1, 1, 0, free_running>>>(); // does not wait for the legacy stream
    cudaEventRecord(end, free_running);
    cudaEventSynchronize(end);
    EXPECT_OK(cudaEventElapsedTime(&ms, start, end));
    CHECK(ms * 1e6 < up);
    for (cudaEvent_t e : {start, end, mid})
        cudaEventDestroy(e);
    cudaStreamDestroy(blocking);
    cudaStreamDestroy(free_running);
    cudaFree(d);
    cudaFreeHost(h);
}

static double wall_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
        .count();
}

// Real time: synchronization waits for the simulated end; queries say not ready until then.
static void realtime(bool on) {
    auto t0 = std::chrono::steady_clock::now();
    kernel<<<1, 1>>>(); // 30 ms in this child's config
    if (on)
        EXPECT_ERR(cudaStreamQuery(0), cudaErrorNotReady);
    EXPECT_OK(cudaDeviceSynchronize());
    double waited = wall_ms(t0);
    if (on)
        CHECK(waited >= 29);
    else
        CHECK(waited < 25);
    EXPECT_OK(cudaStreamQuery(0));
}

// The bundled profile: PCIe 4.0 x16 pinned transfers, 10 us + 24 GB/s.
static void defaults() {
    char *d, *h;
    EXPECT_OK(cudaMalloc(&d, 1 << 20));
    EXPECT_OK(cudaMallocHost(&h, 1 << 20));
    Timer t(0);
    EXPECT_OK(cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, 0));
    EXPECT_NS(t.stop_ns(), copy_ns(10000, 24e9, 1 << 20));
    cudaFree(d);
    cudaFreeHost(h);
}

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "injected") {
        durations();
        engines(2);
        dependencies();
        return check_report("sim_timing injected");
    }
    if (mode == "one-engine") {
        engines(1);
        return check_report("sim_timing one-engine");
    }
    if (mode == "realtime" || mode == "no-realtime") {
        realtime(mode == "realtime");
        return check_report(("sim_timing " + mode).c_str());
    }
    if (mode == "defaults") {
        defaults();
        return check_report("sim_timing defaults");
    }
    std::string cfg = write_config("timing", kConfig);
    std::string one = write_config("timing1", (std::string(kConfig) + "async_engine_count = 1\n").c_str());
    std::string slow = write_config("slow", "[timing]\nkernel_duration_ns = 30e6\n");
    std::string env_cfg = "APPTRACE_SIM_CONFIG=" + cfg, env_one = "APPTRACE_SIM_CONFIG=" + one,
                env_slow = "APPTRACE_SIM_CONFIG=" + slow;
    const char *injected[] = {env_cfg.c_str(), nullptr};
    const char *one_engine[] = {env_one.c_str(), nullptr};
    const char *rt[] = {env_slow.c_str(), "APPTRACE_SIM_REALTIME=1", nullptr};
    const char *no_rt[] = {env_slow.c_str(), "APPTRACE_SIM_REALTIME=0", nullptr};
    const char *none[] = {"APPTRACE_SIM_CONFIG=", nullptr};
    EXPECT_EQ(run_child(argv[0], "injected", injected), 0);
    EXPECT_EQ(run_child(argv[0], "one-engine", one_engine), 0);
    EXPECT_EQ(run_child(argv[0], "realtime", rt), 0);
    EXPECT_EQ(run_child(argv[0], "no-realtime", no_rt), 0);
    EXPECT_EQ(run_child(argv[0], "defaults", none), 0);
    for (const std::string &p : {cfg, one, slow})
        unlink(p.c_str());
    return check_report("sim_timing");
}
