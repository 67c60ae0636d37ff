/* The devices the traced process can use, as the CUDA runtime describes them (DeviceInfo): asked
 * once per process, on the thread of the program's first runtime call, before that call goes on
 * to the runtime. docs/CAPTURE.md ("The devices") gives the harm analysis; in short:
 *
 * - not before the first call: the program may still set CUDA_VISIBLE_DEVICES, or fork, and a
 *   runtime started from a constructor would change both; at its first call the program starts
 *   the runtime itself. Not at the two calls that do not start it (cudaRuntimeGetVersion,
 *   cudaCreateChannelDesc) nor at the registration plumbing (__cudaRegister*, ...): there it
 *   waits for the next call.
 * - no context, no change of device: only cudaGetDeviceCount, cudaGetDeviceProperties and
 *   cudaDeviceGetAttribute, which read properties; never cudaSetDevice, cudaFree(0),
 *   cudaMemGetInfo.
 * - the program's cudaGetLastError sees what it would untraced: the query runs only when no
 *   error is pending on the thread (cudaPeekAtLastError), and clears every error it causes, so
 *   the thread's last error is cudaSuccess again, as it was. When an error is pending because the
 *   runtime could not start (no driver, no device), that error is the record and nothing is
 *   called; when the program's own error is pending, the query waits for a later call.
 * - no recursion: it runs inside the hook's recursion guard, so the runtime's calls back into
 *   hooked names pass through unrecorded.
 * - cudaDeviceProp's layout changed between CUDA versions: only its first fields (name, total
 *   memory), the same since CUDA 10, are read, from a buffer larger than any version's struct;
 *   the rest comes from cudaDeviceGetAttribute, whose numbers never change. */
#include "hook.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEVICES 64
/* Calls with the program's own error pending after which the query is given up. */
#define MAX_ATTEMPTS 64

enum { NOT_YET, QUERYING, DONE };
static _Atomic int state = NOT_YET;
static int attempts;
_Atomic bool at_devices_asked;

/* What was recorded, kept for a forked child's trace (sent again without calling CUDA). */
static enc_device_info infos[MAX_DEVICES];
static char names[MAX_DEVICES][256];
static char buses[MAX_DEVICES][16];
static int ninfos;

_Static_assert(APPTRACE_API___cudaUnregisterFatBinary - APPTRACE_API___cudaGetKernel == 14,
               "the __cuda* plumbing is numbered 2 to 16 in api.proto");

/* Whether a call of `api` is one the program makes to the runtime, and starts it. */
static bool starts_runtime(int api) {
    switch (api) {
    case APPTRACE_API_API_UNSPECIFIED: /* host allocations */
    case APPTRACE_API_API_OTHER:
    case APPTRACE_API_cudaRuntimeGetVersion: /* answered without starting the runtime */
    case APPTRACE_API_cudaCreateChannelDesc:
        return false;
    case APPTRACE_API___cudaGetKernel: /* a launch: the program's own use of the runtime */
    case APPTRACE_API___cudaLaunchKernel:
    case APPTRACE_API___cudaLaunchKernel_ptsz:
        return true;
    default:
        return api < APPTRACE_API___cudaGetKernel || api > APPTRACE_API___cudaUnregisterFatBinary;
    }
}

/* Errors that mean the runtime could not start: every later call fails with them, and
 * cudaGetLastError cannot clear them. */
static bool startup_failure(cudaError_t r) {
    switch (r) {
    case cudaErrorInitializationError:
    case cudaErrorStubLibrary:
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorNoDevice:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return true;
    default:
        return false;
    }
}

static void record(const enc_device_info *m) {
    at_event e;
    if (at_begin_record(&e, at_now_ns())) {
        enc_device_info_body(&e.w, m);
        at_commit(&e);
    }
}

typedef struct {
    __typeof__(&cudaGetDeviceCount) count;
    __typeof__(&cudaGetDeviceProperties) properties;
    __typeof__(&cudaDeviceGetAttribute) attribute;
    __typeof__(&cudaPeekAtLastError) peek;
    __typeof__(&cudaGetLastError) clear;
} runtime;

/* An attribute, or 0 when the runtime cannot tell (an attribute an older runtime lacks). */
static uint32_t attribute(const runtime *rt, enum cudaDeviceAttr a, int device) {
    int v = 0;
    if (rt->attribute(&v, a, device) != cudaSuccess) {
        rt->clear();
        return 0;
    }
    return v > 0 ? (uint32_t)v : 0;
}

static void describe(const runtime *rt, int i, enc_device_info *m) {
    /* larger than cudaDeviceProp of any CUDA version: the runtime may be older or newer */
    static union {
        struct cudaDeviceProp p;
        char room[16384];
    } props;
    memset(m, 0, sizeof *m);
    m->device = i;
    m->source = PB_DeviceInfoSource_CUDA_RUNTIME;
    memset(&props, 0, sizeof props);
    cudaError_t r = rt->properties(&props.p, i);
    if (r == cudaSuccess) {
        snprintf(names[i], sizeof names[i], "%.*s", (int)sizeof props.p.name, props.p.name);
        m->name = names[i];
        m->total_memory_bytes = props.p.totalGlobalMem;
    } else {
        rt->clear();
        m->query_error = (int32_t)r;
    }
    m->compute_major = attribute(rt, cudaDevAttrComputeCapabilityMajor, i);
    m->compute_minor = attribute(rt, cudaDevAttrComputeCapabilityMinor, i);
    m->multiprocessor_count = attribute(rt, cudaDevAttrMultiProcessorCount, i);
    m->clock_rate_khz = attribute(rt, cudaDevAttrClockRate, i);
    m->memory_clock_rate_khz = attribute(rt, cudaDevAttrMemoryClockRate, i);
    m->memory_bus_width_bits = attribute(rt, cudaDevAttrGlobalMemoryBusWidth, i);
    m->l2_cache_bytes = attribute(rt, cudaDevAttrL2CacheSize, i);
    m->max_threads_per_multiprocessor = attribute(rt, cudaDevAttrMaxThreadsPerMultiProcessor, i);
    m->max_blocks_per_multiprocessor = attribute(rt, cudaDevAttrMaxBlocksPerMultiprocessor, i);
    m->registers_per_multiprocessor = attribute(rt, cudaDevAttrMaxRegistersPerMultiprocessor, i);
    m->shared_mem_per_multiprocessor_bytes = attribute(rt, cudaDevAttrMaxSharedMemoryPerMultiprocessor, i);
    m->max_threads_per_block = attribute(rt, cudaDevAttrMaxThreadsPerBlock, i);
    m->registers_per_block = attribute(rt, cudaDevAttrMaxRegistersPerBlock, i);
    m->shared_mem_per_block_bytes = attribute(rt, cudaDevAttrMaxSharedMemoryPerBlock, i);
    m->shared_mem_per_block_optin_bytes = attribute(rt, cudaDevAttrMaxSharedMemoryPerBlockOptin, i);
    m->warp_size = attribute(rt, cudaDevAttrWarpSize, i);
    uint32_t bus = attribute(rt, cudaDevAttrPciBusId, i);
    if (bus != 0) {
        snprintf(buses[i], sizeof buses[i], "%04x:%02x:%02x.0", attribute(rt, cudaDevAttrPciDomainId, i) & 0xffff,
                 bus & 0xff, attribute(rt, cudaDevAttrPciDeviceId, i) & 0x1f);
        m->pci_bus_id = buses[i];
    }
}

/* Asks the runtime; DONE when something was learned or there is nothing to learn, NOT_YET to try
 * again at a later call. */
static int query(void) {
    runtime rt = {
        .count = (__typeof__(rt.count))at_resolve("cudaGetDeviceCount"),
        .properties = (__typeof__(rt.properties))at_resolve("cudaGetDeviceProperties"),
        .attribute = (__typeof__(rt.attribute))at_resolve("cudaDeviceGetAttribute"),
        .peek = (__typeof__(rt.peek))at_resolve("cudaPeekAtLastError"),
        .clear = (__typeof__(rt.clear))at_resolve("cudaGetLastError"),
    };
    if (!rt.count || !rt.properties || !rt.attribute || !rt.peek || !rt.clear) {
        at_log("devices not recorded: the runtime lacks cudaGetDeviceCount, cudaGetDeviceProperties, "
               "cudaDeviceGetAttribute or the last-error calls");
        return DONE;
    }
    cudaError_t pending = rt.peek();
    if (pending != cudaSuccess) {
        if (startup_failure(pending)) {
            enc_device_info m = {.device = -1, .source = PB_DeviceInfoSource_CUDA_RUNTIME,
                                 .query_error = (int32_t)pending};
            infos[0] = m;
            ninfos = 1;
            record(&m);
            return DONE;
        }
        return ++attempts < MAX_ATTEMPTS ? NOT_YET : DONE;
    }
    int n = 0;
    cudaError_t r = rt.count(&n);
    if (r != cudaSuccess) {
        rt.clear();
        enc_device_info m = {.device = -1, .source = PB_DeviceInfoSource_CUDA_RUNTIME, .query_error = (int32_t)r};
        infos[0] = m;
        ninfos = 1;
        record(&m);
        return DONE;
    }
    if (n > MAX_DEVICES) n = MAX_DEVICES;
    for (int i = 0; i < n; i++) describe(&rt, i, &infos[i]);
    rt.clear(); /* nothing was pending before: none is after */
    ninfos = n;
    for (int i = 0; i < n; i++) record(&infos[i]);
    return DONE;
}

void at_devices_first_call(int api) {
    if (!starts_runtime(api)) return;
    int expected = NOT_YET;
    /* one thread asks; a call on another thread meanwhile goes on without waiting */
    if (!atomic_compare_exchange_strong(&state, &expected, QUERYING)) return;
    int next = query();
    atomic_store(&state, next);
    if (next == DONE) atomic_store(&at_devices_asked, true);
}

void at_devices_after_fork_child(void) {
    if (atomic_load(&state) == QUERYING) {
        /* the asking thread is not in the child: the child asks at its own next call */
        ninfos = 0;
        atomic_store(&state, NOT_YET);
        return;
    }
    if (atomic_load(&state) != DONE) return;
    for (int i = 0; i < ninfos; i++) record(&infos[i]);
}
