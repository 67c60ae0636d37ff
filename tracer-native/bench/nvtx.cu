// Per-call cost of NVTX as a program sees it, for docs/BENCHMARKS.md ("Capture: an NVTX call").
//
//   nvtx [--pairs N] [--batch B]
//
// Makes N nvtxRangePushA/nvtxRangePop pairs and N nvtxMarkA calls (the toolkit's NVTX v3 headers),
// timed in batches of B with CLOCK_MONOTONIC, after one cudaFree(0) (the runtime started, as in a
// CUDA program). Prints the median per-call time of each kind, ns. Run it without an injection
// library (NVTX's own no-op), with apptrace's interposer as injection but no collector (tracing
// off), and traced (bench/run-nvtx-bench).
#include <nvtx3/nvToolsExt.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

static double now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

int main(int argc, char **argv) {
    long pairs = 1000000, batch = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--pairs")) pairs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--batch")) batch = atol(argv[i + 1]);
    }
    cudaFree(0);
    nvtxMarkA("warm-up"); // NVTX loads its injection library at the first call
    std::vector<double> push_pop, mark;
    for (long done = 0; done < pairs; done += batch) {
        double t0 = now_ns();
        for (long i = 0; i < batch; i++) {
            nvtxRangePushA("range");
            nvtxRangePop();
        }
        double t1 = now_ns();
        for (long i = 0; i < batch; i++) nvtxMarkA("mark");
        double t2 = now_ns();
        push_pop.push_back((t1 - t0) / (2.0 * batch));
        mark.push_back((t2 - t1) / batch);
    }
    printf("push_pop_ns median=%.1f\nmark_ns median=%.1f\n", median(push_pop), median(mark));
    return 0;
}
