// Memory on the simulated runtime: device allocations (alignment, address range, capacity,
// first-fit reuse after frees, cudaFree errors), pitched and 3D allocations, pinned and
// registered host memory, cudaPointerGetAttributes for every kind of pointer, cudaMemGetInfo,
// and stream-ordered allocation with memory pools.
#include "check.h"

#include <cstdint>

static bool is_device_address(const void *p) {
    cudaPointerAttributes a;
    return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeDevice;
}

static void device_allocations() {
    void *a = nullptr, *b = nullptr, *z = (void *)1;
    EXPECT_OK(cudaMalloc(&a, 1));
    EXPECT_OK(cudaMalloc(&b, 1000));
    CHECK(a != b && is_device_address(a) && is_device_address(b));
    EXPECT_EQ((uintptr_t)a % 256, 0);
    EXPECT_EQ((uintptr_t)b % 256, 0);
    EXPECT_OK(cudaMalloc(&z, 0));
    CHECK(z == nullptr);
    EXPECT_ERR(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
    memset(a, 0, 1); // device memory is host-addressable here; programs must not rely on it

    size_t free0, total;
    EXPECT_OK(cudaMemGetInfo(&free0, &total));
    EXPECT_EQ(total, 42505273344ull);
    void *big;
    EXPECT_OK(cudaMalloc(&big, 100 << 20));
    size_t free1;
    EXPECT_OK(cudaMemGetInfo(&free1, &total));
    EXPECT_EQ(free0 - free1, 100 << 20);
    EXPECT_OK(cudaFree(big));
    EXPECT_OK(cudaMemGetInfo(&free1, &total));
    EXPECT_EQ(free1, free0);

    void *huge;
    EXPECT_ERR(cudaMalloc(&huge, total + 1), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    EXPECT_ERR(cudaMalloc(&huge, free0 + 256), cudaErrorMemoryAllocation);
    EXPECT_OK(cudaMalloc(&huge, 8ull << 30)); // large reservations cost address space only
    EXPECT_OK(cudaFree(huge));

    EXPECT_OK(cudaFree(nullptr));
    EXPECT_ERR(cudaFree((char *)b + 256), cudaErrorInvalidValue); // interior pointer
    int on_stack;
    EXPECT_ERR(cudaFree(&on_stack), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(a));
    EXPECT_ERR(cudaFree(a), cudaErrorInvalidValue); // twice
    EXPECT_OK(cudaFree(b));
    cudaGetLastError();
}

// A small device (64 MiB) to run out of and to see freed space coalesce.
static void capacity() {
    void *p[4];
    for (int i = 0; i < 4; i++)
        EXPECT_OK(cudaMalloc(&p[i], 16 << 20));
    void *more;
    EXPECT_ERR(cudaMalloc(&more, 1), cudaErrorMemoryAllocation);
    EXPECT_OK(cudaFree(p[1]));
    EXPECT_OK(cudaFree(p[2]));
    EXPECT_OK(cudaMalloc(&more, 32 << 20)); // the two freed neighbours, merged
    CHECK(more == p[1]);
    EXPECT_OK(cudaFree(more));
    EXPECT_OK(cudaFree(p[0]));
    EXPECT_OK(cudaFree(p[3]));
    EXPECT_OK(cudaMalloc(&more, 64 << 20)); // everything again
    EXPECT_OK(cudaFree(more));
    cudaGetLastError();
}

static void pitched() {
    void *p;
    size_t pitch = 0;
    EXPECT_OK(cudaMallocPitch(&p, &pitch, 100, 10));
    EXPECT_EQ(pitch, 512);
    EXPECT_OK(cudaMemset2D(p, pitch, 1, 100, 10));
    EXPECT_OK(cudaFree(p));
    EXPECT_OK(cudaMallocPitch(&p, &pitch, 513, 3));
    EXPECT_EQ(pitch, 1024);
    EXPECT_OK(cudaFree(p));
    cudaPitchedPtr pp;
    EXPECT_OK(cudaMalloc3D(&pp, make_cudaExtent(64, 8, 4)));
    EXPECT_EQ(pp.pitch, 512);
    EXPECT_EQ(pp.xsize, 64);
    EXPECT_EQ(pp.ysize, 8);
    EXPECT_OK(cudaMemset3D(pp, 0, make_cudaExtent(64, 8, 4)));
    EXPECT_OK(cudaFree(pp.ptr));
}

static void host_memory() {
    void *h;
    EXPECT_OK(cudaMallocHost(&h, 100));
    EXPECT_EQ((uintptr_t)h % 4096, 0);
    memset(h, 1, 100);
    unsigned flags = 99;
    EXPECT_OK(cudaHostGetFlags(&flags, h));
    EXPECT_EQ(flags, 0);
    void *dev = nullptr;
    EXPECT_OK(cudaHostGetDevicePointer(&dev, h, 0));
    CHECK(dev == h);
    EXPECT_ERR(cudaHostGetDevicePointer(&dev, h, 1), cudaErrorInvalidValue);
    EXPECT_OK(cudaFreeHost(h));
    EXPECT_ERR(cudaFreeHost(h), cudaErrorInvalidValue);
    EXPECT_OK(cudaHostAlloc(&h, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
    EXPECT_OK(cudaHostGetFlags(&flags, h));
    EXPECT_EQ(flags, cudaHostAllocMapped | cudaHostAllocPortable);
    EXPECT_ERR(cudaHostAlloc(&dev, 64, 0x80), cudaErrorInvalidValue);
    void *d;
    EXPECT_OK(cudaMalloc(&d, 64));
    EXPECT_ERR(cudaFreeHost(d), cudaErrorInvalidValue);
    EXPECT_ERR(cudaHostGetFlags(&flags, d), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(h));

    char *buf = (char *)malloc(1 << 16);
    EXPECT_OK(cudaHostRegister(buf, 1 << 16, cudaHostRegisterDefault));
    EXPECT_ERR(cudaHostRegister(buf, 1 << 16, 0), cudaErrorHostMemoryAlreadyRegistered);
    EXPECT_ERR(cudaHostRegister(buf + 100, 10, 0), cudaErrorHostMemoryAlreadyRegistered);
    EXPECT_OK(cudaHostGetDevicePointer(&dev, buf + 10, 0));
    CHECK(dev == buf + 10);
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, buf + 5));
    EXPECT_EQ(a.type, cudaMemoryTypeHost);
    EXPECT_ERR(cudaHostUnregister(buf + 1), cudaErrorHostMemoryNotRegistered);
    EXPECT_OK(cudaHostUnregister(buf));
    EXPECT_ERR(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    EXPECT_ERR(cudaHostRegister(buf, 0, 0), cudaErrorInvalidValue);
    EXPECT_ERR(cudaHostRegister(buf, 64, 0x100), cudaErrorInvalidValue);
    EXPECT_ERR(cudaHostGetDevicePointer(&dev, buf, 0), cudaErrorInvalidValue);
    free(buf);
    cudaGetLastError();
}

static void pointer_attributes() {
    int *d, *h, *m;
    EXPECT_OK(cudaMalloc(&d, 1024));
    EXPECT_OK(cudaMallocHost(&h, 1024));
    EXPECT_OK(cudaMallocManaged(&m, 1024));
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, d + 10));
    EXPECT_EQ(a.type, cudaMemoryTypeDevice);
    EXPECT_EQ(a.device, 0);
    CHECK(a.devicePointer == d + 10 && a.hostPointer == nullptr);
    EXPECT_OK(cudaPointerGetAttributes(&a, h));
    EXPECT_EQ(a.type, cudaMemoryTypeHost);
    CHECK(a.devicePointer == h && a.hostPointer == h);
    EXPECT_OK(cudaPointerGetAttributes(&a, m + 3));
    EXPECT_EQ(a.type, cudaMemoryTypeManaged);
    CHECK(a.devicePointer == m + 3 && a.hostPointer == m + 3);
    int local;
    EXPECT_OK(cudaPointerGetAttributes(&a, &local));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
    EXPECT_OK(cudaPointerGetAttributes(&a, nullptr));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
    EXPECT_ERR(cudaPointerGetAttributes(nullptr, d), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaPointerGetAttributes(&a, d));
    EXPECT_EQ(a.type, cudaMemoryTypeUnregistered); // freed
    EXPECT_OK(cudaFreeHost(h));
    EXPECT_OK(cudaFree(m));
    cudaGetLastError();
}

static void pools() {
    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    cudaMemPool_t pool, current;
    EXPECT_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
    EXPECT_OK(cudaDeviceGetMemPool(&current, 0));
    CHECK(pool == current);
    void *p, *q;
    EXPECT_OK(cudaMallocAsync(&p, 1000, s));
    CHECK(is_device_address(p));
    unsigned long long used = 0, high = 0;
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 1024);
    EXPECT_OK(cudaMallocAsync(&q, 4096, s));
    EXPECT_OK(cudaFreeAsync(p, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 4096);
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    EXPECT_EQ(high, 5120);
    unsigned long long zero = 0, one = 1;
    EXPECT_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    EXPECT_EQ(high, 4096);
    EXPECT_ERR(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one),
               cudaErrorInvalidValue);
    unsigned long long threshold = 1 << 20, got = 0;
    EXPECT_OK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
    EXPECT_EQ(got, 1 << 20);
    int reuse = -1;
    EXPECT_OK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
    EXPECT_EQ(reuse, 1);
    EXPECT_OK(cudaMemPoolTrimTo(pool, 0));
    EXPECT_OK(cudaFreeAsync(q, s));
    EXPECT_ERR(cudaFreeAsync((char *)q + 8, s), cudaErrorInvalidValue);

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t mine;
    EXPECT_OK(cudaMemPoolCreate(&mine, &props));
    EXPECT_OK(cudaMallocFromPoolAsync(&p, 256, mine, s));
    EXPECT_OK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 256);
    EXPECT_OK(cudaDeviceSetMemPool(0, mine));
    EXPECT_OK(cudaDeviceGetMemPool(&current, 0));
    CHECK(current == mine);
    EXPECT_OK(cudaFree(p)); // cudaFree works on pool memory too
    EXPECT_OK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT_EQ(used, 0);
    EXPECT_OK(cudaMemPoolDestroy(mine));
    EXPECT_OK(cudaDeviceGetMemPool(&current, 0));
    CHECK(current == pool);
    EXPECT_ERR(cudaMemPoolDestroy(mine), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemPoolDestroy(pool), cudaErrorInvalidValue); // the default pool
    props.allocType = cudaMemAllocationTypeManaged;
    EXPECT_ERR(cudaMemPoolCreate(&mine, &props), cudaErrorInvalidValue);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.id = 5;
    EXPECT_ERR(cudaMemPoolCreate(&mine, &props), cudaErrorInvalidDevice);
    EXPECT_ERR(cudaMallocFromPoolAsync(&p, 16, (cudaMemPool_t)0x77, s), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMallocAsync(&p, 16, (cudaStream_t)0x77), cudaErrorInvalidResourceHandle);
    cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
    EXPECT_OK(cudaMemGetDefaultMemPool(&current, &loc, cudaMemAllocationTypePinned));
    CHECK(current == pool);
    EXPECT_OK(cudaStreamDestroy(s));
    cudaGetLastError();
}

int main(int argc, char **argv) {
    if (argc > 1 && std::string(argv[1]) == "small") {
        capacity();
        return check_report("sim_memory small");
    }
    device_allocations();
    pitched();
    host_memory();
    pointer_attributes();
    pools();
    std::string cfg = write_config("memory", "[device 0]\ntotal_global_mem = 64MiB\n");
    std::string env = "APPTRACE_SIM_CONFIG=" + cfg;
    const char *small[] = {env.c_str(), nullptr};
    EXPECT_EQ(run_child(argv[0], "small", small), 0);
    unlink(cfg.c_str());
    return check_report("sim_memory");
}
