// T threads (argv[1], default 8), each issuing exactly C calls (argv[2], default 10,000) into the
// runtime on its own stream: C/2 cudaMemsetAsync and C/2 kernel launches. Plus, per thread, one
// cudaStreamCreate, one cudaStreamSynchronize and one cudaStreamDestroy (so C + 3 in all).
// `threads 64 100000` is the load of docs/RELIABILITY.md (6.4 million calls).
#include <pthread.h>
#include <cstdlib>
#include <vector>
#include "check.h"

__global__ void tick(int *x) { x[threadIdx.x]++; }

static int *buffer;
static long calls = 10000;

static void *worker(void *arg) {
    long id = (long)arg;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *mine = buffer + id * 64;
    for (long i = 0; i < calls / 2; i++) {
        CHECK(cudaMemsetAsync(mine, 0, 64 * sizeof(int), s));
        tick<<<1, 64, 0, s>>>(mine);
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8;
    if (argc > 2) calls = atol(argv[2]);
    CHECK(cudaMalloc(&buffer, threads * 64 * sizeof(int)));
    std::vector<pthread_t> t(threads);
    for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK(cudaFree(buffer));
    return 0;
}
