// Several simulated devices: per-device memory and streams, peer access (enable, disable, the
// errors, a configuration without peer access), peer copies and their modeled time (direct when
// peer access is on, staged through the host otherwise), per-device module variables, legacy
// streams that do not wait for each other, and cudaDeviceReset of one device.
#include "check.h"

#include <atomic>
#include <cstdint>
#include <vector>

__device__ int per_device;
__global__ void kernel() {}

static void CUDART_CB wait_for(void *flag) {
    while (!((std::atomic<bool> *)flag)->load())
        usleep(200);
}

static const char *kTiming = R"([timing]
peer_latency_ns = 3000
peer_bandwidth_bytes_per_s = 100e9
d2h_pinned_latency_ns = 10000
d2h_pinned_bandwidth_bytes_per_s = 20e9
h2d_pinned_latency_ns = 10000
h2d_pinned_bandwidth_bytes_per_s = 20e9
)";

static double peer_copy_ns(int *dst, int dst_dev, int *src, int src_dev, size_t n) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaDeviceSynchronize();
    cudaEventRecord(a, 0);
    EXPECT_OK(cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, n, 0));
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    float ms = -1;
    EXPECT_OK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms * 1e6;
}

static void two_devices() {
    int n = 0;
    EXPECT_OK(cudaGetDeviceCount(&n));
    EXPECT_EQ(n, 2);
    int *d0, *d1;
    EXPECT_OK(cudaMalloc(&d0, 1 << 20));
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMalloc(&d1, 1 << 20));
    CHECK((uintptr_t)d1 - (uintptr_t)d0 >= (1ull << 40)); // separate address ranges
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, d1));
    EXPECT_EQ(a.device, 1);
    EXPECT_OK(cudaPointerGetAttributes(&a, d0));
    EXPECT_EQ(a.device, 0);
    size_t f0, f1, total;
    EXPECT_OK(cudaMemGetInfo(&f1, &total));
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaMemGetInfo(&f0, &total));
    EXPECT_EQ(f0, f1);

    int can = -1;
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    EXPECT_EQ(can, 1);
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 0, 0));
    EXPECT_EQ(can, 0);
    EXPECT_ERR(cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
    int attr = -1;
    EXPECT_OK(cudaDeviceGetP2PAttribute(&attr, cudaDevP2PAttrAccessSupported, 0, 1));
    EXPECT_EQ(attr, 1);

    // Peer copies: staged through the host until peer access is enabled.
    std::vector<int> h(1024);
    for (int i = 0; i < 1024; i++)
        h[i] = i * 3;
    EXPECT_OK(cudaMemcpy(d0, h.data(), 4096, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpyPeer(d1, 1, d0, 0, 4096));
    std::vector<int> back(1024, 0);
    EXPECT_OK(cudaMemcpy(back.data(), d1, 4096, cudaMemcpyDeviceToHost));
    EXPECT_EQ(back[1023], 1023 * 3);
    const size_t bytes = 1 << 20;
    double staged = 2 * (10000 + bytes * 1e9 / 20e9), direct = 3000 + bytes * 1e9 / 100e9;
    EXPECT_NS(peer_copy_ns(d1, 1, d0, 0, bytes), staged);
    EXPECT_OK(cudaDeviceEnablePeerAccess(1, 0));
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice); // itself
    EXPECT_ERR(cudaDeviceEnablePeerAccess(2, 0), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
    EXPECT_NS(peer_copy_ns(d1, 1, d0, 0, bytes), direct);
    EXPECT_OK(cudaMemcpy(d1, d0, 4096, cudaMemcpyDefault)); // unified addressing across devices
    EXPECT_OK(cudaDeviceDisablePeerAccess(1));
    EXPECT_ERR(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    EXPECT_ERR(cudaMemcpyPeer(d1, 0, d0, 0, 16), cudaErrorInvalidValue); // d1 is on device 1
    EXPECT_ERR(cudaMemcpyPeer(d1, 3, d0, 0, 16), cudaErrorInvalidDevice);
    cudaGetLastError();

    // Streams and events belong to the device current at creation.
    cudaStream_t s1;
    cudaEvent_t e0;
    EXPECT_OK(cudaEventCreate(&e0));
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaStreamCreate(&s1));
    int dev = -1;
    EXPECT_OK(cudaStreamGetDevice(s1, &dev));
    EXPECT_EQ(dev, 1);
    EXPECT_ERR(cudaEventRecord(e0, s1), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    kernel<<<1, 1, 0, s1>>>();
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaSetDevice(0));
    kernel<<<1, 1, 0, s1>>>(); // a stream of another device
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaEventRecord(e0, 0));
    EXPECT_OK(cudaStreamWaitEvent(s1, e0, 0)); // waiting across devices is fine
    EXPECT_OK(cudaMemcpyAsync(d1, d0, 64, cudaMemcpyDeviceToDevice, s1)); // so is copying

    // Each device has its own legacy stream: a pending one on device 0 holds up nothing on 1.
    std::atomic<bool> go{false};
    EXPECT_OK(cudaLaunchHostFunc(0, wait_for, &go));
    EXPECT_ERR(cudaStreamQuery(0), cudaErrorNotReady);
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMemsetAsync(d1, 0, 64, 0));
    EXPECT_OK(cudaStreamQuery(0));
    go = true;
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaDeviceSynchronize());

    // Module variables have an instance per device.
    int v0 = 10, v1 = 11, r = 0;
    EXPECT_OK(cudaMemcpyToSymbol(per_device, &v0, sizeof v0));
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMemcpyToSymbol(per_device, &v1, sizeof v1));
    void *addr1, *addr0;
    EXPECT_OK(cudaGetSymbolAddress(&addr1, per_device));
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaGetSymbolAddress(&addr0, per_device));
    CHECK(addr0 != addr1);
    EXPECT_OK(cudaMemcpyFromSymbol(&r, per_device, sizeof r));
    EXPECT_EQ(r, 10);

    // Resetting device 1 frees its memory and streams, and leaves device 0 alone.
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaPointerGetAttributes(&a, d1));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
    EXPECT_ERR(cudaStreamQuery(s1), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaMemcpyFromSymbol(&r, per_device, sizeof r));
    EXPECT_EQ(r, 0); // fresh instance, initial value
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaPointerGetAttributes(&a, d0));
    EXPECT_EQ(a.type, cudaMemoryTypeDevice);
    EXPECT_OK(cudaEventQuery(e0));
    EXPECT_OK(cudaEventDestroy(e0));
    EXPECT_OK(cudaFree(d0));
    cudaGetLastError();
}

static void no_peer_access() {
    int can = -1;
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    EXPECT_EQ(can, 0);
    EXPECT_ERR(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessUnsupported);
    int *d0, *d1;
    EXPECT_OK(cudaMalloc(&d0, 64));
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMalloc(&d1, 64));
    EXPECT_OK(cudaMemcpyPeer(d0, 0, d1, 1, 64)); // still possible, through the host
    cudaGetLastError();
}

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "two")
        return two_devices(), check_report("sim_multidevice two");
    if (mode == "no-peer")
        return no_peer_access(), check_report("sim_multidevice no-peer");
    std::string cfg = write_config("multi", kTiming);
    std::string none = write_config("nopeer", "devices = 2\npeer_access = none\n");
    std::string e1 = "APPTRACE_SIM_CONFIG=" + cfg, e2 = "APPTRACE_SIM_CONFIG=" + none;
    const char *two[] = {e1.c_str(), "APPTRACE_SIM_DEVICES=2", nullptr};
    const char *no_peer[] = {e2.c_str(), nullptr};
    EXPECT_EQ(run_child(argv[0], "two", two), 0);
    EXPECT_EQ(run_child(argv[0], "no-peer", no_peer), 0);
    unlink(cfg.c_str());
    unlink(none.c_str());
    return check_report("sim_multidevice");
}
