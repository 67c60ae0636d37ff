// Per-call cost of the CUDA runtime as a program sees it, for docs/BENCHMARKS.md.
//
//   calls [--calls N] [--threads T] [--batch B]
//
// Each thread makes N/2 cudaMemcpyAsync calls (64 bytes, pinned to device, its own stream) and
// N/2 kernel launches, timed in batches of B calls with CLOCK_MONOTONIC. It prints, per kind, the
// median and 90th percentile of the per-call time over all batches (ns), and the calls per second
// of all threads together. Run it untraced, under the pass-through shim and under apptrace to get
// the interposer's added cost (bench/run-capture-bench).
#include <pthread.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

__global__ void nop(int *x, int n) {
    if (threadIdx.x < n) x[threadIdx.x] = 0;
}

static long calls = 1000000, batch = 1000;
static int threads = 1;

struct Result {
    std::vector<double> copy_ns, launch_ns;
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
    long batches = calls / 2 / batch;
    for (long b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (long i = 0; i < batch; i++) cudaMemcpyAsync(dev, host, 64, cudaMemcpyHostToDevice, s);
        double t1 = now_ns();
        for (long i = 0; i < batch; i++) nop<<<1, 32, 0, s>>>((int *)dev, 32);
        double t2 = now_ns();
        r->copy_ns.push_back((t1 - t0) / batch);
        r->launch_ns.push_back((t2 - t1) / batch);
        if (b % 64 == 63) cudaStreamSynchronize(s);
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
    cudaFree(dev);
    cudaFreeHost(host);
    return NULL;
}

static double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[(size_t)(p * (v.size() - 1))];
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--calls")) calls = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch")) batch = atol(argv[i + 1]);
    }
    std::vector<Result> results(threads);
    std::vector<pthread_t> t(threads);
    double start = now_ns();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, &results[i]);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double seconds = (now_ns() - start) / 1e9;
    Result all;
    for (auto &r : results) {
        all.copy_ns.insert(all.copy_ns.end(), r.copy_ns.begin(), r.copy_ns.end());
        all.launch_ns.insert(all.launch_ns.end(), r.launch_ns.begin(), r.launch_ns.end());
    }
    printf("threads=%d calls_per_thread=%ld seconds=%.3f calls_per_s=%.0f\n", threads, calls, seconds,
           threads * (double)calls / seconds);
    printf("memcpy_async_ns median=%.1f p90=%.1f\n", percentile(all.copy_ns, 0.5), percentile(all.copy_ns, 0.9));
    printf("launch_ns median=%.1f p90=%.1f\n", percentile(all.launch_ns, 0.5), percentile(all.launch_ns, 0.9));
    return 0;
}
