// Pageable and pinned copies in every direction, with exact sizes:
//   pageable (malloc, 64 KiB)       H2D 64 KiB, D2H 64 KiB
//   pinned (cudaMallocHost, 32 KiB) H2D 32 KiB, D2H 32 KiB (async on the default stream)
//   write-combined (8 KiB)          H2D 8 KiB
//   registered (malloc + cudaHostRegister, 16 KiB) H2D 16 KiB
//   device to device 4 KiB, host to host 1 KiB (cudaMemcpyDefault), a 2D copy 8 rows x 256 B
//   memset 64 KiB
#include <cstdlib>
#include <cstring>
#include "check.h"

int main() {
    const size_t page = 64 * 1024, pin = 32 * 1024, wc = 8 * 1024, reg = 16 * 1024;
    char *pageable = (char *)malloc(page);
    char *registered = (char *)aligned_alloc(4096, reg);
    memset(pageable, 1, page);
    char *pinned, *wcbuf, *d, *d2;
    CHECK(cudaMallocHost(&pinned, pin));
    CHECK(cudaHostAlloc(&wcbuf, wc, cudaHostAllocWriteCombined));
    CHECK(cudaHostRegister(registered, reg, cudaHostRegisterDefault));
    CHECK(cudaMalloc(&d, page));
    CHECK(cudaMalloc(&d2, page));
    CHECK(cudaMemcpy(d, pageable, page, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pageable, d, page, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyAsync(d, pinned, pin, cudaMemcpyHostToDevice, 0));
    CHECK(cudaMemcpyAsync(pinned, d, pin, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaMemcpy(d, wcbuf, wc, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d, registered, reg, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d2, d, 4096, cudaMemcpyDeviceToDevice));
    char small_a[1024], small_b[1024];
    memset(small_a, 7, sizeof small_a);
    CHECK(cudaMemcpy(small_b, small_a, sizeof small_a, cudaMemcpyDefault));
    CHECK(cudaMemcpy2D(d2, 512, pinned, 256, 256, 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d, 0, page));
    CHECK(cudaDeviceSynchronize());
    if (small_b[0] != 7) {
        fprintf(stderr, "host-to-host copy did not copy\n");
        return 1;
    }
    CHECK(cudaHostUnregister(registered));
    CHECK(cudaFree(d));
    CHECK(cudaFree(d2));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(wcbuf));
    free(pageable);
    free(registered);
    return 0;
}
