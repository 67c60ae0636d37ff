// Devices on the simulated runtime: the bundled A100-like profile, attributes consistent with the
// properties, selection, PCI bus ids, flags, limits, versions, driver entry points; then the
// configuration file (values, sections, units, APPTRACE_SIM_DEVICES) and what a broken one does:
// one line on stderr naming file, line and key, then cudaErrorInitializationError everywhere.
#include "check.h"

#include <cuda_profiler_api.h>

static void bundled_profile() {
    int n = 0;
    EXPECT_OK(cudaGetDeviceCount(&n));
    EXPECT_EQ(n, 1);
    cudaDeviceProp p;
    EXPECT_OK(cudaGetDeviceProperties(&p, 0));
    CHECK(strcmp(p.name, "apptrace simulated A100-SXM4-40GB") == 0);
    EXPECT_EQ(p.major, 8);
    EXPECT_EQ(p.minor, 0);
    EXPECT_EQ(p.multiProcessorCount, 108);
    EXPECT_EQ(p.totalGlobalMem, 42505273344ull);
    EXPECT_EQ(p.maxThreadsPerBlock, 1024);
    EXPECT_EQ(p.maxGridSize[1], 65535);
    EXPECT_EQ(p.warpSize, 32);
    EXPECT_EQ(p.unifiedAddressing, 1);
    EXPECT_EQ(p.managedMemory, 1);
    EXPECT_EQ(p.memoryBusWidth, 5120);
    CHECK(p.asyncEngineCount >= 2);
    EXPECT_ERR(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);

    struct {
        cudaDeviceAttr attr;
        long long want;
    } attrs[] = {
        {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
        {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
        {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
        {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock},
        {cudaDevAttrWarpSize, p.warpSize},
        {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
        {cudaDevAttrComputeCapabilityMajor, p.major},
        {cudaDevAttrComputeCapabilityMinor, p.minor},
        {cudaDevAttrClockRate, 1410000},
        {cudaDevAttrMemoryClockRate, 1215000},
        {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth},
        {cudaDevAttrL2CacheSize, p.l2CacheSize},
        {cudaDevAttrAsyncEngineCount, p.asyncEngineCount},
        {cudaDevAttrPciBusId, p.pciBusID},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin},
        {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
        {cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess},
        {cudaDevAttrMemoryPoolsSupported, 1},
        {cudaDevAttrUnifiedAddressing, 1},
        {cudaDevAttrKernelExecTimeout, 0},
    };
    for (auto &a : attrs) {
        int v = -1;
        EXPECT_OK(cudaDeviceGetAttribute(&v, a.attr, 0));
        EXPECT_EQ(v, a.want);
    }
    int v;
    EXPECT_ERR(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)0, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 3), cudaErrorInvalidDevice);
    cudaGetLastError();
}

static void selection_and_settings() {
    int d = -1;
    EXPECT_OK(cudaGetDevice(&d));
    EXPECT_EQ(d, 0);
    EXPECT_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaSetDevice(-1), cudaErrorInvalidDevice);
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaInitDevice(0, 0, 0));
    EXPECT_ERR(cudaInitDevice(2, 0, 0), cudaErrorInvalidDevice);
    cudaDeviceProp want = {};
    want.major = 7;
    EXPECT_OK(cudaChooseDevice(&d, &want));
    EXPECT_EQ(d, 0);

    char bus[32];
    EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    CHECK(strcmp(bus, "0000:07:00.0") == 0);
    EXPECT_OK(cudaDeviceGetByPCIBusId(&d, "0000:07:00.0"));
    EXPECT_EQ(d, 0);
    EXPECT_OK(cudaDeviceGetByPCIBusId(&d, "07:00.0"));
    EXPECT_ERR(cudaDeviceGetByPCIBusId(&d, "0000:08:00.0"), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaDeviceGetByPCIBusId(&d, "nonsense"), cudaErrorInvalidValue);

    unsigned flags = 0;
    EXPECT_OK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    EXPECT_OK(cudaGetDeviceFlags(&flags));
    EXPECT_EQ(flags, cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    EXPECT_ERR(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);

    size_t limit = 0;
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT_EQ(limit, 1024);
    EXPECT_OK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT_EQ(limit, 4096);
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    EXPECT_EQ(limit, 8 << 20);
    EXPECT_ERR(cudaDeviceSetLimit((cudaLimit)42, 1), cudaErrorUnsupportedLimit);
    EXPECT_ERR(cudaDeviceGetLimit(&limit, (cudaLimit)42), cudaErrorUnsupportedLimit);
    EXPECT_ERR(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1ull << 40),
               cudaErrorInvalidValue);

    cudaFuncCache cache;
    EXPECT_OK(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
    EXPECT_OK(cudaDeviceGetCacheConfig(&cache));
    EXPECT_EQ(cache, cudaFuncCachePreferL1);
    EXPECT_ERR(cudaDeviceSetCacheConfig((cudaFuncCache)8), cudaErrorInvalidValue);

    int version = 0;
    EXPECT_OK(cudaRuntimeGetVersion(&version));
    EXPECT_EQ(version, 13000);
    EXPECT_OK(cudaDriverGetVersion(&version));
    EXPECT_EQ(version, 13000);
    EXPECT_OK(cudaProfilerStart());
    EXPECT_OK(cudaProfilerStop());

    void *fn = (void *)1;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSuccess;
    // Deprecated, but programs still call it: the simulator must answer it.
#pragma nv_diag_suppress 1444
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_ERR(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &status),
               cudaErrorNotSupported);
#pragma GCC diagnostic pop
    CHECK(fn == nullptr);
    EXPECT_EQ(status, cudaDriverEntryPointSymbolNotFound);
    const void *table = (const void *)1;
    cudaUUID_t id = {};
    EXPECT_ERR(cudaGetExportTable(&table, &id), cudaErrorNotSupported);
    CHECK(table == nullptr);

    // cudaDeviceReset forgets settings.
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
    EXPECT_EQ(limit, 1024);
    EXPECT_OK(cudaDeviceGetCacheConfig(&cache));
    EXPECT_EQ(cache, cudaFuncCachePreferNone);
    cudaGetLastError();
}

static const char *kConfig = R"(# three devices, the second one different
devices = 3
peer_access = 0-1

[device *]
multi_processor_count = 80
total_global_mem = 16GiB
clock_rate_khz = 1000000

[device 1]
name = "apptrace simulated test GPU # one"
major = 9
minor = 0
pci_bus_id = 0x41
async_engine_count = 1
total_global_mem = 1073741824

[device 2]
name = "apptrace simulated T4-like"
major = 7
minor = 5
max_blocks_per_multiprocessor = 8
)";

static void configured() {
    int n = 0;
    EXPECT_OK(cudaGetDeviceCount(&n));
    EXPECT_EQ(n, 3);
    cudaDeviceProp p0, p1;
    EXPECT_OK(cudaGetDeviceProperties(&p0, 0));
    EXPECT_OK(cudaGetDeviceProperties(&p1, 1));
    CHECK(strcmp(p0.name, "apptrace simulated A100-SXM4-40GB") == 0);
    CHECK(strcmp(p1.name, "apptrace simulated test GPU # one") == 0);
    EXPECT_EQ(p0.multiProcessorCount, 80);
    EXPECT_EQ(p1.multiProcessorCount, 80);
    EXPECT_EQ(p0.totalGlobalMem, 16ull << 30);
    EXPECT_EQ(p1.totalGlobalMem, 1ull << 30);
    EXPECT_EQ(p1.major, 9);
    EXPECT_EQ(p1.pciBusID, 0x41);
    EXPECT_EQ(p1.asyncEngineCount, 1);
    // per-SM limits follow the configured compute capability, unless a section sets them
    EXPECT_EQ(p0.maxThreadsPerMultiProcessor, 2048);
    EXPECT_EQ(p0.sharedMemPerMultiprocessor, 167936);
    EXPECT_EQ(p1.maxThreadsPerMultiProcessor, 2048);
    EXPECT_EQ(p1.sharedMemPerMultiprocessor, 233472);
    EXPECT_EQ(p1.sharedMemPerBlockOptin, 232448);
    cudaDeviceProp p2;
    EXPECT_OK(cudaGetDeviceProperties(&p2, 2));
    EXPECT_EQ(p2.maxThreadsPerMultiProcessor, 1024);
    EXPECT_EQ(p2.maxBlocksPerMultiProcessor, 8);
    EXPECT_EQ(p2.sharedMemPerMultiprocessor, 65536);
    EXPECT_EQ(p2.sharedMemPerBlockOptin, 65536);
    EXPECT_EQ(p2.reservedSharedMemPerBlock, 0);
    int per_sm = 0;
    EXPECT_OK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 2));
    EXPECT_EQ(per_sm, 1024);
    int clock = 0;
    EXPECT_OK(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 2));
    EXPECT_EQ(clock, 1000000);
    int can = -1;
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    EXPECT_EQ(can, 1);
    EXPECT_OK(cudaDeviceCanAccessPeer(&can, 1, 2));
    EXPECT_EQ(can, 0);
    size_t free_b, total;
    EXPECT_OK(cudaSetDevice(1));
    EXPECT_OK(cudaMemGetInfo(&free_b, &total));
    EXPECT_EQ(total, 1ull << 30);
    void *p;
    EXPECT_ERR(cudaMalloc(&p, (1ull << 30) + 1), cudaErrorMemoryAllocation);
    char bus[32];
    EXPECT_OK(cudaDeviceGetPCIBusId(bus, sizeof bus, 1));
    CHECK(strcmp(bus, "0000:41:00.0") == 0);
}

static void env_devices() {
    int n = 0;
    EXPECT_OK(cudaGetDeviceCount(&n));
    EXPECT_EQ(n, 5);
}

// Every call fails with cudaErrorInitializationError; error texts still work.
static void broken() {
    int n = -1;
    void *p;
    EXPECT_ERR(cudaGetDeviceCount(&n), cudaErrorInitializationError);
    EXPECT_ERR(cudaMalloc(&p, 16), cudaErrorInitializationError);
    EXPECT_ERR(cudaSetDevice(0), cudaErrorInitializationError);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInitializationError);
    CHECK(strcmp(cudaGetErrorString(cudaErrorInitializationError), "initialization error") == 0);
}

struct BrokenCase {
    const char *text;   // config file content (nullptr: a file that does not exist)
    const char *expect; // must appear in the message
};

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "configured")
        return configured(), check_report("sim_device configured");
    if (mode == "env")
        return env_devices(), check_report("sim_device env");
    if (mode == "broken")
        return broken(), check_report("sim_device broken");
    bundled_profile();
    selection_and_settings();

    std::string cfg = write_config("device", kConfig);
    std::string env = "APPTRACE_SIM_CONFIG=" + cfg;
    const char *configured_env[] = {env.c_str(), nullptr};
    EXPECT_EQ(run_child(argv[0], "configured", configured_env), 0);
    const char *env_count[] = {env.c_str(), "APPTRACE_SIM_DEVICES=5", nullptr};
    EXPECT_EQ(run_child(argv[0], "env", env_count), 0);

    const BrokenCase cases[] = {
        {"[device 0]\nnot_a_key = 1\n", ":2: unknown key \"not_a_key\""},
        {"[timing]\n\nh2d_pinned_latency_ns = fast\n", ":3: value is not a number for key "
                                                       "\"h2d_pinned_latency_ns\""},
        {"[timing]\nd2d_bandwidth_bytes_per_s = 0\n", ":2: value out of range"},
        {"[gpu 0]\n", ":1: unknown section \"[gpu 0\""},
        {"devices = 100\n", ":1: expected a device count"},
        {"devices = 2\npeer_access = 0-5\n", ":2: no such pair"},
        {"[device 0]\nmajor\n", ":2: expected key = value"},
        {"[device 0]\ntotal_global_mem = 12 parsecs\n", "total_global_mem"},
        {nullptr, "cannot read APPTRACE_SIM_CONFIG file"},
    };
    std::string out = "/tmp/apptrace-sim-device-" + std::to_string(getpid());
    for (const BrokenCase &c : cases) {
        std::string path = c.text ? write_config("broken", c.text) : "/nonexistent/sim.conf";
        std::string e = "APPTRACE_SIM_CONFIG=" + path;
        const char *broken_env[] = {e.c_str(), nullptr};
        EXPECT_EQ(run_child(argv[0], "broken", broken_env, out.c_str()), 0);
        std::string err = slurp(out + ".err");
        EXPECT_EQ(count_lines(err), 1);
        if (err.find(path) == std::string::npos || err.find(c.expect) == std::string::npos) {
            check_failures++;
            fprintf(stderr, "config message lacks \"%s\" or the path: %s", c.expect, err.c_str());
        }
        EXPECT_EQ(slurp(out + ".out").size(), 0);
        if (c.text)
            unlink(path.c_str());
    }
    const char *bad_env[] = {"APPTRACE_SIM_DEVICES=two", nullptr};
    EXPECT_EQ(run_child(argv[0], "broken", bad_env, out.c_str()), 0);
    CHECK(slurp(out + ".err").find("APPTRACE_SIM_DEVICES") != std::string::npos);
    unlink((out + ".out").c_str());
    unlink((out + ".err").c_str());
    unlink(cfg.c_str());
    return check_report("sim_device");
}
