/* libearly.so, linked by tests/cuda/early.cu: its constructor, which runs before apptrace's
 * (a library the program needs is initialized before preloaded ones), starts a thread that calls
 * the runtime at once: cudaMalloc and 100 cudaMemsetAsync, then waits for the program's main to
 * let it go on, then 100 more. */
#include <pthread.h>
#include <semaphore.h>
#include <cuda_runtime_api.h>

static pthread_t worker;
static sem_t first_done, go;
static int failures;

static void *work(void *arg) {
    (void)arg;
    void *d;
    if (cudaMalloc(&d, 4096) != cudaSuccess) failures++;
    for (int i = 0; i < 100; i++) failures += cudaMemsetAsync(d, 1, 4096, 0) != cudaSuccess;
    sem_post(&first_done);
    sem_wait(&go);
    for (int i = 0; i < 100; i++) failures += cudaMemsetAsync(d, 2, 4096, 0) != cudaSuccess;
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    sem_init(&first_done, 0, 0);
    sem_init(&go, 0, 0);
    pthread_create(&worker, NULL, work, NULL);
}

/* Waits for the first 101 calls, lets the thread make the rest, and waits for it to end;
 * returns the number of calls that failed. */
__attribute__((visibility("default"))) int early_finish(void) {
    sem_wait(&first_done);
    sem_post(&go);
    pthread_join(worker, NULL);
    return failures;
}
