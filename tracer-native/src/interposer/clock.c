/* TSC-derived CLOCK_MONOTONIC timestamps (see clock.h). */
#include "clock.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__thread at_anchor at_thread_anchor __attribute__((tls_model("initial-exec")));
double at_ns_per_tick;

static at_anchor first;            /* the process's first anchor: the baseline for the ratio */
static _Atomic uint64_t ratio_bits; /* refined ns_per_tick, as the bits of a double */

static int kernel_uses_tsc(void) {
    char buf[32] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n >= 3 && strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == '\0');
}

/* A (tsc, ns) pair read as close together as possible: the tightest of a few tries. */
static at_anchor sample(void) {
    at_anchor best = {0, 0};
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t t0 = __rdtsc();
        uint64_t ns = at_mono_ns();
        uint64_t t1 = __rdtsc();
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            best.tsc = t0 + (t1 - t0) / 2;
            best.ns = ns;
        }
    }
    return best;
}

void at_clock_init(void) {
    const char *mode = getenv("APPTRACE_CLOCK");
    if ((mode != NULL && strcmp(mode, "monotonic") == 0) || !kernel_uses_tsc()) return;
    first = sample();
    /* Calibrate over 2 ms; the ratio is refined later, as the baseline grows. */
    at_anchor b;
    do {
        b = sample();
    } while (b.ns - first.ns < 2000000);
    double ratio = (double)(b.ns - first.ns) / (double)(b.tsc - first.tsc);
    if (!(ratio > 0.01 && ratio < 100)) return; /* nonsense: keep clock_gettime */
    at_ns_per_tick = ratio;
    uint64_t bits;
    memcpy(&bits, &ratio, sizeof bits);
    atomic_store(&ratio_bits, bits);
}

void at_clock_anchor(void) {
    if (at_ns_per_tick == 0) return;
    at_anchor a = sample();
    if (a.ns - first.ns > 100000000) { /* over 100 ms of baseline: a better ratio */
        double ratio = (double)(a.ns - first.ns) / (double)(a.tsc - first.tsc);
        uint64_t bits;
        memcpy(&bits, &ratio, sizeof bits);
        atomic_store(&ratio_bits, bits);
    }
    uint64_t bits = atomic_load(&ratio_bits);
    memcpy(&at_ns_per_tick, &bits, sizeof bits);
    at_thread_anchor = a;
}

const char *at_clock_source(void) {
    return at_ns_per_tick != 0 ? "tsc" : "clock_gettime";
}
