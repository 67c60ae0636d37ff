// exit() from a second thread: the main thread makes 100 calls, starts a thread and waits for it;
// the thread makes 50 calls and calls exit(3). All 150 calls (and the cudaMalloc) must be in the
// trace, and the exit code is 3.
#include <pthread.h>
#include "check.h"

static int *d;

static void *second(void *) {
    for (int i = 0; i < 50; i++) CHECK(cudaMemsetAsync(d, 1, 256, 0));
    exit(3);
}

int main() {
    CHECK(cudaMalloc(&d, 256));
    for (int i = 0; i < 100; i++) CHECK(cudaMemsetAsync(d, 0, 256, 0));
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    pthread_join(t, NULL);
    return 0;
}
