// Copies and memsets on the simulated runtime: bytes really move, in every direction and shape
// (1D, 2D, 3D, sync, async, per-thread entry points), and the validation matches CUDA's: ranges
// inside live allocations, kinds that agree with the pointers, pitches, directions.
#include "check.h"

#include <cstdint>
#include <vector>

extern "C" cudaError_t cudaMemcpy_ptds(void *, const void *, size_t, cudaMemcpyKind);
extern "C" cudaError_t cudaMemcpyAsync_ptsz(void *, const void *, size_t, cudaMemcpyKind,
                                            cudaStream_t);
extern "C" cudaError_t cudaMemsetAsync_ptsz(void *, int, size_t, cudaStream_t);

static std::vector<int> iota(int n, int from) {
    std::vector<int> v(n);
    for (int i = 0; i < n; i++)
        v[i] = from + i;
    return v;
}

static void directions() {
    const int n = 1000;
    const size_t bytes = n * sizeof(int);
    std::vector<int> src = iota(n, 7), back(n, 0);
    int *d1, *d2, *pinned, *managed;
    EXPECT_OK(cudaMalloc(&d1, bytes));
    EXPECT_OK(cudaMalloc(&d2, bytes));
    EXPECT_OK(cudaMallocHost(&pinned, bytes));
    EXPECT_OK(cudaMallocManaged(&managed, bytes));
    EXPECT_OK(cudaMemcpy(d1, src.data(), bytes, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(d2, d1, bytes, cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaMemcpy(pinned, d2, bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(pinned[999], 1006);
    EXPECT_OK(cudaMemcpy(back.data(), pinned, bytes, cudaMemcpyHostToHost));
    CHECK(back == src);
    // cudaMemcpyDefault: the direction comes from the pointers.
    std::fill(back.begin(), back.end(), 0);
    EXPECT_OK(cudaMemcpy(d1 + 1, src.data(), 4, cudaMemcpyDefault));
    EXPECT_OK(cudaMemcpy(managed, d1, bytes, cudaMemcpyDefault));
    EXPECT_EQ(managed[1], 7);
    EXPECT_OK(cudaMemcpy(back.data(), managed, bytes, cudaMemcpyDefault));
    EXPECT_EQ(back[0], 7);
    EXPECT_EQ(back[2], 9);
    // Managed memory works with every explicit kind that names a device side.
    EXPECT_OK(cudaMemcpy(managed, src.data(), 8, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(back.data(), managed, 8, cudaMemcpyDeviceToHost));
    EXPECT_OK(cudaMemcpy(back.data(), managed, 8, cudaMemcpyHostToHost));
    // Overlapping copy within one allocation behaves like memmove.
    EXPECT_OK(cudaMemcpy(d1, src.data(), bytes, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemcpy(d1 + 1, d1, bytes - 4, cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaMemcpy(back.data(), d1, bytes, cudaMemcpyDeviceToHost));
    EXPECT_EQ(back[1], 7);
    EXPECT_EQ(back[999], 1005);

    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    EXPECT_OK(cudaMemcpyAsync(d2, pinned, bytes, cudaMemcpyHostToDevice, s));
    EXPECT_OK(cudaMemsetAsync(d2, 0, 8, s));
    EXPECT_OK(cudaMemcpyAsync(back.data(), d2, bytes, cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(back[0], 0);
    EXPECT_EQ(back[2], 9);
    EXPECT_OK(cudaMemcpy_ptds(d2, src.data(), 4, cudaMemcpyHostToDevice));
    EXPECT_OK(cudaMemsetAsync_ptsz(d2 + 1, 0, 4, 0));
    EXPECT_OK(cudaMemcpyAsync_ptsz(back.data(), d2, 8, cudaMemcpyDeviceToHost, 0));
    EXPECT_OK(cudaStreamSynchronize(cudaStreamPerThread));
    EXPECT_EQ(back[0], 7);
    EXPECT_EQ(back[1], 0);
    EXPECT_OK(cudaStreamDestroy(s));
    EXPECT_OK(cudaFree(d1));
    EXPECT_OK(cudaFree(d2));
    EXPECT_OK(cudaFreeHost(pinned));
    EXPECT_OK(cudaFree(managed));
}

static void validation() {
    int *d, *gone;
    int host[64];
    EXPECT_OK(cudaMalloc(&d, 256));
    EXPECT_OK(cudaMalloc(&gone, 256));
    EXPECT_OK(cudaFree(gone));
    EXPECT_ERR(cudaMemcpy(d, host, 257, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d + 60, host, 20, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(host, d + 63, 8, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(gone, host, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(host, gone, 4, cudaMemcpyDefault), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(host, host + 8, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, host, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, host, 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(host, d, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, d + 1, 4, cudaMemcpyHostToHost), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, host, 4, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
    EXPECT_ERR(cudaMemcpy(nullptr, host, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy(d, nullptr, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT_OK(cudaMemcpy(d, host, 0, cudaMemcpyHostToDevice)); // nothing to do
    EXPECT_ERR(cudaMemcpyAsync(d, host, 4, cudaMemcpyHostToDevice, (cudaStream_t)0x42),
               cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaMemset(host, 0, 4), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemset(d, 0, 257), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemset(gone, 0, 4), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy2D(d, 16, host, 16, 32, 2, cudaMemcpyHostToDevice),
               cudaErrorInvalidPitchValue);
    EXPECT_ERR(cudaMemcpy2D(d, 64, host, 64, 64, 5, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue); // 5 rows of 64 bytes: past the 256-byte allocation
    EXPECT_ERR(cudaMemset2D(d, 16, 0, 32, 2), cudaErrorInvalidPitchValue);
    cudaMemcpy3DParms p = {};
    p.srcArray = (cudaArray_t)0x10;
    EXPECT_ERR(cudaMemcpy3D(&p), cudaErrorNotSupported);
    EXPECT_ERR(cudaMemcpy3D(nullptr), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(d));
    cudaGetLastError();
}

static void shapes() {
    // 2D: a 4x3 block out of a pitched device image and back into a tight host array.
    const int w = 8, h = 5;
    std::vector<int> img = iota(w * h, 0), out(4 * 3, -1);
    int *d;
    size_t pitch;
    EXPECT_OK(cudaMallocPitch(&d, &pitch, w * sizeof(int), h));
    EXPECT_OK(cudaMemcpy2D(d, pitch, img.data(), w * sizeof(int), w * sizeof(int), h,
                           cudaMemcpyHostToDevice));
    int *origin = (int *)((char *)d + 1 * pitch) + 2; // row 1, column 2
    EXPECT_OK(cudaMemcpy2D(out.data(), 4 * sizeof(int), origin, pitch, 4 * sizeof(int), 3,
                           cudaMemcpyDeviceToHost));
    EXPECT_EQ(out[0], 1 * w + 2);
    EXPECT_EQ(out[3], 1 * w + 5);
    EXPECT_EQ(out[4], 2 * w + 2);
    EXPECT_EQ(out[11], 3 * w + 5);
    EXPECT_OK(cudaMemset2D(origin, pitch, 0, 4 * sizeof(int), 3));
    EXPECT_OK(cudaMemcpy2DAsync(img.data(), w * sizeof(int), d, pitch, w * sizeof(int), h,
                                cudaMemcpyDeviceToHost, 0));
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_EQ(img[1 * w + 1], 1 * w + 1);
    EXPECT_EQ(img[1 * w + 2], 0);
    EXPECT_EQ(img[3 * w + 5], 0);
    EXPECT_EQ(img[3 * w + 6], 3 * w + 6);
    EXPECT_OK(cudaFree(d));

    // 3D: a 2x2x2 box at (1,1,1) of a 4x4x4 volume of bytes.
    unsigned char vol[64], box[8];
    for (int i = 0; i < 64; i++)
        vol[i] = (unsigned char)i;
    cudaPitchedPtr dv;
    cudaExtent ext = make_cudaExtent(4, 4, 4);
    EXPECT_OK(cudaMalloc3D(&dv, ext));
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(vol, 4, 4, 4);
    up.dstPtr = dv;
    up.extent = ext;
    up.kind = cudaMemcpyHostToDevice;
    EXPECT_OK(cudaMemcpy3D(&up));
    cudaMemcpy3DParms down = {};
    down.srcPtr = dv;
    down.srcPos = make_cudaPos(1, 1, 1);
    down.dstPtr = make_cudaPitchedPtr(box, 2, 2, 2);
    down.extent = make_cudaExtent(2, 2, 2);
    down.kind = cudaMemcpyDeviceToHost;
    EXPECT_OK(cudaMemcpy3DAsync(&down, 0));
    EXPECT_OK(cudaStreamSynchronize(0));
    EXPECT_EQ(box[0], 16 + 4 + 1);
    EXPECT_EQ(box[1], 16 + 4 + 2);
    EXPECT_EQ(box[2], 16 + 8 + 1);
    EXPECT_EQ(box[7], 32 + 8 + 2);
    EXPECT_OK(cudaMemset3D(dv, 0xab, make_cudaExtent(4, 4, 1)));
    EXPECT_OK(cudaMemcpy3D(&down));
    EXPECT_EQ(box[0], 16 + 4 + 1); // slice 0 only was set
    down.srcPos = make_cudaPos(0, 0, 0);
    EXPECT_OK(cudaMemcpy3D(&down));
    EXPECT_EQ(box[0], 0xab);
    EXPECT_EQ(box[4], 16); // slice 1, row 0, byte 0
    EXPECT_OK(cudaFree(dv.ptr));

    // Memset patterns and sizes.
    unsigned char *m, bytes[300];
    EXPECT_OK(cudaMalloc(&m, 300));
    EXPECT_OK(cudaMemset(m, 0x5a, 300));
    EXPECT_OK(cudaMemset(m + 100, 0, 100));
    EXPECT_OK(cudaMemcpy(bytes, m, 300, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bytes[99], 0x5a);
    EXPECT_EQ(bytes[100], 0);
    EXPECT_EQ(bytes[199], 0);
    EXPECT_EQ(bytes[200], 0x5a);
    EXPECT_OK(cudaMemset(m, 0x1ff, 1)); // only the low byte counts
    EXPECT_OK(cudaMemcpy(bytes, m, 1, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bytes[0], 0xff);
    EXPECT_OK(cudaFree(m));

    // Pinned host memory can be a memset target (it is mapped), pageable memory cannot.
    int *ph;
    EXPECT_OK(cudaMallocHost(&ph, 64));
    EXPECT_OK(cudaMemset(ph, 0, 64));
    EXPECT_EQ(ph[15], 0);
    EXPECT_OK(cudaFreeHost(ph));
}

int main() {
    directions();
    validation();
    shapes();
    return check_report("sim_copies");
}
