/* Kernel launches: the <<<>>> configuration stack, every launch entry point, and occupancy.
 *
 * A launch is validated as CUDA validates it (the function, the configuration against the device
 * and the kernel's own limits, the stream) and then ordered on its stream like any other work,
 * taking the configured kernel duration on the compute engine (on a capturing stream it becomes
 * a kernel node instead: capture.c). The kernel itself never runs. Errors are returned and become the thread's last error, which is where programs look for
 * them after <<<>>> (nvcc's stubs ignore the return value). */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define CONFIG_STACK 16

typedef struct {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
} call_config;

/* <<<>>> pushes, the stub pops; arguments may themselves launch kernels, hence a stack. */
static __thread call_config configs[CONFIG_STACK];
static __thread int config_depth;

SIM_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                             struct CUstream_st *stream) {
    if (config_depth < CONFIG_STACK) {
        call_config c = {gridDim, blockDim, sharedMem, stream};
        configs[config_depth] = c;
    }
    config_depth++;
    return 0;
}

SIM_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                               void *stream) {
    if (config_depth == 0)
        return sim_result(cudaErrorMissingConfiguration);
    if (--config_depth >= CONFIG_STACK)
        return sim_result(cudaErrorInvalidConfiguration); /* nested deeper than we track */
    const call_config *c = &configs[config_depth];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shmem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* ---- validation and submission ------------------------------------------------------------- */

static cudaError_t check_config(const sim_kernel_limits *k, dim3 grid, dim3 block, size_t shmem) {
    const struct cudaDeviceProp *p = &sim_cfg.dev[sim_current_device].prop;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (block.x == 0 || block.y == 0 || block.z == 0 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0)
        return cudaErrorInvalidConfiguration;
    if (threads > (uint64_t)p->maxThreadsPerBlock || block.x > (unsigned)p->maxThreadsDim[0] ||
        block.y > (unsigned)p->maxThreadsDim[1] || block.z > (unsigned)p->maxThreadsDim[2])
        return cudaErrorInvalidConfiguration;
    if (grid.x > (unsigned)p->maxGridSize[0] || grid.y > (unsigned)p->maxGridSize[1] ||
        grid.z > (unsigned)p->maxGridSize[2])
        return cudaErrorInvalidConfiguration;
    if (shmem > (size_t)k->max_dynamic_smem || shmem + k->static_smem > p->sharedMemPerBlockOptin)
        return cudaErrorInvalidConfiguration;
    if (threads > (uint64_t)k->max_threads) /* launch bounds or registers of this kernel */
        return cudaErrorLaunchOutOfResources;
    return cudaSuccess;
}

static int blocks_per_sm(const sim_kernel_limits *k, const struct cudaDeviceProp *p,
                         int block_size, size_t dynamic_smem) {
    if (block_size > k->max_threads)
        return 0;
    int warps = (block_size + p->warpSize - 1) / p->warpSize;
    int n = p->maxThreadsPerMultiProcessor / (warps * p->warpSize);
    if (p->maxBlocksPerMultiProcessor < n)
        n = p->maxBlocksPerMultiProcessor;
    int regs_per_warp = (k->regs * p->warpSize + 255) / 256 * 256;
    if (regs_per_warp > 0 && p->regsPerMultiprocessor / regs_per_warp / warps < n)
        n = p->regsPerMultiprocessor / regs_per_warp / warps;
    size_t smem = k->static_smem + dynamic_smem + p->reservedSharedMemPerBlock;
    if (smem > 0 && p->sharedMemPerMultiprocessor / smem < (size_t)n)
        n = (int)(p->sharedMemPerMultiprocessor / smem);
    return n;
}

typedef struct {
    bool ptds;
    bool cooperative;
} launch_mode;

cudaError_t sim_check_launch(const void *func, dim3 grid, dim3 block, size_t shmem) {
    sim_kernel_limits k;
    cudaError_t e = sim_kernel_limits_of(func, &k);
    return e == cudaSuccess ? check_config(&k, grid, block, shmem) : e;
}

/* On a capturing stream the launch becomes a kernel node, with a copy of its arguments (made
 * before sim_sched_lock is taken, whenever some capture is going on). */
static cudaError_t launch(const void *func, dim3 grid, dim3 block, size_t shmem,
                          cudaStream_t stream, void **args, launch_mode mode) {
    sim_kernel_limits k;
    cudaError_t e = sim_kernel_limits_of(func, &k);
    if (e == cudaSuccess)
        e = check_config(&k, grid, block, shmem);
    if (e == cudaSuccess && mode.cooperative &&
        !sim_cfg.dev[sim_current_device].prop.cooperativeLaunch) /* configured without */
        e = cudaErrorNotSupported;
    if (e == cudaSuccess && mode.cooperative) {
        const struct cudaDeviceProp *p = &sim_cfg.dev[sim_current_device].prop;
        uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
        int per_sm = blocks_per_sm(&k, p, (int)(block.x * block.y * block.z), shmem);
        if (blocks > (uint64_t)per_sm * (uint64_t)p->multiProcessorCount)
            e = cudaErrorCooperativeLaunchTooLarge;
    }
    if (e != cudaSuccess)
        return e;
    sim_node_desc d;
    bool capturing = sim_captures_active() != 0, captured = false;
    if (capturing) {
        memset(&d, 0, sizeof d);
        d.type = cudaGraphNodeTypeKernel;
        d.func = k.host_fun; /* as the program knows it, also when launched by handle */
        d.grid = grid;
        d.block = block;
        d.shmem = (unsigned)shmem;
        e = sim_kernel_args_copy(func, args, NULL, &d.arg_blob, &d.arg_params, &d.arg_extra);
        if (e != cudaSuccess)
            return e;
    }
    sim_stream *s;
    pthread_mutex_lock(&sim_sched_lock);
    e = sim_stream_resolve(stream, mode.ptds, &s);
    if (e == cudaSuccess && s->device != sim_current_device)
        e = cudaErrorInvalidResourceHandle; /* a stream of another device */
    if (e == cudaSuccess && capturing)
        e = sim_capture_op(s, &d, &captured);
    if (e == cudaSuccess && !captured) {
        sim_op op = {0};
        op.kind = SIM_OP_KERNEL;
        op.engine_device = s->device;
        op.engine = SIM_ENGINE_COMPUTE;
        op.peer_device = -1;
        op.duration_ns = sim_kernel_duration();
        e = sim_submit(s, &op);
    }
    pthread_mutex_unlock(&sim_sched_lock);
    if (capturing)
        free(d.arg_blob); /* unless a node took it */
    return e;
}

static const launch_mode LEGACY = {false, false}, PER_THREAD = {true, false},
                         COOP = {false, true}, COOP_PER_THREAD = {true, true};

/* ---- entry points -------------------------------------------------------------------------- */

SIM_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                     size_t sharedMem, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(func, gridDim, blockDim, sharedMem, stream, args, LEGACY));
}

SIM_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                          void **args, size_t sharedMem, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(func, gridDim, blockDim, sharedMem, stream, args, PER_THREAD));
}

SIM_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                       void **args, size_t sharedMem, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(kernel, gridDim, blockDim, sharedMem, stream, args, LEGACY));
}

SIM_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                            void **args, size_t sharedMem, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(kernel, gridDim, blockDim, sharedMem, stream, args, PER_THREAD));
}

SIM_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem,
                                                cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(func, gridDim, blockDim, sharedMem, stream, args, COOP));
}

SIM_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                                     dim3 blockDim, void **args, size_t sharedMem,
                                                     cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(launch(func, gridDim, blockDim, sharedMem, stream, args, COOP_PER_THREAD));
}

/* Attributes: cooperative launches are honoured; clusters need a device with cluster launch. */
static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args,
                             bool ptds) {
    if (config == NULL || (config->attrs == NULL && config->numAttrs > 0))
        return cudaErrorInvalidValue;
    launch_mode mode = {ptds, false};
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeCooperative)
            mode.cooperative = a->val.cooperative != 0;
        if (a->id == cudaLaunchAttributeClusterDimension &&
            (a->val.clusterDim.x > 1 || a->val.clusterDim.y > 1 || a->val.clusterDim.z > 1) &&
            !sim_cfg.dev[sim_current_device].prop.clusterLaunch)
            return cudaErrorNotSupported;
    }
    return launch(func, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                  config->stream, args, mode);
}

SIM_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                        void **args) {
    SIM_ENTER();
    return sim_result(launch_ex(config, func, args, false));
}

SIM_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                             void **args) {
    SIM_ENTER();
    return sim_result(launch_ex(config, func, args, true));
}

/* ---- occupancy ----------------------------------------------------------------------------- */

static cudaError_t max_active_blocks(int *numBlocks, const void *func, int blockSize,
                                     size_t dynamicSMemSize, unsigned flags) {
    if (numBlocks == NULL || blockSize <= 0 || (flags & ~(unsigned)cudaOccupancyDisableCachingOverride))
        return cudaErrorInvalidValue;
    sim_kernel_limits k;
    cudaError_t e = sim_kernel_limits_of(func, &k);
    if (e == cudaSuccess)
        *numBlocks = blocks_per_sm(&k, &sim_cfg.dev[sim_current_device].prop, blockSize,
                                   dynamicSMemSize);
    return e;
}

SIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                  int blockSize,
                                                                  size_t dynamicSMemSize) {
    SIM_ENTER();
    return sim_result(max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0));
}

SIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    SIM_ENTER();
    return sim_result(max_active_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags));
}

SIM_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                              const void *func, int numBlocks,
                                                              int blockSize) {
    SIM_ENTER();
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        return sim_result(cudaErrorInvalidValue);
    sim_kernel_limits k;
    cudaError_t e = sim_kernel_limits_of(func, &k);
    if (e != cudaSuccess)
        return sim_result(e);
    const struct cudaDeviceProp *p = &sim_cfg.dev[sim_current_device].prop;
    size_t per_block = p->sharedMemPerMultiprocessor / (size_t)numBlocks;
    size_t overhead = k.static_smem + p->reservedSharedMemPerBlock;
    size_t avail = per_block > overhead ? per_block - overhead : 0;
    size_t cap = p->sharedMemPerBlockOptin > k.static_smem ? p->sharedMemPerBlockOptin - k.static_smem
                                                           : 0;
    *dynamicSmemSize = blocks_per_sm(&k, p, blockSize, 0) >= numBlocks ? (avail < cap ? avail : cap)
                                                                        : 0;
    return cudaSuccess;
}
