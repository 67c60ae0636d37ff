/* Timestamps in the traced process's CLOCK_MONOTONIC, cheaply.
 *
 * clock_gettime costs ~30 ns in some virtual machines and every event takes two. Where the kernel
 * itself keeps time with an invariant TSC (its clocksource is "tsc"), a thread reads the TSC and
 * converts: ns = anchor_ns + (tsc - anchor_tsc) * ns_per_tick. Each thread re-anchors with a real
 * clock_gettime whenever it sends its buffer (at least every 10 ms while it makes calls), and
 * ns_per_tick is refined from the process's first anchor, so the derived time never drifts more
 * than ~1 us from CLOCK_MONOTONIC. Elsewhere, or with APPTRACE_CLOCK=monotonic, every timestamp
 * is a clock_gettime. */
#ifndef APPTRACE_CLOCK_H
#define APPTRACE_CLOCK_H

#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

typedef struct {
    uint64_t tsc;
    uint64_t ns;
} at_anchor;

extern __thread at_anchor at_thread_anchor __attribute__((tls_model("initial-exec")));
/* 0 when timestamps come from clock_gettime. */
extern double at_ns_per_tick;

static inline uint64_t at_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t at_now_ns(void) {
    if (__builtin_expect(at_thread_anchor.tsc != 0, 1)) {
        int64_t ticks = (int64_t)(__rdtsc() - at_thread_anchor.tsc);
        return at_thread_anchor.ns + (uint64_t)(int64_t)((double)ticks * at_ns_per_tick);
    }
    return at_mono_ns();
}

/* The calling thread's CPU time, ns. A system call on most kernels (no vDSO path): microseconds on
 * a loaded virtual machine, so the recorder reads it only around long gaps and long calls. */
static inline uint64_t at_thread_cpu_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return ns == 0 ? 1 : ns; /* 0 means "not read" in the trace */
}

/* Decides whether the TSC can be used and calibrates it (at start-up). */
void at_clock_init(void);
/* Re-anchors this thread's conversion with a real clock_gettime. */
void at_clock_anchor(void);
/* "tsc" or "clock_gettime", for ProcessStart. */
const char *at_clock_source(void);

#endif
