// Error state and error texts on the simulated runtime: the per-thread last error (set by every
// failing call, returned and cleared by cudaGetLastError, only returned by cudaPeekAtLastError),
// names and strings of every cudaError_t, unsupported functions (cudaErrorNotSupported and one
// line on stderr per function, none with APPTRACE_SIM_QUIET=1), and nothing ever on stdout.
#include "check.h"

#include <thread>

static void texts() {
    struct {
        cudaError_t code;
        const char *name, *text;
    } known[] = {
        {cudaSuccess, "cudaSuccess", "no error"},
        {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
        {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
        {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
        {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
        {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction",
         "invalid device function"},
        {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
         "invalid configuration argument"},
        {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
        {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
         "invalid resource handle"},
        {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
        {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
        {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
         "invalid copy direction for memcpy"},
        {cudaErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled",
         "peer access is already enabled"},
        {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
    };
    for (auto &k : known) {
        CHECK(strcmp(cudaGetErrorName(k.code), k.name) == 0);
        CHECK(strcmp(cudaGetErrorString(k.code), k.text) == 0);
    }
    CHECK(strcmp(cudaGetErrorName((cudaError_t)12345), "unrecognized error code") == 0);
    CHECK(strcmp(cudaGetErrorString((cudaError_t)12345), "unrecognized error code") == 0);
    CHECK(strcmp(cudaGetErrorString((cudaError_t)-3), "unrecognized error code") == 0);
    // Every value of enum cudaError in CUDA 13.0 has a name of its own and a description.
    int named = 0;
    for (int c = 0; c < 1000; c++) {
        const char *name = cudaGetErrorName((cudaError_t)c);
        if (strcmp(name, "unrecognized error code") == 0)
            continue;
        named++;
        CHECK(strncmp(name, "cudaError", 9) == 0 || c == 0);
        CHECK(strlen(cudaGetErrorString((cudaError_t)c)) > 0);
        CHECK(strcmp(cudaGetErrorString((cudaError_t)c), name) != 0);
    }
    EXPECT_EQ(named, 133);
}

static void last_error() {
    EXPECT_OK(cudaGetLastError());
    int *p;
    EXPECT_ERR(cudaMalloc(nullptr, 4), cudaErrorInvalidValue);
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
    EXPECT_OK(cudaMalloc(&p, 4)); // success does not clear it
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaSetDevice(7), cudaErrorInvalidDevice); // the latest failure wins
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaPeekAtLastError());

    // Per thread: another thread's failure is not ours, and ours is not its.
    EXPECT_ERR(cudaFree((char *)p + 1), cudaErrorInvalidValue);
    cudaError_t seen_there = cudaErrorUnknown, after_there = cudaErrorUnknown;
    std::thread t([&] {
        seen_there = cudaPeekAtLastError();
        cudaSetDevice(-1);
        after_there = cudaGetLastError();
    });
    t.join();
    EXPECT_EQ(seen_there, cudaSuccess);
    EXPECT_EQ(after_there, cudaErrorInvalidDevice);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(p));
}

// Functions the simulator does not implement still exist and fail cleanly.
static void unsupported() {
    cudaIpcEventHandle_t h;
    cudaEvent_t e;
    EXPECT_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming | cudaEventInterprocess));
    EXPECT_ERR(cudaIpcGetEventHandle(&h, e), cudaErrorNotSupported);
    EXPECT_ERR(cudaGetLastError(), cudaErrorNotSupported);
    cudaArray_t a;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    EXPECT_EQ(desc.x, 32);
    EXPECT_EQ(desc.f, cudaChannelFormatKindFloat);
    EXPECT_ERR(cudaMallocArray(&a, &desc, 16, 16), cudaErrorNotSupported);
    EXPECT_ERR(cudaIpcGetEventHandle(&h, e), cudaErrorNotSupported);
    EXPECT_OK(cudaEventDestroy(e));
    cudaGetLastError();
}

int main(int argc, char **argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "unsupported") {
        unsupported();
        return check_report("sim_errors unsupported");
    }
    texts();
    last_error();
    unsupported();
    // Messages: one line per unsupported function (two used above), none when quiet, none on
    // stdout ever.
    std::string out = "/tmp/apptrace-sim-errors-" + std::to_string(getpid());
    const char *loud[] = {"APPTRACE_SIM_QUIET=0", nullptr};
    const char *quiet[] = {"APPTRACE_SIM_QUIET=1", nullptr};
    EXPECT_EQ(run_child(argv[0], "unsupported", loud, out.c_str()), 0);
    std::string err = slurp(out + ".err");
    EXPECT_EQ(count_lines(err), 2);
    CHECK(err.find("apptrace simulated CUDA runtime: cudaIpcGetEventHandle is not supported; it "
                   "returns cudaErrorNotSupported\n") != std::string::npos);
    CHECK(err.find("cudaMallocArray is not supported") != std::string::npos);
    EXPECT_EQ(slurp(out + ".out").size(), 0);
    EXPECT_EQ(run_child(argv[0], "unsupported", quiet, out.c_str()), 0);
    EXPECT_EQ(slurp(out + ".err").size(), 0);
    EXPECT_EQ(slurp(out + ".out").size(), 0);
    unlink((out + ".out").c_str());
    unlink((out + ".err").c_str());
    return check_report("sim_errors");
}
