/* Loads the CUDA runtime itself, late (dlopen, RTLD_LOCAL), and calls it only through pointers
 * from dlsym on the handle, as frameworks that load CUDA on demand do:
 *   cudaMalloc, 8 cudaMemset (values 1..8, each over the previous), 8 cudaMemcpy to the host
 *   (each checked), cudaDeviceSynchronize, cudaFree
 * Prints "sum N" (N = the sum of every byte copied back) and "dlsym ok" when every function was
 * found (and dlerror reported no error after the first lookup). Built with the C compiler: nothing links against libcudart. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*malloc_fn)(void **, size_t);
typedef int (*memset_fn)(void *, int, size_t);
typedef int (*memcpy_fn)(void *, const void *, size_t, int);
typedef int (*sync_fn)(void);
typedef int (*free_fn)(void *);

#define BYTES 4096
#define DEVICE_TO_HOST 2

int main(void) {
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (rt == NULL) {
        fprintf(stderr, "late_dlopen: %s\n", dlerror());
        return 2;
    }
    /* The POSIX way to check a lookup: clear the error, look up, ask for the error. */
    dlerror();
    malloc_fn cmalloc = (malloc_fn)dlsym(rt, "cudaMalloc");
    if (dlerror() != NULL) return 7;
    memset_fn cmemset = (memset_fn)dlsym(rt, "cudaMemset");
    memcpy_fn cmemcpy = (memcpy_fn)dlsym(rt, "cudaMemcpy");
    sync_fn csync = (sync_fn)dlsym(rt, "cudaDeviceSynchronize");
    free_fn cfree = (free_fn)dlsym(rt, "cudaFree");
    if (!cmalloc || !cmemset || !cmemcpy || !csync || !cfree) return 3;
    void *d;
    unsigned char host[BYTES];
    if (cmalloc(&d, BYTES) != 0) return 4;
    long sum = 0;
    for (int v = 1; v <= 8; v++) {
        if (cmemset(d, v, BYTES) != 0 || cmemcpy(host, d, BYTES, DEVICE_TO_HOST) != 0) return 5;
        for (int i = 0; i < BYTES; i++) sum += host[i];
    }
    if (csync() != 0 || cfree(d) != 0) return 6;
    printf("sum %ld\ndlsym ok\n", sum);
    return 0;
}
