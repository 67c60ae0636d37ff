// Streams, events, host callbacks and synchronization on the simulated runtime, as a host sees
// them on a real device: work queues behind a pending host function, the legacy default stream
// synchronizes with blocking streams (not with non-blocking ones), events complete when the
// work before them has run, and handles are validated.
//
// A "gate" is a host function that blocks until the test opens it: while it is closed, its
// stream has pending work, which is how these tests make work wait.
#include "check.h"

#include <atomic>
#include <pthread.h>
#include <thread>
#include <vector>

struct Gate {
    std::atomic<bool> open{false};
    std::atomic<bool> entered{false};
    pthread_t thread{};
};

static void CUDART_CB gate_fn(void *p) {
    Gate *g = (Gate *)p;
    g->thread = pthread_self();
    g->entered = true;
    while (!g->open)
        usleep(200);
}

static void open_later(Gate *g, int ms) {
    std::thread([g, ms] {
        usleep(ms * 1000);
        g->open = true;
    }).detach();
}

static std::vector<int> order;
static std::atomic<int> callback_status{-1};
static cudaStream_t callback_stream;

static void CUDART_CB append(void *p) {
    order.push_back((int)(long)p);
}

static void CUDART_CB stream_callback(cudaStream_t s, cudaError_t status, void *p) {
    callback_stream = s;
    callback_status = status;
    order.push_back((int)(long)p);
}

static void handles() {
    cudaStream_t s, t;
    EXPECT_OK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -100));
    int prio = 0, least = 1, greatest = 1, device = -1;
    unsigned flags = 9;
    EXPECT_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT_EQ(least, 0);
    EXPECT_EQ(greatest, -5);
    EXPECT_OK(cudaStreamGetPriority(s, &prio));
    EXPECT_EQ(prio, -5); // clamped
    EXPECT_OK(cudaStreamGetFlags(s, &flags));
    EXPECT_EQ(flags, cudaStreamNonBlocking);
    EXPECT_OK(cudaStreamGetDevice(s, &device));
    EXPECT_EQ(device, 0);
    EXPECT_OK(cudaStreamCreate(&t));
    unsigned long long id1 = 0, id2 = 0;
    EXPECT_OK(cudaStreamGetId(s, &id1));
    EXPECT_OK(cudaStreamGetId(t, &id2));
    CHECK(id1 != id2);
    EXPECT_OK(cudaStreamGetFlags(0, &flags));
    EXPECT_EQ(flags, 0);
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusActive;
    EXPECT_OK(cudaStreamIsCapturing(s, &capturing));
    EXPECT_EQ(capturing, cudaStreamCaptureStatusNone);
    capturing = cudaStreamCaptureStatusActive;
    EXPECT_OK(cudaStreamGetCaptureInfo(t, &capturing));
    EXPECT_EQ(capturing, cudaStreamCaptureStatusNone);
    cudaStreamAttrValue value = {};
    value.priority = -2;
    EXPECT_OK(cudaStreamSetAttribute(t, cudaStreamAttributePriority, &value));
    value.priority = 0;
    EXPECT_OK(cudaStreamGetAttribute(t, cudaStreamAttributePriority, &value));
    EXPECT_EQ(value.priority, -2);
    EXPECT_OK(cudaStreamCopyAttributes(s, t));
    EXPECT_OK(cudaStreamGetPriority(s, &prio));
    EXPECT_EQ(prio, -2);
    EXPECT_OK(cudaStreamSetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &value));
    EXPECT_ERR(cudaStreamGetAttribute(t, (cudaStreamAttrID)99, &value), cudaErrorInvalidValue);
    EXPECT_ERR(cudaStreamCreateWithFlags(&t, 0x10), cudaErrorInvalidValue);
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_ERR(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaStreamGetFlags((cudaStream_t)0xdeadbeef, &flags), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaStreamDestroy(t));

    cudaEvent_t e;
    EXPECT_OK(cudaEventCreate(&e));
    EXPECT_OK(cudaEventQuery(e)); // never recorded: complete
    EXPECT_OK(cudaEventSynchronize(e));
    EXPECT_OK(cudaEventDestroy(e));
    EXPECT_ERR(cudaEventDestroy(e), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaEventRecord(e, 0), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaEventCreateWithFlags(&e, 0x40), cudaErrorInvalidValue);
    EXPECT_ERR(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);
    cudaGetLastError();
}

static void callbacks_run_in_order_on_another_thread() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    order.clear();
    Gate g;
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &g));
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)1));
    EXPECT_OK(cudaStreamAddCallback(s, stream_callback, (void *)2, 0));
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)3));
    EXPECT_ERR(cudaStreamQuery(s), cudaErrorNotReady);
    EXPECT_OK(cudaGetLastError()); // cudaErrorNotReady is not an error to remember
    CHECK(order.empty());
    g.open = true;
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(order.size(), 3);
    if (order.size() == 3)
        CHECK(order[0] == 1 && order[1] == 2 && order[2] == 3);
    CHECK(g.entered && !pthread_equal(g.thread, pthread_self()));
    EXPECT_EQ(callback_status.load(), cudaSuccess);
    CHECK(callback_stream == s);
    EXPECT_OK(cudaStreamQuery(s));
    EXPECT_ERR(cudaStreamAddCallback(s, stream_callback, nullptr, 1), cudaErrorInvalidValue);
    EXPECT_ERR(cudaLaunchHostFunc(s, nullptr, nullptr), cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT_OK(cudaStreamDestroy(s));
}

// Work behind a pending host function waits; data moves only when the stream gets there.
static void work_queues_behind_callbacks() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    int *d, *h;
    EXPECT_OK(cudaMalloc(&d, 64));
    EXPECT_OK(cudaMallocHost(&h, 64));
    EXPECT_OK(cudaMemset(d, 0, 64));
    h[0] = 5;
    Gate g;
    cudaEvent_t e;
    EXPECT_OK(cudaEventCreate(&e));
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &g));
    EXPECT_OK(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, s));
    EXPECT_OK(cudaMemsetAsync(d + 1, 0xff, 4, s));
    EXPECT_OK(cudaEventRecord(e, s));
    EXPECT_ERR(cudaEventQuery(e), cudaErrorNotReady);
    float ms;
    EXPECT_ERR(cudaEventElapsedTime(&ms, e, e), cudaErrorNotReady);
    int probe[2] = {-1, -1};
    cudaStream_t other;
    EXPECT_OK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    EXPECT_OK(cudaMemcpyAsync(probe, d, 8, cudaMemcpyDeviceToHost, other)); // not behind the gate
    EXPECT_EQ(probe[0], 0);
    EXPECT_EQ(probe[1], 0);
    open_later(&g, 20);
    EXPECT_OK(cudaEventSynchronize(e));
    EXPECT_OK(cudaEventQuery(e));
    EXPECT_OK(cudaMemcpy(probe, d, 8, cudaMemcpyDeviceToHost));
    EXPECT_EQ(probe[0], 5);
    EXPECT_EQ(probe[1], -1);
    EXPECT_OK(cudaStreamDestroy(other));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaEventDestroy(e));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
}

// The legacy default stream waits for blocking streams and blocks them; non-blocking streams and
// other threads' per-thread streams are independent of it.
static void legacy_stream_synchronization() {
    cudaStream_t blocking, nonblocking;
    EXPECT_OK(cudaStreamCreate(&blocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    int *d;
    int *h;
    EXPECT_OK(cudaMalloc(&d, 64));
    EXPECT_OK(cudaMallocHost(&h, 64));
    EXPECT_OK(cudaMemset(d, 0, 64));
    h[0] = 11;

    Gate g1;
    EXPECT_OK(cudaLaunchHostFunc(blocking, gate_fn, &g1));
    EXPECT_OK(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, 0)); // legacy: waits
    EXPECT_ERR(cudaStreamQuery(0), cudaErrorNotReady);
    int probe = -1;
    EXPECT_OK(cudaMemcpyAsync(&probe, d, 4, cudaMemcpyDeviceToHost, nonblocking));
    EXPECT_EQ(probe, 0); // the legacy copy has not run
    EXPECT_OK(cudaStreamQuery(nonblocking));
    g1.open = true;
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_OK(cudaMemcpyAsync(&probe, d, 4, cudaMemcpyDeviceToHost, nonblocking));
    EXPECT_EQ(probe, 11);

    Gate g2; // now the other way round: the legacy stream is pending
    h[0] = 22;
    EXPECT_OK(cudaLaunchHostFunc(0, gate_fn, &g2));
    EXPECT_OK(cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, blocking));
    EXPECT_ERR(cudaStreamQuery(blocking), cudaErrorNotReady);
    EXPECT_OK(cudaMemcpyAsync(&probe, d, 4, cudaMemcpyDeviceToHost, nonblocking));
    EXPECT_EQ(probe, 11);
    EXPECT_OK(cudaStreamQuery(nonblocking));
    open_later(&g2, 10);
    EXPECT_OK(cudaStreamSynchronize(blocking));
    EXPECT_OK(cudaMemcpyAsync(&probe, d, 4, cudaMemcpyDeviceToHost, nonblocking));
    EXPECT_EQ(probe, 22);

    Gate g3; // the per-thread default stream is blocking too
    EXPECT_OK(cudaLaunchHostFunc(cudaStreamLegacy, gate_fn, &g3));
    EXPECT_OK(cudaMemsetAsync(d, 0, 4, cudaStreamPerThread));
    EXPECT_ERR(cudaStreamQuery(cudaStreamPerThread), cudaErrorNotReady);
    std::thread other([&] { // another thread's per-thread stream: pending too
        EXPECT_OK(cudaMemsetAsync(d + 2, 0, 4, cudaStreamPerThread));
        EXPECT_ERR(cudaStreamQuery(cudaStreamPerThread), cudaErrorNotReady);
    });
    other.join();
    g3.open = true;
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaStreamQuery(cudaStreamPerThread));
    EXPECT_OK(cudaStreamQuery(0));

    Gate g4; // per-thread streams of two threads do not wait for each other
    EXPECT_OK(cudaLaunchHostFunc(cudaStreamPerThread, gate_fn, &g4));
    std::thread third([&] {
        EXPECT_OK(cudaMemsetAsync(d, 0, 4, cudaStreamPerThread));
        EXPECT_OK(cudaStreamQuery(cudaStreamPerThread));
    });
    third.join();
    g4.open = true;
    EXPECT_OK(cudaDeviceSynchronize());

    EXPECT_OK(cudaStreamDestroy(blocking));
    EXPECT_OK(cudaStreamDestroy(nonblocking));
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));
}

static void events_across_streams() {
    cudaStream_t a, b;
    EXPECT_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    EXPECT_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t e, never;
    EXPECT_OK(cudaEventCreate(&e));
    EXPECT_OK(cudaEventCreate(&never));
    EXPECT_OK(cudaStreamWaitEvent(b, never, 0)); // never recorded: nothing to wait for
    EXPECT_OK(cudaStreamQuery(b));
    Gate g;
    EXPECT_OK(cudaLaunchHostFunc(a, gate_fn, &g));
    EXPECT_OK(cudaEventRecord(e, a));
    EXPECT_OK(cudaStreamWaitEvent(b, e, 0));
    EXPECT_OK(cudaEventRecord(e, b)); // re-recording does not change what b already waits for
    EXPECT_ERR(cudaStreamQuery(b), cudaErrorNotReady);
    int *d;
    EXPECT_OK(cudaMalloc(&d, 4));
    EXPECT_OK(cudaMemsetAsync(d, 1, 4, b));
    EXPECT_ERR(cudaStreamWaitEvent(b, e, 7), cudaErrorInvalidValue);
    cudaGetLastError();
    g.open = true;
    EXPECT_OK(cudaStreamSynchronize(b));
    EXPECT_OK(cudaStreamQuery(a));
    int v = 0;
    EXPECT_OK(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(v, 0x01010101);

    cudaEvent_t t0, t1, untimed;
    EXPECT_OK(cudaEventCreate(&t0));
    EXPECT_OK(cudaEventCreate(&t1));
    EXPECT_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    float ms = -1;
    EXPECT_ERR(cudaEventElapsedTime(&ms, t0, t1), cudaErrorInvalidResourceHandle); // unrecorded
    EXPECT_OK(cudaEventRecord(t0, a));
    EXPECT_ERR(cudaEventElapsedTime(&ms, t0, t1), cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaEventRecord(t1, a));
    EXPECT_OK(cudaEventRecord(untimed, a));
    EXPECT_OK(cudaEventElapsedTime(&ms, t0, t1));
    CHECK(ms >= 0);
    EXPECT_ERR(cudaEventElapsedTime(&ms, t0, untimed), cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaEventElapsedTime(nullptr, t0, t1), cudaErrorInvalidValue);
    EXPECT_OK(cudaEventRecordWithFlags(t1, a, cudaEventRecordExternal));
    EXPECT_ERR(cudaEventRecordWithFlags(t1, a, 4), cudaErrorInvalidValue);
    cudaGetLastError();
    for (cudaEvent_t x : {e, never, t0, t1, untimed})
        EXPECT_OK(cudaEventDestroy(x));
    EXPECT_OK(cudaStreamDestroy(a));
    EXPECT_OK(cudaStreamDestroy(b));
    EXPECT_OK(cudaFree(d));
}

// Asynchronous copies from pageable memory snapshot the source; into pageable memory they wait.
static void pageable_copies() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    int *d;
    EXPECT_OK(cudaMalloc(&d, 16));
    int src[4] = {1, 2, 3, 4}, dst[4] = {0, 0, 0, 0};
    Gate g;
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &g));
    EXPECT_OK(cudaMemcpyAsync(d, src, sizeof src, cudaMemcpyHostToDevice, s));
    src[0] = 100; // after the call: the copy must not see this
    open_later(&g, 30);
    EXPECT_OK(cudaMemcpyAsync(dst, d, sizeof dst, cudaMemcpyDeviceToHost, s)); // waits
    CHECK(g.open);
    EXPECT_EQ(dst[0], 1);
    EXPECT_EQ(dst[3], 4);
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d));
}

// Destroyed streams finish their work; cudaFreeAsync frees in stream order.
static void destroy_and_free_in_order() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    int *d;
    EXPECT_OK(cudaMallocAsync(&d, 256, s));
    Gate g;
    order.clear();
    EXPECT_OK(cudaLaunchHostFunc(s, gate_fn, &g));
    EXPECT_OK(cudaFreeAsync(d, s));
    EXPECT_OK(cudaLaunchHostFunc(s, append, (void *)9));
    EXPECT_OK(cudaStreamDestroy(s));
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, d));
    EXPECT_EQ(a.type, cudaMemoryTypeDevice); // not freed yet
    g.open = true;
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_EQ(order.size(), 1);
    EXPECT_OK(cudaPointerGetAttributes(&a, d));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
    EXPECT_ERR(cudaFree(d), cudaErrorInvalidValue);
    cudaGetLastError();
}

static cudaError_t nested_result = cudaSuccess;
static void CUDART_CB calls_cuda(void *) {
    nested_result = cudaDeviceSynchronize(); // not allowed in a callback: must not deadlock
}

static void callbacks_must_not_wait() {
    EXPECT_OK(cudaLaunchHostFunc(0, calls_cuda, nullptr));
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_EQ(nested_result, cudaErrorNotPermitted);
}

// Many threads, each with its own stream, copying and launching at once.
static void concurrency() {
    const int threads = 8, rounds = 200;
    std::atomic<int> bad{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            cudaStream_t s;
            int *d;
            int *h;
            if (cudaStreamCreate(&s) || cudaMalloc(&d, 1024) || cudaMallocHost(&h, 1024)) {
                bad++;
                return;
            }
            cudaEvent_t e;
            cudaEventCreate(&e);
            for (int r = 0; r < rounds; r++) {
                h[0] = t * 1000 + r;
                cudaMemcpyAsync(d, h, 4, cudaMemcpyHostToDevice, s);
                if (r % 10 == 0)
                    cudaLaunchHostFunc(s, append, nullptr) == cudaSuccess ? (void)0 : (void)bad++;
                cudaMemsetAsync(d + 1, 0, 4, s);
                cudaEventRecord(e, s);
                h[1] = -1;
                cudaMemcpyAsync(h + 1, d, 4, cudaMemcpyDeviceToHost, s);
                cudaStreamSynchronize(s);
                if (h[1] != t * 1000 + r)
                    bad++;
            }
            cudaEventDestroy(e);
            cudaStreamDestroy(s);
            cudaFree(d);
            cudaFreeHost(h);
        });
    }
    for (auto &t : pool)
        t.join();
    EXPECT_EQ(bad.load(), 0);
}

// A forked child gets a working simulator, worker thread included.
static void fork_child() {
    int *d;
    EXPECT_OK(cudaMalloc(&d, 4));
    pid_t pid = fork();
    if (pid == 0) {
        Gate g;
        g.open = true;
        int v = 3, r = 0;
        bool ok = cudaLaunchHostFunc(0, gate_fn, &g) == cudaSuccess &&
                  cudaMemcpy(d, &v, 4, cudaMemcpyHostToDevice) == cudaSuccess &&
                  cudaMemcpy(&r, d, 4, cudaMemcpyDeviceToHost) == cudaSuccess &&
                  cudaDeviceSynchronize() == cudaSuccess && r == 3 && g.entered;
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_OK(cudaFree(d));
}

int main() {
    handles();
    callbacks_run_in_order_on_another_thread();
    work_queues_behind_callbacks();
    legacy_stream_synchronization();
    events_across_streams();
    pageable_copies();
    destroy_and_free_in_order();
    callbacks_must_not_wait();
    concurrency();
    fork_child();
    return check_report("sim_streams");
}
