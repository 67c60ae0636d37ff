/* Devices: selection, properties and attributes, flags, limits, peer access, reset and
 * device-wide synchronization. Properties come from the configuration (config.c); the rest of the
 * per-device state lives here, under sim_sched_lock. */
#include "sim.h"

#include <stdio.h>
#include <string.h>

__thread int sim_current_device;

typedef struct {
    unsigned flags;
    size_t limits[cudaLimitPersistingL2CacheSize + 1];
    enum cudaFuncCache cache_config;
    bool peer_enabled[SIM_MAX_DEVICES];
} device_state;

static device_state state[SIM_MAX_DEVICES];

static void reset_state(int d) {
    static const size_t limits[] = {
        [cudaLimitStackSize] = 1024,
        [cudaLimitPrintfFifoSize] = 1048576,
        [cudaLimitMallocHeapSize] = 8388608,
        [cudaLimitDevRuntimeSyncDepth] = 2,
        [cudaLimitDevRuntimePendingLaunchCount] = 2048,
        [cudaLimitMaxL2FetchGranularity] = 64,
        [cudaLimitPersistingL2CacheSize] = 0,
    };
    memset(&state[d], 0, sizeof state[d]);
    memcpy(state[d].limits, limits, sizeof limits);
}

/* Lazily: devices start with default state the first time anything asks. */
static device_state *dev_state(int d) {
    static bool ready[SIM_MAX_DEVICES];
    if (!ready[d]) {
        reset_state(d);
        ready[d] = true;
    }
    return &state[d];
}

cudaError_t sim_check_device(int device) {
    return device >= 0 && device < sim_cfg.device_count ? cudaSuccess : cudaErrorInvalidDevice;
}

bool sim_peer_enabled(int from, int to) {
    return from != to && dev_state(from)->peer_enabled[to];
}

SIM_API cudaError_t cudaGetDeviceCount(int *count) {
    SIM_ENTER();
    if (count == NULL)
        return sim_result(cudaErrorInvalidValue);
    *count = sim_cfg.device_count;
    return cudaSuccess;
}

SIM_API cudaError_t cudaGetDevice(int *device) {
    SIM_ENTER();
    if (device == NULL)
        return sim_result(cudaErrorInvalidValue);
    *device = sim_current_device;
    return cudaSuccess;
}

SIM_API cudaError_t cudaSetDevice(int device) {
    SIM_ENTER();
    cudaError_t e = sim_check_device(device);
    if (e == cudaSuccess)
        sim_current_device = device;
    return sim_result(e);
}

SIM_API cudaError_t cudaSetValidDevices(int *device_arr, int len) {
    SIM_ENTER();
    if (len < 0 || (device_arr == NULL && len > 0))
        return sim_result(cudaErrorInvalidValue);
    for (int i = 0; i < len; i++)
        if (sim_check_device(device_arr[i]) != cudaSuccess)
            return sim_result(cudaErrorInvalidDevice);
    return cudaSuccess;
}

SIM_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    SIM_ENTER();
    if (prop == NULL)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    *prop = sim_cfg.dev[device].prop;
    return cudaSuccess;
}

/* Every attribute the properties determine; the others (reserved, Windows, EGL...) are 0. */
static int attribute(const sim_device_config *c, enum cudaDeviceAttr attr) {
    const struct cudaDeviceProp *p = &c->prop;
    switch ((int)attr) {
    case cudaDevAttrMaxThreadsPerBlock: return p->maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p->maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p->maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p->maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p->maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p->maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p->maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return (int)p->sharedMemPerBlock;
    case cudaDevAttrTotalConstantMemory: return (int)p->totalConstMem;
    case cudaDevAttrWarpSize: return p->warpSize;
    case cudaDevAttrMaxPitch: return (int)p->memPitch;
    case cudaDevAttrMaxRegistersPerBlock: return p->regsPerBlock;
    case cudaDevAttrClockRate: return c->clock_rate_khz;
    case cudaDevAttrTextureAlignment: return (int)p->textureAlignment;
    case cudaDevAttrGpuOverlap: return p->asyncEngineCount > 0;
    case cudaDevAttrMultiProcessorCount: return p->multiProcessorCount;
    case cudaDevAttrKernelExecTimeout: return 0;
    case cudaDevAttrIntegrated: return p->integrated;
    case cudaDevAttrCanMapHostMemory: return p->canMapHostMemory;
    case cudaDevAttrComputeMode: return c->compute_mode;
    case cudaDevAttrMaxTexture1DWidth: return p->maxTexture1D;
    case cudaDevAttrMaxTexture2DWidth: return p->maxTexture2D[0];
    case cudaDevAttrMaxTexture2DHeight: return p->maxTexture2D[1];
    case cudaDevAttrMaxTexture3DWidth: return p->maxTexture3D[0];
    case cudaDevAttrMaxTexture3DHeight: return p->maxTexture3D[1];
    case cudaDevAttrMaxTexture3DDepth: return p->maxTexture3D[2];
    case cudaDevAttrMaxTexture2DLayeredWidth: return p->maxTexture2DLayered[0];
    case cudaDevAttrMaxTexture2DLayeredHeight: return p->maxTexture2DLayered[1];
    case cudaDevAttrMaxTexture2DLayeredLayers: return p->maxTexture2DLayered[2];
    case cudaDevAttrSurfaceAlignment: return (int)p->surfaceAlignment;
    case cudaDevAttrConcurrentKernels: return p->concurrentKernels;
    case cudaDevAttrEccEnabled: return p->ECCEnabled;
    case cudaDevAttrPciBusId: return p->pciBusID;
    case cudaDevAttrPciDeviceId: return p->pciDeviceID;
    case cudaDevAttrTccDriver: return p->tccDriver;
    case cudaDevAttrMemoryClockRate: return c->memory_clock_rate_khz;
    case cudaDevAttrGlobalMemoryBusWidth: return p->memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p->l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p->maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount: return p->asyncEngineCount;
    case cudaDevAttrUnifiedAddressing: return p->unifiedAddressing;
    case cudaDevAttrMaxTexture1DLayeredWidth: return p->maxTexture1DLayered[0];
    case cudaDevAttrMaxTexture1DLayeredLayers: return p->maxTexture1DLayered[1];
    case cudaDevAttrMaxTexture2DGatherWidth: return p->maxTexture2DGather[0];
    case cudaDevAttrMaxTexture2DGatherHeight: return p->maxTexture2DGather[1];
    case cudaDevAttrMaxTexture3DWidthAlt: return p->maxTexture3DAlt[0];
    case cudaDevAttrMaxTexture3DHeightAlt: return p->maxTexture3DAlt[1];
    case cudaDevAttrMaxTexture3DDepthAlt: return p->maxTexture3DAlt[2];
    case cudaDevAttrPciDomainId: return p->pciDomainID;
    case cudaDevAttrTexturePitchAlignment: return (int)p->texturePitchAlignment;
    case cudaDevAttrMaxTextureCubemapWidth: return p->maxTextureCubemap;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: return p->maxTextureCubemapLayered[0];
    case cudaDevAttrMaxTextureCubemapLayeredLayers: return p->maxTextureCubemapLayered[1];
    case cudaDevAttrMaxSurface1DWidth: return p->maxSurface1D;
    case cudaDevAttrMaxSurface2DWidth: return p->maxSurface2D[0];
    case cudaDevAttrMaxSurface2DHeight: return p->maxSurface2D[1];
    case cudaDevAttrMaxSurface3DWidth: return p->maxSurface3D[0];
    case cudaDevAttrMaxSurface3DHeight: return p->maxSurface3D[1];
    case cudaDevAttrMaxSurface3DDepth: return p->maxSurface3D[2];
    case cudaDevAttrMaxSurface1DLayeredWidth: return p->maxSurface1DLayered[0];
    case cudaDevAttrMaxSurface1DLayeredLayers: return p->maxSurface1DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredWidth: return p->maxSurface2DLayered[0];
    case cudaDevAttrMaxSurface2DLayeredHeight: return p->maxSurface2DLayered[1];
    case cudaDevAttrMaxSurface2DLayeredLayers: return p->maxSurface2DLayered[2];
    case cudaDevAttrMaxSurfaceCubemapWidth: return p->maxSurfaceCubemap;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: return p->maxSurfaceCubemapLayered[0];
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: return p->maxSurfaceCubemapLayered[1];
    case cudaDevAttrMaxTexture1DLinearWidth: return 268435456;
    case cudaDevAttrMaxTexture2DLinearWidth: return p->maxTexture2DLinear[0];
    case cudaDevAttrMaxTexture2DLinearHeight: return p->maxTexture2DLinear[1];
    case cudaDevAttrMaxTexture2DLinearPitch: return p->maxTexture2DLinear[2];
    case cudaDevAttrMaxTexture2DMipmappedWidth: return p->maxTexture2DMipmap[0];
    case cudaDevAttrMaxTexture2DMipmappedHeight: return p->maxTexture2DMipmap[1];
    case cudaDevAttrComputeCapabilityMajor: return p->major;
    case cudaDevAttrComputeCapabilityMinor: return p->minor;
    case cudaDevAttrMaxTexture1DMipmappedWidth: return p->maxTexture1DMipmap;
    case cudaDevAttrStreamPrioritiesSupported: return p->streamPrioritiesSupported;
    case cudaDevAttrGlobalL1CacheSupported: return p->globalL1CacheSupported;
    case cudaDevAttrLocalL1CacheSupported: return p->localL1CacheSupported;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return (int)p->sharedMemPerMultiprocessor;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p->regsPerMultiprocessor;
    case cudaDevAttrManagedMemory: return p->managedMemory;
    case cudaDevAttrIsMultiGpuBoard: return p->isMultiGpuBoard;
    case cudaDevAttrMultiGpuBoardGroupID: return p->multiGpuBoardGroupID;
    case cudaDevAttrHostNativeAtomicSupported: return p->hostNativeAtomicSupported;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: return c->single_to_double_perf_ratio;
    case cudaDevAttrPageableMemoryAccess: return p->pageableMemoryAccess;
    case cudaDevAttrConcurrentManagedAccess: return p->concurrentManagedAccess;
    case cudaDevAttrComputePreemptionSupported: return p->computePreemptionSupported;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: return p->canUseHostPointerForRegisteredMem;
    case cudaDevAttrCooperativeLaunch: return p->cooperativeLaunch;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return (int)p->sharedMemPerBlockOptin;
    case cudaDevAttrHostRegisterSupported: return p->hostRegisterSupported;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        return p->pageableMemoryAccessUsesHostPageTables;
    case cudaDevAttrDirectManagedMemAccessFromHost: return p->directManagedMemAccessFromHost;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p->maxBlocksPerMultiProcessor;
    case cudaDevAttrMaxPersistingL2CacheSize: return p->persistingL2CacheMaxSize;
    case cudaDevAttrMaxAccessPolicyWindowSize: return p->accessPolicyMaxWindowSize;
    case cudaDevAttrReservedSharedMemoryPerBlock: return (int)p->reservedSharedMemPerBlock;
    case cudaDevAttrSparseCudaArraySupported: return p->sparseCudaArraySupported;
    case cudaDevAttrHostRegisterReadOnlySupported: return p->hostRegisterReadOnlySupported;
    case cudaDevAttrTimelineSemaphoreInteropSupported: return p->timelineSemaphoreInteropSupported;
    case cudaDevAttrMemoryPoolsSupported: return p->memoryPoolsSupported;
    case cudaDevAttrGPUDirectRDMASupported: return p->gpuDirectRDMASupported;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: return (int)p->gpuDirectRDMAFlushWritesOptions;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: return p->gpuDirectRDMAWritesOrdering;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: return (int)p->memoryPoolSupportedHandleTypes;
    case cudaDevAttrClusterLaunch: return p->clusterLaunch;
    case cudaDevAttrDeferredMappingCudaArraySupported: return p->deferredMappingCudaArraySupported;
    case cudaDevAttrIpcEventSupport: return p->ipcEventSupported;
    case cudaDevAttrMemSyncDomainCount: return 1;
    case cudaDevAttrNumaConfig: return p->deviceNumaConfig;
    case cudaDevAttrNumaId: return p->deviceNumaId;
    case cudaDevAttrMpsEnabled: return p->mpsEnabled;
    case cudaDevAttrHostNumaId: return p->hostNumaId;
    case cudaDevAttrGpuPciDeviceId: return (int)p->gpuPciDeviceID;
    case cudaDevAttrGpuPciSubsystemId: return (int)p->gpuPciSubsystemID;
    case cudaDevAttrHostNumaMultinodeIpcSupported: return p->hostNumaMultinodeIpcSupported;
    default: return 0;
    }
}

SIM_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    SIM_ENTER();
    if (value == NULL || attr < cudaDevAttrMaxThreadsPerBlock || attr >= cudaDevAttrMax)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    *value = attribute(&sim_cfg.dev[device], attr);
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    SIM_ENTER();
    if (pciBusId == NULL || len <= 0)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    const struct cudaDeviceProp *p = &sim_cfg.dev[device].prop;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", (unsigned)p->pciDomainID,
             (unsigned)p->pciBusID, (unsigned)p->pciDeviceID);
    return cudaSuccess;
}

/* Accepts "domain:bus:device.function" and "bus:device.function", in hexadecimal. */
SIM_API cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
    SIM_ENTER();
    unsigned dom = 0, bus, dev, fn;
    char tail;
    if (device == NULL || pciBusId == NULL)
        return sim_result(cudaErrorInvalidValue);
    if (sscanf(pciBusId, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
        dom = 0;
        if (sscanf(pciBusId, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
            return sim_result(cudaErrorInvalidValue);
    }
    for (int d = 0; d < sim_cfg.device_count; d++) {
        const struct cudaDeviceProp *p = &sim_cfg.dev[d].prop;
        if ((unsigned)p->pciDomainID == dom && (unsigned)p->pciBusID == bus &&
            (unsigned)p->pciDeviceID == dev) {
            *device = d;
            return cudaSuccess;
        }
    }
    return sim_result(cudaErrorInvalidDevice);
}

/* The first device of at least the asked compute capability, else device 0. */
SIM_API cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    SIM_ENTER();
    if (device == NULL || prop == NULL)
        return sim_result(cudaErrorInvalidValue);
    *device = 0;
    for (int d = 0; d < sim_cfg.device_count; d++) {
        const struct cudaDeviceProp *p = &sim_cfg.dev[d].prop;
        if (p->major > prop->major || (p->major == prop->major && p->minor >= prop->minor)) {
            *device = d;
            break;
        }
    }
    return cudaSuccess;
}

/* ---- flags, limits, caches ----------------------------------------------------------------- */

static cudaError_t set_flags(int device, unsigned flags) {
    unsigned sched = flags & cudaDeviceScheduleMask;
    if ((flags & ~(unsigned)cudaDeviceMask) != 0 ||
        (sched != 0 && sched != cudaDeviceScheduleSpin && sched != cudaDeviceScheduleYield &&
         sched != cudaDeviceScheduleBlockingSync))
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_sched_lock);
    dev_state(device)->flags = flags;
    pthread_mutex_unlock(&sim_sched_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    SIM_ENTER();
    return sim_result(set_flags(sim_current_device, flags));
}

/* With unified addressing host memory is always mapped: cudaDeviceMapHost is always reported. */
SIM_API cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    SIM_ENTER();
    if (flags == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    *flags = dev_state(sim_current_device)->flags | cudaDeviceMapHost;
    pthread_mutex_unlock(&sim_sched_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
    SIM_ENTER();
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    if (flags & ~(unsigned)cudaInitDeviceFlagsAreValid)
        return sim_result(cudaErrorInvalidValue);
    return flags ? sim_result(set_flags(device, deviceFlags)) : cudaSuccess;
}

static cudaError_t check_limit(enum cudaLimit limit, size_t value, int device) {
    switch (limit) {
    case cudaLimitStackSize:
    case cudaLimitPrintfFifoSize:
    case cudaLimitMallocHeapSize:
    case cudaLimitDevRuntimeSyncDepth:
    case cudaLimitDevRuntimePendingLaunchCount:
        return cudaSuccess;
    case cudaLimitMaxL2FetchGranularity:
        return value <= 128 ? cudaSuccess : cudaErrorInvalidValue;
    case cudaLimitPersistingL2CacheSize:
        return value <= (size_t)sim_cfg.dev[device].prop.persistingL2CacheMaxSize
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    default:
        return cudaErrorUnsupportedLimit;
    }
}

SIM_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    SIM_ENTER();
    int d = sim_current_device;
    cudaError_t e = check_limit(limit, value, d);
    if (e == cudaSuccess) {
        pthread_mutex_lock(&sim_sched_lock);
        dev_state(d)->limits[limit] = value;
        pthread_mutex_unlock(&sim_sched_lock);
    }
    return sim_result(e);
}

SIM_API cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    SIM_ENTER();
    if (pValue == NULL)
        return sim_result(cudaErrorInvalidValue);
    int d = sim_current_device;
    if (check_limit(limit, 0, d) == cudaErrorUnsupportedLimit)
        return sim_result(cudaErrorUnsupportedLimit);
    pthread_mutex_lock(&sim_sched_lock);
    *pValue = dev_state(d)->limits[limit];
    pthread_mutex_unlock(&sim_sched_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
    SIM_ENTER();
    if (cacheConfig < cudaFuncCachePreferNone || cacheConfig > cudaFuncCachePreferEqual)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    dev_state(sim_current_device)->cache_config = cacheConfig;
    pthread_mutex_unlock(&sim_sched_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    SIM_ENTER();
    if (pCacheConfig == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_sched_lock);
    *pCacheConfig = dev_state(sim_current_device)->cache_config;
    pthread_mutex_unlock(&sim_sched_lock);
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    SIM_ENTER();
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

/* ---- peers --------------------------------------------------------------------------------- */

SIM_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    SIM_ENTER();
    if (canAccessPeer == NULL)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(device) != cudaSuccess || sim_check_device(peerDevice) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    *canAccessPeer = device != peerDevice && sim_cfg.peer[device][peerDevice];
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    SIM_ENTER();
    int d = sim_current_device;
    if (flags != 0)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(peerDevice) != cudaSuccess || peerDevice == d)
        return sim_result(cudaErrorInvalidDevice);
    if (!sim_cfg.peer[d][peerDevice])
        return sim_result(cudaErrorPeerAccessUnsupported);
    pthread_mutex_lock(&sim_sched_lock);
    bool *enabled = &dev_state(d)->peer_enabled[peerDevice];
    cudaError_t e = *enabled ? cudaErrorPeerAccessAlreadyEnabled : cudaSuccess;
    *enabled = true;
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    SIM_ENTER();
    int d = sim_current_device;
    if (sim_check_device(peerDevice) != cudaSuccess || peerDevice == d)
        return sim_result(cudaErrorInvalidDevice);
    pthread_mutex_lock(&sim_sched_lock);
    bool *enabled = &dev_state(d)->peer_enabled[peerDevice];
    cudaError_t e = *enabled ? cudaSuccess : cudaErrorPeerAccessNotEnabled;
    *enabled = false;
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

SIM_API cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                              int srcDevice, int dstDevice) {
    SIM_ENTER();
    if (value == NULL)
        return sim_result(cudaErrorInvalidValue);
    if (sim_check_device(srcDevice) != cudaSuccess || sim_check_device(dstDevice) != cudaSuccess ||
        srcDevice == dstDevice)
        return sim_result(cudaErrorInvalidDevice);
    bool peer = sim_cfg.peer[srcDevice][dstDevice];
    switch (attr) {
    case cudaDevP2PAttrPerformanceRank:
        *value = 0;
        break;
    case cudaDevP2PAttrAccessSupported:
    case cudaDevP2PAttrNativeAtomicSupported:
    case cudaDevP2PAttrCudaArrayAccessSupported:
        *value = peer;
        break;
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported:
        *value = 0;
        break;
    default:
        return sim_result(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

/* ---- synchronization and reset ------------------------------------------------------------- */

SIM_API cudaError_t cudaDeviceSynchronize(void) {
    SIM_ENTER();
    int d = sim_current_device;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_capture_check_device(d);
    if (e == cudaSuccess)
        e = sim_wait_device(d);
    if (e == cudaSuccess)
        sim_wait_host_until(sim_device_end(d));
    pthread_mutex_unlock(&sim_sched_lock);
    return sim_result(e);
}

/* Drains the device, then destroys its streams, events, memory and pools and forgets its
 * settings. Module variables get fresh memory (and their initial values) on next use; managed
 * variables and pinned host memory stay, since the program holds plain pointers to them. */
SIM_API cudaError_t cudaDeviceReset(void) {
    SIM_ENTER();
    int d = sim_current_device;
    pthread_mutex_lock(&sim_sched_lock);
    cudaError_t e = sim_wait_device(d);
    pthread_mutex_unlock(&sim_sched_lock);
    if (e != cudaSuccess)
        return sim_result(e);
    pthread_mutex_lock(&sim_reg_lock);
    pthread_mutex_lock(&sim_sched_lock);
    sim_streams_reset_device(d);
    sim_events_reset_device(d);
    reset_state(d);
    for (int o = 0; o < sim_cfg.device_count; o++)
        dev_state(o)->peer_enabled[d] = false;
    pthread_mutex_lock(&sim_mem_lock);
    sim_pools_reset_device(d);
    sim_mem_free_device(d);
    pthread_mutex_unlock(&sim_mem_lock);
    sim_symbols_reset_device(d);
    pthread_mutex_unlock(&sim_sched_lock);
    pthread_mutex_unlock(&sim_reg_lock);
    return cudaSuccess;
}
