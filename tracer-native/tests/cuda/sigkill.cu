// Killed with SIGKILL, which no handler sees: 500 cudaMemsetAsync calls, a cudaDeviceSynchronize
// (the last completed synchronizing call), then 200 more calls on the main thread and 100 on each
// of T threads (argv[1], default 0) that are still alive, then SIGKILL to itself. The events after
// the synchronize were never sent: they are recovered from the shared buffers, so all
// 500 + 200 + 100 T calls must be in the trace.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <cstdlib>
#include "check.h"

static int *d;
static pthread_barrier_t calls_done;

static void *worker(void *) {
    for (int i = 0; i < 100; i++) CHECK(cudaMemsetAsync(d, 2, 4096, 0));
    pthread_barrier_wait(&calls_done);
    pause(); /* alive, its buffer unsent, when the process is killed */
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaMalloc(&d, 4096));
    for (int i = 0; i < 500; i++) CHECK(cudaMemsetAsync(d, 0, 4096, 0));
    CHECK(cudaDeviceSynchronize());
    pthread_barrier_init(&calls_done, NULL, threads + 1);
    for (int i = 0; i < threads; i++) {
        pthread_t t;
        pthread_create(&t, NULL, worker, NULL);
    }
    for (int i = 0; i < 200; i++) CHECK(cudaMemsetAsync(d, 1, 4096, 0));
    pthread_barrier_wait(&calls_done);
    kill(getpid(), SIGKILL);
    return 0;
}
