/* Configuration: the bundled device profile, the timing model and APPTRACE_SIM_CONFIG.
 *
 * The config file is plain text: `key = value` lines, `#` comments, a top-level `devices = N` and
 * `peer_access = all|none|0-1,2-3`, sections `[device N]` (or `[device *]` for every device) for
 * device properties and `[timing]` for the timing model. docs/SIMULATED-DEVICE.md lists the keys.
 * The file is read in two passes: the first checks the syntax and the key names, the second
 * applies the values once the device count is known, so `[device *]` applies before `[device N]`
 * wherever they appear. Any problem prints one line naming the file, the line and the key. */
#include "sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sim_config sim_cfg;

#define MSG_PREFIX "apptrace simulated CUDA runtime: "
#define MSG_SUFFIX "; every CUDA call will fail with cudaErrorInitializationError"

enum vtype { T_INT, T_UINT, T_SIZE, T_DOUBLE, T_STR };

typedef struct {
    const char *key;
    enum vtype type;
    size_t offset; /* in sim_device_config */
    double min, max;
} device_key;

#define P(key, type, field, lo, hi) {key, type, offsetof(sim_device_config, prop.field), lo, hi}
#define C(key, type, field, lo, hi) {key, type, offsetof(sim_device_config, field), lo, hi}
#define GiB 1073741824.0
static const device_key device_keys[] = {
    P("name", T_STR, name, 0, 0),
    P("total_global_mem", T_SIZE, totalGlobalMem, 1048576.0, 1024 * GiB),
    P("shared_mem_per_block", T_SIZE, sharedMemPerBlock, 0, GiB),
    P("shared_mem_per_block_optin", T_SIZE, sharedMemPerBlockOptin, 0, GiB),
    P("shared_mem_per_multiprocessor", T_SIZE, sharedMemPerMultiprocessor, 0, GiB),
    P("reserved_shared_mem_per_block", T_SIZE, reservedSharedMemPerBlock, 0, GiB),
    P("regs_per_block", T_INT, regsPerBlock, 1, 1 << 24),
    P("regs_per_multiprocessor", T_INT, regsPerMultiprocessor, 1, 1 << 24),
    P("warp_size", T_INT, warpSize, 1, 1024),
    P("mem_pitch", T_SIZE, memPitch, 1, 1024 * GiB),
    P("max_threads_per_block", T_INT, maxThreadsPerBlock, 1, 1 << 16),
    P("max_threads_dim_x", T_INT, maxThreadsDim[0], 1, 1 << 16),
    P("max_threads_dim_y", T_INT, maxThreadsDim[1], 1, 1 << 16),
    P("max_threads_dim_z", T_INT, maxThreadsDim[2], 1, 1 << 16),
    P("max_grid_size_x", T_INT, maxGridSize[0], 1, 2147483647.0),
    P("max_grid_size_y", T_INT, maxGridSize[1], 1, 2147483647.0),
    P("max_grid_size_z", T_INT, maxGridSize[2], 1, 2147483647.0),
    P("total_const_mem", T_SIZE, totalConstMem, 0, GiB),
    P("major", T_INT, major, 1, 99),
    P("minor", T_INT, minor, 0, 99),
    P("texture_alignment", T_SIZE, textureAlignment, 1, 1 << 20),
    P("texture_pitch_alignment", T_SIZE, texturePitchAlignment, 1, 1 << 20),
    P("multi_processor_count", T_INT, multiProcessorCount, 1, 1 << 16),
    P("max_threads_per_multiprocessor", T_INT, maxThreadsPerMultiProcessor, 1, 1 << 16),
    P("max_blocks_per_multiprocessor", T_INT, maxBlocksPerMultiProcessor, 1, 1 << 16),
    P("integrated", T_INT, integrated, 0, 1),
    P("can_map_host_memory", T_INT, canMapHostMemory, 0, 1),
    P("concurrent_kernels", T_INT, concurrentKernels, 0, 1),
    P("ecc_enabled", T_INT, ECCEnabled, 0, 1),
    P("pci_bus_id", T_INT, pciBusID, 0, 255),
    P("pci_device_id", T_INT, pciDeviceID, 0, 31),
    P("pci_domain_id", T_INT, pciDomainID, 0, 65535),
    P("async_engine_count", T_INT, asyncEngineCount, 0, 8),
    P("unified_addressing", T_INT, unifiedAddressing, 0, 1),
    P("memory_bus_width", T_INT, memoryBusWidth, 1, 1 << 20),
    P("l2_cache_size", T_INT, l2CacheSize, 0, 2147483647.0),
    P("persisting_l2_cache_max_size", T_INT, persistingL2CacheMaxSize, 0, 2147483647.0),
    P("stream_priorities_supported", T_INT, streamPrioritiesSupported, 0, 1),
    P("global_l1_cache_supported", T_INT, globalL1CacheSupported, 0, 1),
    P("local_l1_cache_supported", T_INT, localL1CacheSupported, 0, 1),
    P("managed_memory", T_INT, managedMemory, 0, 1),
    P("is_multi_gpu_board", T_INT, isMultiGpuBoard, 0, 1),
    P("multi_gpu_board_group_id", T_INT, multiGpuBoardGroupID, 0, 1 << 16),
    P("host_native_atomic_supported", T_INT, hostNativeAtomicSupported, 0, 1),
    P("pageable_memory_access", T_INT, pageableMemoryAccess, 0, 1),
    P("concurrent_managed_access", T_INT, concurrentManagedAccess, 0, 1),
    P("compute_preemption_supported", T_INT, computePreemptionSupported, 0, 1),
    P("cooperative_launch", T_INT, cooperativeLaunch, 0, 1),
    P("memory_pools_supported", T_INT, memoryPoolsSupported, 0, 1),
    P("cluster_launch", T_INT, clusterLaunch, 0, 1),
    P("gpu_pci_device_id", T_UINT, gpuPciDeviceID, 0, 4294967295.0),
    P("gpu_pci_subsystem_id", T_UINT, gpuPciSubsystemID, 0, 4294967295.0),
    C("clock_rate_khz", T_INT, clock_rate_khz, 1, 1e8),
    C("memory_clock_rate_khz", T_INT, memory_clock_rate_khz, 1, 1e8),
    C("compute_mode", T_INT, compute_mode, 0, 3),
    C("memory_bandwidth_bytes_per_s", T_DOUBLE, memory_bandwidth_bytes_per_s, 1, 1e16),
};
#undef P
#undef C

static const char *const xfer_names[SIM_XFER_KINDS] = {
    "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d", "peer", "h2h"};

/* ---- defaults ------------------------------------------------------------------------------ */

/* A100-SXM4-40GB as cudaGetDeviceProperties reports it, named so nobody mistakes it for one. */
static void default_device(int i, sim_device_config *d) {
    static const int bus[8] = {0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd};
    struct cudaDeviceProp *p = &d->prop;
    memset(d, 0, sizeof *d);
    snprintf(p->name, sizeof p->name, "apptrace simulated A100-SXM4-40GB");
    static const char uuid[8] = {'a', 'p', 'p', 't', 'r', 'a', 'c', 'e'};
    memcpy(p->uuid.bytes, uuid, sizeof uuid);
    p->uuid.bytes[8] = 's';
    p->uuid.bytes[9] = 'i';
    p->uuid.bytes[10] = 'm';
    p->uuid.bytes[15] = (char)i;
    p->totalGlobalMem = 42505273344ull; /* 40536 MiB */
    p->sharedMemPerBlock = 49152;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 8, p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 108;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072, p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768, p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000;
    p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768, p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = 8192, p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = 32768, p->maxTexture2DLayered[1] = 32768;
    p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = p->maxSurface3D[1] = p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = 32768, p->maxSurface2DLayered[1] = 32768;
    p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = i < 8 ? bus[i] : 0xc0 + (i - 8);
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = 5120;
    p->l2CacheSize = 41943040;
    p->persistingL2CacheMaxSize = 26214400;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = 167936;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->multiGpuBoardGroupID = i;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = 166912;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = 1024;
    p->hostRegisterSupported = 1;
    p->sparseCudaArraySupported = 1;
    p->hostRegisterReadOnlySupported = 1;
    p->timelineSemaphoreInteropSupported = 1;
    p->memoryPoolsSupported = 1;
    p->gpuDirectRDMAFlushWritesOptions = 1;
    p->deferredMappingCudaArraySupported = 1;
    p->deviceNumaId = -1;
    p->hostNumaId = -1;
    p->gpuPciDeviceID = 0x20B010DE;
    p->gpuPciSubsystemID = 0x134F10DE;
    d->clock_rate_khz = 1410000;
    d->memory_clock_rate_khz = 1215000;
    d->single_to_double_perf_ratio = 2;
}

/* Per-SM limits by compute capability, as cudaGetDeviceProperties reports them on such GPUs: the
 * CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications per Compute
 * Capability" (threads, blocks, registers, shared memory per SM; opt-in shared memory per block),
 * checked against the properties real traces record (Kineto deviceProperties of V100 and A100,
 * Nsight Systems TARGET_INFO_GPU of A100). A device configured with one of these capabilities gets
 * them unless its section sets them; any other capability keeps the bundled A100 figures. */
static const struct cc_limits {
    int major, minor;
    int threads_per_sm, blocks_per_sm, regs_per_sm;
    size_t smem_per_sm, smem_per_block_optin, reserved_smem_per_block;
} cc_limits[] = {
    {3, 5, 2048, 16, 65536, 49152, 49152, 0},     {3, 7, 2048, 16, 131072, 114688, 49152, 0},
    {5, 0, 2048, 32, 65536, 65536, 49152, 0},     {5, 2, 2048, 32, 65536, 98304, 49152, 0},
    {5, 3, 2048, 32, 65536, 65536, 49152, 0},     {6, 0, 2048, 32, 65536, 65536, 49152, 0},
    {6, 1, 2048, 32, 65536, 98304, 49152, 0},     {6, 2, 2048, 32, 65536, 65536, 49152, 0},
    {7, 0, 2048, 32, 65536, 98304, 98304, 0},     {7, 2, 2048, 32, 65536, 98304, 98304, 0},
    {7, 5, 1024, 16, 65536, 65536, 65536, 0},     {8, 0, 2048, 32, 65536, 167936, 166912, 1024},
    {8, 6, 1536, 16, 65536, 102400, 101376, 1024}, {8, 7, 2048, 16, 65536, 167936, 166912, 1024},
    {8, 9, 1536, 24, 65536, 102400, 101376, 1024}, {9, 0, 2048, 32, 65536, 233472, 232448, 1024},
    {10, 0, 2048, 32, 65536, 233472, 232448, 1024}, {12, 0, 1536, 32, 65536, 102400, 101376, 1024},
};

#define N_DEVICE_KEYS (sizeof device_keys / sizeof device_keys[0])

static size_t key_index(const char *key) {
    for (size_t i = 0; i < N_DEVICE_KEYS; i++)
        if (strcmp(device_keys[i].key, key) == 0)
            return i;
    return N_DEVICE_KEYS;
}

/* Gives a device the per-SM limits of its compute capability, except those its section set. */
static void apply_cc_limits(sim_device_config *d, const bool *set) {
    struct cudaDeviceProp *p = &d->prop;
    for (size_t i = 0; i < sizeof cc_limits / sizeof cc_limits[0]; i++) {
        const struct cc_limits *c = &cc_limits[i];
        if (c->major != p->major || c->minor != p->minor)
            continue;
        if (!set[key_index("max_threads_per_multiprocessor")])
            p->maxThreadsPerMultiProcessor = c->threads_per_sm;
        if (!set[key_index("max_blocks_per_multiprocessor")])
            p->maxBlocksPerMultiProcessor = c->blocks_per_sm;
        if (!set[key_index("regs_per_multiprocessor")])
            p->regsPerMultiprocessor = c->regs_per_sm;
        if (!set[key_index("shared_mem_per_multiprocessor")])
            p->sharedMemPerMultiprocessor = c->smem_per_sm;
        if (!set[key_index("shared_mem_per_block_optin")])
            p->sharedMemPerBlockOptin = c->smem_per_block_optin;
        if (!set[key_index("reserved_shared_mem_per_block")])
            p->reservedSharedMemPerBlock = c->reserved_smem_per_block;
        return;
    }
}

/* PCIe 4.0 x16 host link, HBM2 device memory, NVLink 3 between devices. */
static void default_timing(sim_timing *t) {
    static const sim_link links[SIM_XFER_KINDS] = {
        [SIM_H2D_PINNED] = {10000, 24e9},   [SIM_D2H_PINNED] = {10000, 24e9},
        [SIM_H2D_PAGEABLE] = {12000, 12e9}, [SIM_D2H_PAGEABLE] = {12000, 12e9},
        [SIM_D2D] = {2500, 1.5e12},         [SIM_PEER] = {8000, 250e9},
        [SIM_H2H] = {1000, 10e9},
    };
    memcpy(t->xfer, links, sizeof links);
    t->kernel_duration_ns = 5000;
    t->memset_latency_ns = 0;
}

/* ---- values -------------------------------------------------------------------------------- */

typedef struct {
    const char *file;
    int line;
    const char *key;
} where;

/* "file:line: what "key"", or for an environment variable "NAME: what". */
static int fail(const where *w, const char *what) {
    if (w->file)
        fprintf(stderr, MSG_PREFIX "%s:%d: %s \"%s\"" MSG_SUFFIX "\n", w->file, w->line, what,
                w->key);
    else
        fprintf(stderr, MSG_PREFIX "%s=%s: %s" MSG_SUFFIX "\n", w->key, getenv(w->key), what);
    return -1;
}

static int parse_number(const char *s, double *out) {
    char *end;
    errno = 0;
    double v;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        v = (double)strtoull(s, &end, 16);
    else
        v = strtod(s, &end);
    if (end == s || errno != 0 || !isfinite(v))
        return -1;
    static const struct {
        const char *suffix;
        double factor;
    } units[] = {{"", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", GiB}, {"TiB", 1024 * GiB},
                 {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            *out = v * units[i].factor;
            return 0;
        }
    }
    return -1;
}

static int set_device_value(sim_device_config *d, const device_key *k, const char *value,
                            const where *w) {
    char *field = (char *)d + k->offset;
    if (k->type == T_STR) {
        if (strlen(value) >= sizeof d->prop.name)
            return fail(w, "value too long for key");
        snprintf(field, sizeof d->prop.name, "%s", value);
        return 0;
    }
    double v;
    if (parse_number(value, &v) != 0)
        return fail(w, "value is not a number for key");
    if (v < k->min || v > k->max || (k->type != T_DOUBLE && v != (double)(long long)v))
        return fail(w, "value out of range for key");
    if (k->type == T_INT) {
        int iv = (int)v;
        memcpy(field, &iv, sizeof iv);
    } else if (k->type == T_UINT) {
        unsigned uv = (unsigned)v;
        memcpy(field, &uv, sizeof uv);
    } else if (k->type == T_SIZE) {
        size_t sv = (size_t)v;
        memcpy(field, &sv, sizeof sv);
    } else {
        memcpy(field, &v, sizeof v);
    }
    return 0;
}

static const device_key *find_device_key(const char *key) {
    for (size_t i = 0; i < sizeof device_keys / sizeof device_keys[0]; i++)
        if (strcmp(device_keys[i].key, key) == 0)
            return &device_keys[i];
    return NULL;
}

/* Resolves a [timing] key to the number it sets, or NULL. */
static double *find_timing_key(sim_timing *t, const char *key) {
    if (strcmp(key, "kernel_duration_ns") == 0)
        return &t->kernel_duration_ns;
    if (strcmp(key, "memset_latency_ns") == 0)
        return &t->memset_latency_ns;
    for (int i = 0; i < SIM_XFER_KINDS; i++) {
        size_t n = strlen(xfer_names[i]);
        if (strncmp(key, xfer_names[i], n) != 0 || key[n] != '_')
            continue;
        if (strcmp(key + n + 1, "latency_ns") == 0)
            return &t->xfer[i].latency_ns;
        if (strcmp(key + n + 1, "bandwidth_bytes_per_s") == 0)
            return &t->xfer[i].bandwidth_bytes_per_s;
    }
    return NULL;
}

static int set_timing_value(const char *key, const char *value, const where *w) {
    double *slot = find_timing_key(&sim_cfg.timing, key);
    double v;
    if (slot == NULL)
        return fail(w, "unknown key");
    if (parse_number(value, &v) != 0)
        return fail(w, "value is not a number for key");
    bool bandwidth = strstr(key, "bandwidth") != NULL;
    if (v < 0 || (bandwidth && v <= 0) || v > 1e18)
        return fail(w, "value out of range for key");
    *slot = v;
    return 0;
}

/* "all", "none" or pairs "a-b,c-d" (both directions). */
static int set_peer_access(const char *value, const where *w) {
    int n = sim_cfg.device_count;
    bool all = strcmp(value, "all") == 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            sim_cfg.peer[a][b] = all && a != b;
    if (all || strcmp(value, "none") == 0)
        return 0;
    const char *p = value;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10);
        if (end == p || *end != '-')
            return fail(w, "expected all, none or pairs like 0-1,2-3 for");
        p = end + 1;
        long b = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0'))
            return fail(w, "expected all, none or pairs like 0-1,2-3 for");
        if (a < 0 || b < 0 || a >= n || b >= n || a == b)
            return fail(w, "no such pair of distinct devices in");
        sim_cfg.peer[a][b] = sim_cfg.peer[b][a] = true;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* ---- the file ------------------------------------------------------------------------------ */

enum { SEC_TOP, SEC_TIMING, SEC_DEVICE };

typedef struct {
    int section;
    int device; /* -1: [device *] */
    int line;
    char *key;
    char *value;
} entry;

typedef struct {
    entry *v;
    size_t n, cap;
} entries;

static char *trim(char *s) {
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Strips a `#` comment that is not inside double quotes, then surrounding quotes. */
static char *unquote(char *s) {
    bool q = false;
    for (char *p = s; *p; p++) {
        if (*p == '"')
            q = !q;
        else if (*p == '#' && !q) {
            *p = '\0';
            break;
        }
    }
    s = trim(s);
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s[n - 1] = '\0';
        s++;
    }
    return s;
}

static int parse_section(char *s, int *section, int *device, const where *w) {
    char *end = strchr(s, ']');
    if (end == NULL || *trim(end + 1) != '\0')
        return fail(w, "malformed section header");
    *end = '\0';
    s = trim(s + 1);
    if (strcmp(s, "timing") == 0) {
        *section = SEC_TIMING;
        return 0;
    }
    if (strncmp(s, "device", 6) == 0 && isspace((unsigned char)s[6])) {
        char *arg = trim(s + 6), *e;
        *section = SEC_DEVICE;
        if (strcmp(arg, "*") == 0) {
            *device = -1;
            return 0;
        }
        long d = strtol(arg, &e, 10);
        if (e != arg && *e == '\0' && d >= 0 && d < SIM_MAX_DEVICES) {
            *device = (int)d;
            return 0;
        }
    }
    return fail(w, "unknown section");
}

static int check_key(int section, const char *key, const where *w) {
    if (section == SEC_TOP && strcmp(key, "devices") != 0 && strcmp(key, "peer_access") != 0)
        return fail(w, "unknown key");
    if (section == SEC_TIMING) {
        sim_timing scratch;
        if (find_timing_key(&scratch, key) == NULL)
            return fail(w, "unknown key");
    }
    if (section == SEC_DEVICE && find_device_key(key) == NULL)
        return fail(w, "unknown key");
    return 0;
}

static int add_entry(entries *es, const entry *e) {
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 32;
        entry *v = realloc(es->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        es->v = v;
        es->cap = cap;
    }
    es->v[es->n++] = *e;
    return 0;
}

static int read_file(const char *path, entries *es) {
    FILE *f = fopen(path, "r");
    where w = {path, 0, "(file)"};
    if (f == NULL) {
        fprintf(stderr, MSG_PREFIX "cannot read APPTRACE_SIM_CONFIG file %s: %s" MSG_SUFFIX "\n",
                path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t bufcap = 0;
    int section = SEC_TOP, device = 0, rc = 0;
    while (rc == 0 && getline(&buf, &bufcap, f) >= 0) {
        w.line++;
        w.key = "";
        char *s = trim(buf);
        if (*s == '\0' || *s == '#')
            continue;
        if (*s == '[') {
            w.key = s;
            rc = parse_section(s, &section, &device, &w);
            continue;
        }
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            w.key = s;
            rc = fail(&w, "expected key = value, got");
            continue;
        }
        *eq = '\0';
        entry e = {section, device, w.line, strdup(trim(s)), strdup(unquote(eq + 1))};
        w.key = e.key ? e.key : "";
        if (e.key == NULL || e.value == NULL || add_entry(es, &e) != 0) {
            free(e.key);
            free(e.value);
            rc = fail(&w, "out of memory reading");
        } else {
            rc = check_key(section, e.key, &w);
        }
    }
    free(buf);
    fclose(f);
    return rc;
}

static int parse_count(const char *value, const where *w) {
    char *end;
    long n = strtol(value, &end, 10);
    if (end == value || *end != '\0' || n < 1 || n > SIM_MAX_DEVICES)
        return fail(w, w->file ? "expected a device count from 1 to 64 for key"
                               : "expected a device count from 1 to 64");
    sim_cfg.device_count = (int)n;
    return 0;
}

static int apply_entries(const char *path, const entries *es) {
    where w = {path, 0, ""};
    for (size_t i = 0; i < es->n; i++) { /* the device count first: sections depend on it */
        const entry *e = &es->v[i];
        w.line = e->line, w.key = e->key;
        if (e->section == SEC_TOP && strcmp(e->key, "devices") == 0 && parse_count(e->value, &w))
            return -1;
    }
    const char *env = getenv("APPTRACE_SIM_DEVICES");
    if (env != NULL && *env) {
        where ew = {NULL, 0, "APPTRACE_SIM_DEVICES"};
        if (parse_count(env, &ew) != 0)
            return -1;
    }
    for (int d = 0; d < sim_cfg.device_count; d++)
        default_device(d, &sim_cfg.dev[d]);
    for (int a = 0; a < sim_cfg.device_count; a++)
        for (int b = 0; b < sim_cfg.device_count; b++)
            sim_cfg.peer[a][b] = a != b;
    static bool set[SIM_MAX_DEVICES][N_DEVICE_KEYS]; /* keys each device's sections set */
    memset(set, 0, sizeof set);
    for (int pass = 0; pass < 2; pass++) { /* [device *] first, then [device N] */
        for (size_t i = 0; i < es->n; i++) {
            const entry *e = &es->v[i];
            w.line = e->line, w.key = e->key;
            int rc = 0;
            if (e->section == SEC_DEVICE && (e->device < 0) == (pass == 0)) {
                for (int d = 0; d < sim_cfg.device_count && rc == 0; d++)
                    if (e->device < 0 || e->device == d) {
                        rc = set_device_value(&sim_cfg.dev[d], find_device_key(e->key), e->value,
                                              &w);
                        set[d][key_index(e->key)] = true;
                    }
            } else if (pass == 1 && e->section == SEC_TIMING) {
                rc = set_timing_value(e->key, e->value, &w);
            } else if (pass == 1 && e->section == SEC_TOP && strcmp(e->key, "peer_access") == 0) {
                rc = set_peer_access(e->value, &w);
            }
            if (rc != 0)
                return -1;
        }
    }
    for (int d = 0; d < sim_cfg.device_count; d++)
        apply_cc_limits(&sim_cfg.dev[d], set[d]);
    return 0;
}

static bool env_flag(const char *name) {
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

int sim_config_load(void) {
    memset(&sim_cfg, 0, sizeof sim_cfg);
    sim_cfg.device_count = 1;
    sim_cfg.quiet = env_flag("APPTRACE_SIM_QUIET");
    sim_cfg.realtime = env_flag("APPTRACE_SIM_REALTIME");
    default_timing(&sim_cfg.timing);
    entries es = {NULL, 0, 0};
    const char *path = getenv("APPTRACE_SIM_CONFIG");
    int rc = 0;
    if (path != NULL && *path)
        rc = read_file(path, &es);
    if (rc == 0)
        rc = apply_entries(path, &es);
    for (size_t i = 0; i < es.n; i++) {
        free(es.v[i].key);
        free(es.v[i].value);
    }
    free(es.v);
    return rc;
}
