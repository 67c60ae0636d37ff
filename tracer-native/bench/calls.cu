// Per-call cost of the CUDA runtime as a program sees it, for docs/BENCHMARKS.md.
//
//   calls [--calls N] [--threads T] [--batch B] [--unpaired]
//
// Each thread makes N calls: N/2 cudaMemcpyAsync (64 bytes, pinned to device, its own stream)
// and N/2 kernel launches (__cudaLaunchKernel, what <<<>>> calls in CUDA 13), timed in batches of
// B calls with CLOCK_MONOTONIC. Calls alternate, batch by batch, between the symbol the program
// links to (which an LD_PRELOAD library such as apptrace's interposer replaces) and the runtime's
// own function (found with dlvsym on the runtime's handle and its version node: apptrace's
// interposer answers dlsym on the runtime's handle with its hooks, not dlvsym). Both halves run
// on the same CPU microseconds apart, so the difference is the preload's added cost per call,
// unaffected by the machine's speed changing between runs.
//
// Prints, per kind, the median per-call time of the linked calls, of the direct calls, and the
// median of their per-batch differences (ns); and the linked calls per second of all threads.
// --unpaired makes linked calls only (every call traced: for collector throughput).
#include <dlfcn.h>
#include <pthread.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *, const void *);
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

__global__ void nop(int *x, int n) {
    if (threadIdx.x < n) x[threadIdx.x] = 0;
}

typedef cudaError_t (*memcpy_fn)(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t);
typedef cudaError_t (*launch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

static long calls = 1000000, batch = 1000;
static int threads = 1;
static bool unpaired = false;
static memcpy_fn direct_memcpy;
static launch_fn direct_launch;

struct Result {
    std::vector<double> copy, copy_direct, copy_diff, launch, launch_direct, launch_diff;
    double linked_ns = 0;
};

static double now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *worker(void *arg) {
    Result *r = (Result *)arg;
    cudaStream_t s;
    cudaStreamCreate(&s);
    char *host, *dev;
    cudaMallocHost(&host, 64);
    cudaMalloc(&dev, 4096);
    cudaKernel_t k;
    __cudaGetKernel(&k, (const void *)nop);
    int n = 32;
    int *x = (int *)dev;
    void *args[] = {&x, &n};
    dim3 grid(1), block(32);
    long batches = calls / 2 / batch;
    for (long b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (long i = 0; i < batch; i++) cudaMemcpyAsync(dev, host, 64, cudaMemcpyHostToDevice, s);
        double t1 = now_ns();
        for (long i = 0; i < batch && !unpaired; i++) direct_memcpy(dev, host, 64, cudaMemcpyHostToDevice, s);
        double t2 = now_ns();
        for (long i = 0; i < batch; i++) __cudaLaunchKernel(k, grid, block, args, 0, s);
        double t3 = now_ns();
        for (long i = 0; i < batch && !unpaired; i++) direct_launch(k, grid, block, args, 0, s);
        double t4 = now_ns();
        r->copy.push_back((t1 - t0) / batch);
        r->copy_direct.push_back((t2 - t1) / batch);
        r->copy_diff.push_back(((t1 - t0) - (t2 - t1)) / batch);
        r->launch.push_back((t3 - t2) / batch);
        r->launch_direct.push_back((t4 - t3) / batch);
        r->launch_diff.push_back(((t3 - t2) - (t4 - t3)) / batch);
        r->linked_ns += (t1 - t0) + (t3 - t2);
        if (b % 32 == 31) cudaStreamSynchronize(s);
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    cudaFree(dev);
    cudaFreeHost(host);
    return NULL;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static void append(std::vector<double> &to, const std::vector<double> &from) {
    to.insert(to.end(), from.begin(), from.end());
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--unpaired")) unpaired = true;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--unpaired")) i--;
        else if (!strcmp(argv[i], "--calls")) calls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch")) batch = atol(argv[i + 1]);
    }
    void *rt = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
    direct_memcpy = rt ? (memcpy_fn)dlvsym(rt, "cudaMemcpyAsync", "libcudart.so.13") : NULL;
    direct_launch = rt ? (launch_fn)dlvsym(rt, "__cudaLaunchKernel", "libcudart.so.13") : NULL;
    if (!direct_memcpy || !direct_launch) {
        fprintf(stderr, "calls: cannot find the runtime's own functions\n");
        return 1;
    }
    std::vector<Result> results(threads);
    std::vector<pthread_t> t(threads);
    double start = now_ns();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, &results[i]);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double seconds = (now_ns() - start) / 1e9;
    Result all;
    double linked_ns = 0;
    for (auto &r : results) {
        append(all.copy, r.copy);
        append(all.copy_direct, r.copy_direct);
        append(all.copy_diff, r.copy_diff);
        append(all.launch, r.launch);
        append(all.launch_direct, r.launch_direct);
        append(all.launch_diff, r.launch_diff);
        linked_ns = std::max(linked_ns, r.linked_ns);
    }
    printf("threads=%d calls_per_thread=%ld seconds=%.3f linked_calls_per_s=%.0f\n", threads, calls,
           seconds, threads * (double)calls / (linked_ns / 1e9));
    printf("memcpy_async_ns median=%.1f direct=%.1f added=%.1f\n", median(all.copy),
           median(all.copy_direct), median(all.copy_diff));
    printf("launch_ns median=%.1f direct=%.1f added=%.1f\n", median(all.launch),
           median(all.launch_direct), median(all.launch_diff));
    return 0;
}
