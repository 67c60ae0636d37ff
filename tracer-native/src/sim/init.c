/* Lazy initialization, the locks, the host clock and fork safety.
 *
 * Nothing happens at load time: constructors of the program (and the interposer in front of this
 * library) may call in before main, so the configuration is read on the first call that needs
 * it. A bad configuration is reported once and then fails every call with
 * cudaErrorInitializationError rather than letting the program run on guessed settings. */
#include "sim.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

pthread_mutex_t sim_reg_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t sim_sched_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t sim_mem_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static _Atomic int init_status = -1; /* -1 until initialized, then a cudaError_t */
static uint64_t epoch_ns;
/* How far the host clock has been moved forward by waits for the device (not in real time). */
static _Atomic uint64_t host_skip_ns;
/* Host time the simulator itself spent moving bytes and reading cubins: not the program's. */
static _Atomic uint64_t overhead_ns;
static _Atomic uint64_t last_now_ns;

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The host clock the simulation runs on: real time since start, plus the waits for the device
 * it skipped (sim_host_catch_up), minus the time the simulator spent doing what a real device
 * would do on its own (copying bytes, see sim_overhead_stop). Never goes backwards. */
static uint64_t host_clock(uint64_t skip) {
    uint64_t raw = monotonic_ns() - epoch_ns + skip;
    uint64_t over = atomic_load_explicit(&overhead_ns, memory_order_relaxed);
    uint64_t now = raw > over ? raw - over : 0;
    uint64_t last = atomic_load_explicit(&last_now_ns, memory_order_relaxed);
    while (now > last &&
           !atomic_compare_exchange_weak_explicit(&last_now_ns, &last, now, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    return now > last ? now : last;
}

uint64_t sim_now_ns(void) {
    return host_clock(atomic_load_explicit(&host_skip_ns, memory_order_relaxed));
}

/* Brackets nest (a graph launch moves bytes of large copies inside its own): the outermost
 * one counts. */
static __thread int overhead_depth;

uint64_t sim_overhead_start(void) {
    return overhead_depth++ == 0 ? monotonic_ns() : 0;
}

void sim_overhead_stop(uint64_t start) {
    if (--overhead_depth == 0)
        atomic_fetch_add_explicit(&overhead_ns, monotonic_ns() - start, memory_order_relaxed);
}

/* Without APPTRACE_SIM_REALTIME a wait for the device returns at once, yet the host has (in the
 * simulation) waited until the device got there: its clock jumps forward, so that work it
 * submits afterwards starts after what it waited for, as it would on a real device. */
void sim_host_catch_up(uint64_t t_ns) {
    if (sim_cfg.realtime) {
        sim_sleep_until(t_ns);
        return;
    }
    uint64_t skip = atomic_load(&host_skip_ns);
    for (;;) {
        uint64_t now = host_clock(skip);
        if (now >= t_ns || atomic_compare_exchange_weak(&host_skip_ns, &skip, skip + (t_ns - now)))
            return;
    }
}

void sim_sleep_until(uint64_t t_ns) {
    for (;;) {
        uint64_t now = sim_now_ns();
        if (now >= t_ns)
            return;
        uint64_t d = t_ns - now;
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
        if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
            return;
    }
}

static void atfork_prepare(void) {
    pthread_mutex_lock(&sim_reg_lock);
    pthread_mutex_lock(&sim_sched_lock);
    pthread_mutex_lock(&sim_mem_lock);
}

static void atfork_parent(void) {
    pthread_mutex_unlock(&sim_mem_lock);
    pthread_mutex_unlock(&sim_sched_lock);
    pthread_mutex_unlock(&sim_reg_lock);
}

/* The child has only the forking thread: the worker is gone, and is started again when the child
 * queues work. The locks were taken by this thread in prepare, so they can be released. */
static void atfork_child(void) {
    sim_sched_atfork_child();
    atfork_parent();
}

static void init_runtime(void) {
    epoch_ns = monotonic_ns();
    cudaError_t status = sim_config_load() == 0 ? cudaSuccess : cudaErrorInitializationError;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    atomic_store_explicit(&init_status, (int)status, memory_order_release);
}

cudaError_t sim_init(void) {
    int s = atomic_load_explicit(&init_status, memory_order_acquire);
    if (__builtin_expect(s >= 0, 1))
        return (cudaError_t)s;
    pthread_once(&init_once, init_runtime);
    return (cudaError_t)atomic_load_explicit(&init_status, memory_order_acquire);
}
