/* The baseline for the interposer's overhead: an LD_PRELOAD shim that only forwards the calls the
 * benchmark makes (cudaMemcpyAsync and the CUDA 13 launch path), resolving the originals once
 * with dlsym(RTLD_NEXT), and records nothing. See docs/BENCHMARKS.md. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#define EXPORT __attribute__((visibility("default")))

cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s) {
    static __typeof__(&cudaMemcpyAsync) real;
    if (real == NULL) real = (__typeof__(real))dlsym(RTLD_NEXT, "cudaMemcpyAsync");
    return real(dst, src, n, k, s);
}

EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s) {
    static __typeof__(&__cudaLaunchKernel) real;
    if (real == NULL) real = (__typeof__(real))dlsym(RTLD_NEXT, "__cudaLaunchKernel");
    return real(k, g, b, args, shm, s);
}
