// Kernel registration and launch on the simulated runtime: launch validation and its error codes,
// cudaFuncGetParamInfo against the known layouts of these kernels, function attributes,
// occupancy, handles, and the explicit launch entry points. test_cubin reads this program's fat
// binary too and checks the same layouts, so keep the kernels' signatures as they are.
#include "check.h"

struct Pod {
    int a;
    double b;
    char c;
}; // 24 bytes, 8-aligned

__global__ void vector_add(float *s, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        s[i] = a[i] + b[i];
}

__global__ void with_struct(int *out, Pod pod, char c, double d) {
    out[0] = pod.a + c + (int)d + (int)pod.b + pod.c;
}

extern "C" __global__ void k_c(int x, void *p, short s) {
    if (p)
        ((int *)p)[0] = x + s;
}

__global__ void no_params() {}

__global__ void __launch_bounds__(256) bounded(float *p) {
    __shared__ float tile[100];
    tile[threadIdx.x % 100] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = tile[(threadIdx.x + 1) % 100];
}

__global__ void dynamic_smem(float *p) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = p[threadIdx.x];
    p[0] = buf[0];
}

static void host_function_not_a_kernel() {}

struct Layout {
    size_t offset, size;
};

static void expect_params(const void *func, const Layout *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t off = 99, size = 99;
        EXPECT_OK(cudaFuncGetParamInfo(func, i, &off, &size));
        EXPECT_EQ(off, want[i].offset);
        EXPECT_EQ(size, want[i].size);
    }
    size_t off, size;
    EXPECT_ERR(cudaFuncGetParamInfo(func, n, &off, &size), cudaErrorInvalidValue);
}

static void param_info() {
    const Layout va[] = {{0, 8}, {8, 8}, {16, 8}, {24, 4}};
    expect_params((const void *)vector_add, va, 4);
    const Layout ws[] = {{0, 8}, {8, 24}, {32, 1}, {40, 8}};
    expect_params((const void *)with_struct, ws, 4);
    const Layout kc[] = {{0, 4}, {8, 8}, {16, 2}};
    expect_params((const void *)k_c, kc, 3);
    expect_params((const void *)no_params, nullptr, 0);
    size_t off, size;
    EXPECT_ERR(cudaFuncGetParamInfo((const void *)host_function_not_a_kernel, 0, &off, &size),
               cudaErrorInvalidDeviceFunction);
    cudaGetLastError();
}

static void launch_validation() {
    float *d;
    EXPECT_OK(cudaMalloc(&d, 4096));
    vector_add<<<4, 256>>>(d, d, d, 1024);
    EXPECT_OK(cudaGetLastError());
    vector_add<<<1, 1025>>>(d, d, d, 1);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    EXPECT_OK(cudaGetLastError()); // cleared by the previous call
    vector_add<<<1, dim3(1, 1, 65)>>>(d, d, d, 1);
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    vector_add<<<dim3(1, 65536), 32>>>(d, d, d, 1);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    vector_add<<<dim3(2147483647u, 65535, 65535), 1024>>>(d, d, d, 1); // the largest grid is fine
    EXPECT_OK(cudaGetLastError());
    vector_add<<<0, 32>>>(d, d, d, 1);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    dynamic_smem<<<1, 32, 48 * 1024>>>(d);
    EXPECT_OK(cudaGetLastError());
    dynamic_smem<<<1, 32, 48 * 1024 + 1>>>(d);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    EXPECT_OK(cudaFuncSetAttribute((const void *)dynamic_smem,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    dynamic_smem<<<1, 32, 100 * 1024>>>(d);
    EXPECT_OK(cudaGetLastError());
    EXPECT_ERR(cudaFuncSetAttribute((const void *)dynamic_smem,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024),
               cudaErrorInvalidValue);
    cudaGetLastError();
    bounded<<<1, 256>>>(d);
    EXPECT_OK(cudaGetLastError());
    bounded<<<1, 512>>>(d); // over its __launch_bounds__
    EXPECT_ERR(cudaGetLastError(), cudaErrorLaunchOutOfResources);

    dim3 one(1), block(32);
    void *args[] = {&d};
    EXPECT_ERR(cudaLaunchKernel((const void *)host_function_not_a_kernel, one, block, args, 0, 0),
               cudaErrorInvalidDeviceFunction);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    EXPECT_ERR(cudaLaunchKernel((const void *)bounded, one, block, args, 0, (cudaStream_t)0x1234),
               cudaErrorInvalidResourceHandle);
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaLaunchKernel((const void *)bounded, one, block, args, 0, s));
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_ERR(cudaLaunchKernel((const void *)bounded, one, block, args, 0, s),
               cudaErrorInvalidResourceHandle);
    EXPECT_OK(cudaLaunchKernel((const void *)bounded, one, block, args, 0, cudaStreamPerThread));
    EXPECT_OK(cudaLaunchKernel((const void *)bounded, one, block, args, 0, cudaStreamLegacy));
    cudaGetLastError();
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaFree(d));
}

static void attributes() {
    cudaFuncAttributes a;
    EXPECT_OK(cudaFuncGetAttributes(&a, (const void *)bounded));
    EXPECT_EQ(a.maxThreadsPerBlock, 256);
    EXPECT_EQ(a.sharedSizeBytes, 400);
    CHECK(a.numRegs > 0 && a.numRegs <= 255);
    CHECK(a.binaryVersion >= 50);
    EXPECT_EQ(a.maxDynamicSharedSizeBytes, 48 * 1024 - 400);
    EXPECT_OK(cudaFuncGetAttributes(&a, (const void *)vector_add));
    EXPECT_EQ(a.maxThreadsPerBlock, 1024);
    EXPECT_EQ(a.sharedSizeBytes, 0);
    EXPECT_ERR(cudaFuncGetAttributes(&a, (const void *)host_function_not_a_kernel),
               cudaErrorInvalidDeviceFunction);
    EXPECT_OK(cudaFuncSetCacheConfig((const void *)vector_add, cudaFuncCachePreferShared));
    EXPECT_ERR(cudaFuncSetCacheConfig((const void *)vector_add, (cudaFuncCache)9),
               cudaErrorInvalidValue);
    EXPECT_OK(cudaFuncSetAttribute((const void *)vector_add,
                                   cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    EXPECT_OK(cudaFuncGetAttributes(&a, (const void *)vector_add));
    EXPECT_EQ(a.preferredShmemCarveout, 50);
    EXPECT_ERR(cudaFuncSetAttribute((const void *)vector_add, (cudaFuncAttribute)77, 1),
               cudaErrorInvalidValue);

    const char *name = nullptr;
    EXPECT_OK(cudaFuncGetName(&name, (const void *)vector_add));
    CHECK(name && strcmp(name, "_Z10vector_addPfPKfS1_i") == 0);
    EXPECT_OK(cudaFuncGetName(&name, (const void *)k_c));
    CHECK(name && strcmp(name, "k_c") == 0);

    cudaKernel_t kernel = nullptr;
    EXPECT_OK(cudaGetKernel(&kernel, (const void *)k_c));
    CHECK(kernel != nullptr);
    size_t off = 0, size = 0;
    EXPECT_OK(cudaFuncGetParamInfo((const void *)kernel, 2, &off, &size)); // a handle works too
    EXPECT_EQ(off, 16);
    EXPECT_EQ(size, 2);
    cudaFunction_t fn = nullptr;
    EXPECT_OK(cudaGetFuncBySymbol(&fn, (const void *)k_c));
    CHECK(fn != nullptr);
    EXPECT_ERR(cudaGetKernel(&kernel, (const void *)host_function_not_a_kernel),
               cudaErrorInvalidDeviceFunction);
    cudaGetLastError();
}

static void occupancy() {
    int blocks = 0;
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vector_add, 256, 0));
    EXPECT_EQ(blocks, 8); // 2048 threads per SM
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded, 512, 0));
    EXPECT_EQ(blocks, 0); // over the kernel's limit
    EXPECT_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic_smem, 32, 64 * 1024));
    EXPECT_EQ(blocks, 2); // 164 KiB of shared memory per SM
    EXPECT_ERR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vector_add, 0, 0),
               cudaErrorInvalidValue);
    int min_grid = 0, block = 0;
    EXPECT_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, vector_add, 0, 0));
    CHECK(block > 0 && block <= 1024 && min_grid >= 108);
    size_t smem = 0;
    EXPECT_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, dynamic_smem, 2, 32));
    CHECK(smem > 48 * 1024 && smem <= 83 * 1024);
    cudaGetLastError();
}

static void extended_launch() {
    int *d;
    EXPECT_OK(cudaMalloc(&d, 256));
    void *args[] = {&d};
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(108);
    cfg.blockDim = dim3(256);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    EXPECT_OK(cudaLaunchKernelExC(&cfg, (const void *)bounded, args));
    cfg.gridDim = dim3(108 * 8 + 1); // more blocks than can be resident at once
    EXPECT_ERR(cudaLaunchKernelExC(&cfg, (const void *)bounded, args),
               cudaErrorCooperativeLaunchTooLarge);
    EXPECT_OK(cudaLaunchCooperativeKernel((const void *)bounded, dim3(108), dim3(256), args, 0, 0));
    EXPECT_ERR(cudaLaunchKernelExC(nullptr, (const void *)bounded, args), cudaErrorInvalidValue);
    cfg.numAttrs = 0;
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(2000);
    EXPECT_ERR(cudaLaunchKernelExC(&cfg, (const void *)bounded, args),
               cudaErrorInvalidConfiguration);
    cudaGetLastError();
    EXPECT_OK(cudaFree(d));
}

extern "C" cudaError_t cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t,
                                             cudaStream_t);

static void per_thread_entry_points() {
    void *args[] = {nullptr};
    EXPECT_OK(cudaLaunchKernel_ptsz((const void *)no_params, dim3(1), dim3(1), args, 0, 0));
    EXPECT_OK(cudaStreamSynchronize(cudaStreamPerThread));
    // A failed launch does not disturb the next one.
    no_params<<<1, 4096>>>();
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    no_params<<<1, 1>>>();
    EXPECT_OK(cudaGetLastError());
}

int main() {
    param_info();
    launch_validation();
    attributes();
    occupancy();
    extended_launch();
    per_thread_entry_points();
    return check_report("sim_launch");
}
