/* Registered device code: fat binaries, kernels, their attributes and occupancy.
 *
 * nvcc's host code registers each translation unit's fat binary (__cudaRegisterFatBinary) and
 * every kernel in it (__cudaRegisterFunction: host stub address -> mangled device name). The
 * kernel table maps both the host stub and the kernel's cudaKernel_t handle (the record itself)
 * to the record, so every entry point accepts either. What the cubin says about a kernel
 * (parameters, registers, static shared memory, launch bounds) is read on first use.
 * Everything here is guarded by sim_reg_lock. */
#include "sim.h"
#include "cubin.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    void *fatbin_wrapper; /* first: the handle the program holds points here */
} sim_module;

typedef struct {
    const void *host_fun;
    char *name;
    sim_module *module;
    bool loaded;
    bool have_cubin;
    cubin_kernel_attrs attrs;
    cubin_param *params;
    int nparams;
    int max_threads;
    int max_dynamic_smem;
    int carveout;
    enum cudaFuncCache cache_config;
    int cluster[3];
    int cluster_must_be_set, non_portable_cluster, cluster_policy;
} sim_kernel;

static sim_ptrmap modules; /* handle -> module */
static sim_ptrmap kernels; /* host stub and handle -> kernel */

void *sim_module_of(void **handle) {
    return sim_ptrmap_get(&modules, handle);
}

void *sim_module_wrapper(void *module) {
    return module ? ((sim_module *)module)->fatbin_wrapper : NULL;
}

SIM_API void **__cudaRegisterFatBinary(void *fatCubin) {
    sim_module *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->fatbin_wrapper = fatCubin;
    pthread_mutex_lock(&sim_reg_lock);
    sim_ptrmap_put(&modules, m, m);
    pthread_mutex_unlock(&sim_reg_lock);
    return (void **)m;
}

SIM_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) {
    (void)fatCubinHandle;
}

SIM_API char __cudaInitModule(void **fatCubinHandle) {
    (void)fatCubinHandle;
    return 1; /* managed variables were set up at registration */
}

/* Unified function tables and host variables are registered but have no use here. */
SIM_API void __cudaRegisterUnifiedTable(void **fatCubinHandle, void *a, void *b, void *c,
                                        void *d) {
    (void)fatCubinHandle, (void)a, (void)b, (void)c, (void)d;
}

SIM_API void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName, char *hostVar,
                                   size_t size) {
    (void)fatCubinHandle, (void)deviceName, (void)hostVar, (void)size;
}

SIM_API void *__cudaGetProcAddress(void) {
    return NULL;
}

static void free_kernel(sim_kernel *k) {
    free(k->name);
    free(k->params);
    free(k);
}

SIM_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                    const char *deviceName, int thread_limit, uint3 *tid,
                                    uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    const char *name = deviceName ? deviceName : deviceFun;
    sim_kernel *k = calloc(1, sizeof *k);
    if (k == NULL || hostFun == NULL || name == NULL || (k->name = strdup(name)) == NULL) {
        free(k);
        return;
    }
    k->host_fun = hostFun;
    k->carveout = -1;
    k->max_dynamic_smem = -1; /* the device default, once known */
    pthread_mutex_lock(&sim_reg_lock);
    k->module = sim_ptrmap_get(&modules, fatCubinHandle);
    sim_kernel *old = sim_ptrmap_get(&kernels, hostFun);
    if (old) { /* registered again (a module loaded twice): the newest wins */
        sim_ptrmap_remove(&kernels, old);
        free_kernel(old);
    }
    if (sim_ptrmap_put(&kernels, hostFun, k) != 0 || sim_ptrmap_put(&kernels, k, k) != 0) {
        sim_ptrmap_remove(&kernels, hostFun);
        free_kernel(k);
    }
    pthread_mutex_unlock(&sim_reg_lock);
}

static bool stub_key_of_module(void *key, void *val, void *ctx) {
    return ((sim_kernel *)val)->module == ctx && key != val;
}

static bool handle_key_of_module(void *key, void *val, void *ctx) {
    (void)key; /* only handle keys are left for the module's kernels */
    if (((sim_kernel *)val)->module != ctx)
        return false;
    free_kernel(val);
    return true;
}

SIM_API void __cudaUnregisterFatBinary(void **fatCubinHandle) {
    pthread_mutex_lock(&sim_reg_lock);
    sim_module *m = sim_ptrmap_remove(&modules, fatCubinHandle);
    if (m) {
        sim_ptrmap_foreach(&kernels, stub_key_of_module, m);
        sim_ptrmap_foreach(&kernels, handle_key_of_module, m);
        sim_symbols_unregister(m);
        free(m);
    }
    pthread_mutex_unlock(&sim_reg_lock);
}

/* ---- kernel attributes --------------------------------------------------------------------- */

/* Reads the cubin once; derives the kernel's own limits against device 0's properties (the
 * simulated devices share their architecture limits unless configured otherwise). */
static void load(sim_kernel *k) {
    if (k->loaded)
        return;
    k->loaded = true;
    uint64_t t0 = sim_overhead_start(); /* a driver would have read the cubin at module load */
    const void *wrapper = k->module ? k->module->fatbin_wrapper : NULL;
    k->have_cubin = cubin_kernel_attributes(wrapper, k->name, &k->attrs) == 0;
    k->attrs.name = NULL;
    k->nparams = -1;
    if (k->have_cubin && k->attrs.num_params >= 0 && k->attrs.num_params <= CUBIN_MAX_PARAMS) {
        k->params = calloc((size_t)k->attrs.num_params + 1, sizeof *k->params);
        if (k->params)
            k->nparams = cubin_kernel_params(wrapper, k->name, k->params,
                                             k->attrs.num_params, NULL);
    }
    const struct cudaDeviceProp *p = &sim_cfg.dev[0].prop;
    int regs = k->attrs.num_regs ? (int)k->attrs.num_regs : 32;
    int regs_per_warp = (regs * p->warpSize + 255) / 256 * 256;
    int max = p->maxThreadsPerBlock;
    if (regs_per_warp > 0 && p->regsPerBlock / regs_per_warp * p->warpSize < max)
        max = p->regsPerBlock / regs_per_warp * p->warpSize;
    if (k->attrs.max_threads && (int)k->attrs.max_threads < max)
        max = (int)k->attrs.max_threads;
    k->max_threads = max;
    if (k->max_dynamic_smem < 0)
        k->max_dynamic_smem = (int)(p->sharedMemPerBlock > k->attrs.shared_bytes
                                        ? p->sharedMemPerBlock - k->attrs.shared_bytes
                                        : 0);
    sim_overhead_stop(t0);
}

/* The kernel behind a host stub or handle, loaded; requires sim_reg_lock. */
static sim_kernel *find(const void *func) {
    sim_kernel *k = func ? sim_ptrmap_get(&kernels, func) : NULL;
    if (k)
        load(k);
    return k;
}

cudaError_t sim_kernel_limits_of(const void *func, sim_kernel_limits *out) {
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    if (k) {
        out->name = k->name;
        out->host_fun = k->host_fun;
        out->max_threads = k->max_threads;
        out->static_smem = k->attrs.shared_bytes;
        out->max_dynamic_smem = k->max_dynamic_smem;
        out->num_params = k->nparams;
        out->regs = k->attrs.num_regs ? (int)k->attrs.num_regs : 32;
    }
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

SIM_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    SIM_ENTER();
    if (attr == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    if (k) {
        memset(attr, 0, sizeof *attr);
        attr->sharedSizeBytes = k->attrs.shared_bytes;
        attr->constSizeBytes = k->attrs.const_bytes;
        attr->localSizeBytes = k->attrs.local_bytes;
        attr->maxThreadsPerBlock = k->max_threads;
        attr->numRegs = k->attrs.num_regs ? (int)k->attrs.num_regs : 32;
        attr->ptxVersion = (int)k->attrs.arch;
        attr->binaryVersion = (int)k->attrs.arch;
        attr->maxDynamicSharedSizeBytes = k->max_dynamic_smem;
        attr->preferredShmemCarveout = k->carveout;
        attr->clusterDimMustBeSet = k->cluster_must_be_set;
        attr->requiredClusterWidth = k->cluster[0];
        attr->requiredClusterHeight = k->cluster[1];
        attr->requiredClusterDepth = k->cluster[2];
        attr->clusterSchedulingPolicyPreference = k->cluster_policy;
        attr->nonPortableClusterSizeAllowed = k->non_portable_cluster;
    }
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : sim_result(cudaErrorInvalidDeviceFunction);
}

static cudaError_t set_attribute(sim_kernel *k, enum cudaFuncAttribute attr, int value,
                                 int device) {
    const struct cudaDeviceProp *p = &sim_cfg.dev[device].prop;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (size_t)value + k->attrs.shared_bytes > p->sharedMemPerBlockOptin)
            return cudaErrorInvalidValue;
        k->max_dynamic_smem = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return cudaErrorInvalidValue;
        k->carveout = value;
        return cudaSuccess;
    case cudaFuncAttributeClusterDimMustBeSet:
        return cudaErrorInvalidValue; /* read-only */
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
        if (!p->clusterLaunch)
            return cudaErrorNotSupported;
        if (value < 0)
            return cudaErrorInvalidValue;
        k->cluster[attr - cudaFuncAttributeRequiredClusterWidth] = value;
        return cudaSuccess;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        if (!p->clusterLaunch)
            return cudaErrorNotSupported;
        k->non_portable_cluster = value != 0;
        return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
        if (value < cudaClusterSchedulingPolicyDefault ||
            value > cudaClusterSchedulingPolicyLoadBalancing)
            return cudaErrorInvalidValue;
        k->cluster_policy = value;
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t func_set(const void *func, enum cudaFuncAttribute attr, int value, int device) {
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    cudaError_t e = k ? set_attribute(k, attr, value, device) : cudaErrorInvalidDeviceFunction;
    pthread_mutex_unlock(&sim_reg_lock);
    return e;
}

SIM_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                         int value) {
    SIM_ENTER();
    return sim_result(func_set(func, attr, value, sim_current_device));
}

SIM_API cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel,
                                                    enum cudaFuncAttribute attr, int value,
                                                    int device) {
    SIM_ENTER();
    if (sim_check_device(device) != cudaSuccess)
        return sim_result(cudaErrorInvalidDevice);
    return sim_result(func_set(kernel, attr, value, device));
}

SIM_API cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
    SIM_ENTER();
    if (cacheConfig < cudaFuncCachePreferNone || cacheConfig > cudaFuncCachePreferEqual)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    if (k)
        k->cache_config = cacheConfig;
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : sim_result(cudaErrorInvalidDeviceFunction);
}

SIM_API cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
    SIM_ENTER();
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : sim_result(cudaErrorInvalidDeviceFunction);
}

SIM_API cudaError_t cudaFuncGetName(const char **name, const void *func) {
    SIM_ENTER();
    if (name == NULL)
        return sim_result(cudaErrorInvalidValue);
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = func ? sim_ptrmap_get(&kernels, func) : NULL;
    if (k)
        *name = k->name; /* lives as long as the module is registered */
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : sim_result(cudaErrorInvalidDeviceFunction);
}

/* From the cubin's EIATTR_KPARAM_INFO records. */
SIM_API cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                         size_t *paramSize) {
    SIM_ENTER();
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    cudaError_t e = cudaSuccess;
    if (k == NULL)
        e = cudaErrorInvalidDeviceFunction;
    else if (k->nparams < 0)
        e = cudaErrorNotSupported; /* no readable cubin holds this kernel */
    else if (paramIndex >= (size_t)k->nparams)
        e = cudaErrorInvalidValue;
    else {
        if (paramOffset)
            *paramOffset = k->params[paramIndex].offset;
        if (paramSize)
            *paramSize = k->params[paramIndex].size;
    }
    pthread_mutex_unlock(&sim_reg_lock);
    return sim_result(e);
}

static cudaError_t get_handle(void **out, const void *func) {
    if (out == NULL)
        return cudaErrorInvalidValue;
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = func ? sim_ptrmap_get(&kernels, func) : NULL;
    if (k)
        *out = k;
    pthread_mutex_unlock(&sim_reg_lock);
    return k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

SIM_API cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
    SIM_ENTER();
    return sim_result(get_handle((void **)functionPtr, symbolPtr));
}

SIM_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
    SIM_ENTER();
    return sim_result(get_handle((void **)kernelPtr, entryFuncAddr));
}

/* Called once per launch site by nvcc's stubs, possibly before main: no configuration needed. */
SIM_API cudaError_t __cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
    return sim_result(get_handle((void **)kernelPtr, entryFuncAddr));
}

/* ---- arguments of graph kernel nodes ------------------------------------------------------- */

/* A node's copy of its kernel's arguments is one block: two size_t (the block's size and the
 * number of pointers), the pointers, then the bytes they point to. As kernelParams there is one
 * pointer per parameter, at its offset in the parameter buffer; as `extra`, the five entries
 * CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END
 * with the size stored before the buffer. */
#define LAUNCH_PARAM_END ((void *)0x00)
#define LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

static void *new_blob(size_t count, size_t data, void ***ptrs, uint8_t **bytes) {
    size_t head = 2 * sizeof(size_t) + count * sizeof(void *);
    head = (head + 15) & ~(size_t)15;
    size_t *b = calloc(1, head + data);
    if (b == NULL)
        return NULL;
    b[0] = head + data;
    b[1] = count;
    *ptrs = (void **)(b + 2);
    *bytes = (uint8_t *)b + head;
    return b;
}

static cudaError_t extra_blob(void **extra, void **blob, void ***extra_out) {
    const void *buf = NULL;
    const size_t *size = NULL;
    for (size_t i = 0; extra[i] != LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == LAUNCH_PARAM_BUFFER_POINTER)
            buf = extra[i + 1];
        else if (extra[i] == LAUNCH_PARAM_BUFFER_SIZE)
            size = extra[i + 1];
        else
            return cudaErrorInvalidValue;
    }
    size_t n = buf && size ? *size : 0;
    void **ptrs;
    uint8_t *bytes;
    *blob = new_blob(5, sizeof(size_t) + n, &ptrs, &bytes);
    if (*blob == NULL)
        return cudaErrorMemoryAllocation;
    memcpy(bytes, &n, sizeof n);
    if (n)
        memcpy(bytes + sizeof n, buf, n);
    ptrs[0] = LAUNCH_PARAM_BUFFER_POINTER;
    ptrs[1] = bytes + sizeof n;
    ptrs[2] = LAUNCH_PARAM_BUFFER_SIZE;
    ptrs[3] = bytes;
    ptrs[4] = LAUNCH_PARAM_END;
    *extra_out = ptrs;
    return cudaSuccess;
}

cudaError_t sim_kernel_args_copy(const void *func, void **args, void **extra, void **blob,
                                 void ***params, void ***extra_out) {
    *blob = NULL;
    *params = *extra_out = NULL;
    if (extra)
        return extra_blob(extra, blob, extra_out);
    pthread_mutex_lock(&sim_reg_lock);
    sim_kernel *k = find(func);
    cudaError_t e = k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
    if (k && k->nparams > 0 && args == NULL)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && k->nparams >= 0 && (args || k->nparams == 0)) {
        size_t data = 0;
        for (int i = 0; i < k->nparams; i++)
            if (k->params[i].offset + (size_t)k->params[i].size > data)
                data = k->params[i].offset + (size_t)k->params[i].size;
        void **ptrs;
        uint8_t *bytes;
        *blob = new_blob((size_t)k->nparams, data, &ptrs, &bytes);
        if (*blob == NULL) {
            e = cudaErrorMemoryAllocation;
        } else {
            for (int i = 0; i < k->nparams; i++) {
                ptrs[i] = bytes + k->params[i].offset;
                memcpy(ptrs[i], args[i], k->params[i].size);
            }
            *params = ptrs;
        }
    } /* else no layout (no readable cubin): the arguments cannot be copied, and are not kept */
    pthread_mutex_unlock(&sim_reg_lock);
    return e;
}

const char *sim_kernel_name(const void *func) {
    sim_kernel *k = func ? sim_ptrmap_get(&kernels, func) : NULL;
    return k ? k->name : NULL;
}
