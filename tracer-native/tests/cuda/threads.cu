// 8 threads, each issuing exactly 10,000 calls into the runtime on its own stream: 5,000
// cudaMemsetAsync and 5,000 kernel launches. Plus, per thread, one cudaStreamCreate, one
// cudaStreamSynchronize and one cudaStreamDestroy (so 10,003 in all).
#include <pthread.h>
#include "check.h"

#define THREADS 8
#define CALLS 10000

__global__ void tick(int *x) { x[threadIdx.x]++; }

static int *buffer;

static void *worker(void *arg) {
    long id = (long)arg;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *mine = buffer + id * 64;
    for (int i = 0; i < CALLS / 2; i++) {
        CHECK(cudaMemsetAsync(mine, 0, 64 * sizeof(int), s));
        tick<<<1, 64, 0, s>>>(mine);
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return NULL;
}

int main() {
    CHECK(cudaMalloc(&buffer, THREADS * 64 * sizeof(int)));
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK(cudaFree(buffer));
    return 0;
}
