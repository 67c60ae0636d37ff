/* The CUPTI path: GPU start and end times, copy memory kinds and correlation ids, from CUPTI's
 * activity API. It runs only where a CUDA driver is present: libcuda.so.1 and libcupti are
 * loaded with dlopen, nothing links against them, and when either is missing (every machine
 * apptrace is developed on) the path is off and says why in ProcessStart.cupti_status.
 *
 * THIS FILE HAS NEVER RUN ON A GPU. The record conversion it relies on (cupti_convert.c) is
 * unit-tested with synthetic records; the calls below follow the CUPTI documentation of CUDA 13.
 */
#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api_ids.h"
#include "cupti_convert.h"
#include "init.h"
#include "record.h"

#define CUPTI_BUFFER_BYTES (8u << 20)

static struct {
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*flush_period)(uint32_t);
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
    CUptiResult (*get_timestamp)(uint64_t *);
    CUptiResult (*timestamp_callback)(CUpti_TimestampCallbackFunc);
} cupti;

static char status[160] = "off";
static CUpti_SubscriberHandle subscriber;

static uint64_t monotonic_timestamp(void) {
    return at_now_ns();
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    void *m = mmap(NULL, CUPTI_BUFFER_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *buffer = m == MAP_FAILED ? NULL : m;
    *size = m == MAP_FAILED ? 0 : CUPTI_BUFFER_BYTES;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    at_tls.depth++;
    CUpti_Activity *record = NULL;
    while (cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
        enc_gpu g;
        if (!cupti_convert(record, &g)) continue;
        at_event e;
        if (at_begin_record(&e, g.end_ns)) {
            enc_gpu_body(&e.w, &g);
            at_commit(&e);
        }
    }
    at_tls.depth--;
    munmap(buffer, CUPTI_BUFFER_BYTES);
}

/* Runtime API entry: remember the correlation id, which the hook then writes into its Event. */
static void CUPTIAPI api_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                  const void *data) {
    (void)user;
    (void)id;
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite == CUPTI_API_ENTER) at_tls.correlation = cb->correlationId;
}

static void *load_cupti(void) {
    const char *names[] = {"libcupti.so.13", "libcupti.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
        if (h) return h;
    }
    const char *home = getenv("CUDA_HOME");
    char path[512];
    const char *dirs[] = {"lib64", "extras/CUPTI/lib64"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s/libcupti.so", home ? home : "/usr/local/cuda", dirs[i]);
        void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}

static bool fail(const char *what, CUptiResult r) {
    snprintf(status, sizeof status, "off: %s failed (CUPTI error %d)", what, (int)r);
    return false;
}

static bool start(void *lib) {
#define SYM(field, name) cupti.field = (__typeof__(cupti.field))dlsym(lib, name)
    SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    SYM(enable, "cuptiActivityEnable");
    SYM(next_record, "cuptiActivityGetNextRecord");
    SYM(flush_all, "cuptiActivityFlushAll");
    SYM(flush_period, "cuptiActivityFlushPeriod");
    SYM(subscribe, "cuptiSubscribe");
    SYM(enable_domain, "cuptiEnableDomain");
    SYM(get_timestamp, "cuptiGetTimestamp");
    SYM(timestamp_callback, "cuptiActivityRegisterTimestampCallback");
#undef SYM
    if (!cupti.register_callbacks || !cupti.enable || !cupti.next_record || !cupti.flush_all ||
        !cupti.subscribe || !cupti.enable_domain) {
        snprintf(status, sizeof status, "off: libcupti lacks the activity API");
        return false;
    }
    CUptiResult r;
    /* GPU timestamps in the process's CLOCK_MONOTONIC, like every other apptrace timestamp. */
    if (cupti.timestamp_callback) cupti.timestamp_callback(monotonic_timestamp);
    if ((r = cupti.register_callbacks(buffer_requested, buffer_completed)) != CUPTI_SUCCESS)
        return fail("cuptiActivityRegisterCallbacks", r);
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
                                        CUPTI_ACTIVITY_KIND_MEMSET,
                                        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if ((r = cupti.enable(kinds[i])) != CUPTI_SUCCESS) return fail("cuptiActivityEnable", r);
    }
    if ((r = cupti.subscribe(&subscriber, api_callback, NULL)) != CUPTI_SUCCESS)
        return fail("cuptiSubscribe", r);
    if ((r = cupti.enable_domain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API)) != CUPTI_SUCCESS)
        return fail("cuptiEnableDomain", r);
    if (cupti.flush_period) cupti.flush_period(100);
    snprintf(status, sizeof status, "on");
    return true;
}

void at_cupti_init(void) {
    at_cfg.cupti_status = status;
    const char *off = getenv("APPTRACE_CUPTI");
    if (at_cfg.simulated) {
        snprintf(status, sizeof status, "off: simulated CUDA runtime (no GPU times)");
        return;
    }
    if (off && strcmp(off, "0") == 0) {
        snprintf(status, sizeof status, "off: APPTRACE_CUPTI=0");
        return;
    }
    if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) == NULL) {
        snprintf(status, sizeof status, "off: no CUDA driver (libcuda.so.1 not found)");
        return;
    }
    void *lib = load_cupti();
    if (lib == NULL) {
        snprintf(status, sizeof status, "off: libcupti not found (set CUDA_HOME)");
        return;
    }
    at_cfg.cupti_enabled = start(lib);
}

void at_cupti_after_start(void) {
    if (!at_cfg.cupti_enabled || cupti.get_timestamp == NULL) return;
    uint64_t gpu = 0;
    uint64_t mono = at_now_ns();
    if (cupti.get_timestamp(&gpu) != CUPTI_SUCCESS) return;
    at_event e;
    if (at_begin_record(&e, mono)) {
        enc_clock_sync_body(&e.w, gpu, mono, "cuptiGetTimestamp");
        at_commit(&e);
    }
}

void at_cupti_flush(void) {
    if (at_cfg.cupti_enabled) cupti.flush_all(1);
}

void at_cupti_flush_if_due(void) {
    static _Atomic uint64_t last_ns;
    if (!at_cfg.cupti_enabled) return;
    uint64_t now = at_now_ns();
    if (now - atomic_load(&last_ns) < 100ull * 1000 * 1000) return;
    atomic_store(&last_ns, now);
    cupti.flush_all(0);
}
