// Device variables on the simulated runtime: initial values from the cubin, cudaMemcpyToSymbol /
// FromSymbol (sync and async, offsets, kinds, errors), cudaGetSymbolAddress / Size, __constant__
// and __managed__ variables. test_cubin reads `initialized` and `zeroed` from this program too.
#include "check.h"

__device__ int initialized[4] = {1, 2, 3, 4};
__device__ int zeroed;
__constant__ float coefficients[8] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
__managed__ int managed_counter = 42;
__managed__ double managed_pair[2] = {3.0, 4.0};
static int not_a_symbol;

__global__ void use(int *out) {
    out[0] = initialized[1] + zeroed + (int)coefficients[2] + managed_counter;
}

static void initial_values() {
    int v[4] = {0, 0, 0, 0};
    EXPECT_OK(cudaMemcpyFromSymbol(v, initialized, sizeof v));
    EXPECT_EQ(v[0], 1);
    EXPECT_EQ(v[3], 4);
    int z = -1;
    EXPECT_OK(cudaMemcpyFromSymbol(&z, zeroed, sizeof z));
    EXPECT_EQ(z, 0);
    float c[8];
    EXPECT_OK(cudaMemcpyFromSymbol(c, coefficients, sizeof c));
    EXPECT_NEAR(c[7], 7.5, 0);
    // Managed variables are host-readable directly, with their initial values.
    EXPECT_EQ(managed_counter, 42);
    EXPECT_NEAR(managed_pair[1], 4.0, 0);
}

static void round_trips() {
    int w[4] = {10, 20, 30, 40}, r[4] = {0, 0, 0, 0};
    EXPECT_OK(cudaMemcpyToSymbol(initialized, w, sizeof w));
    EXPECT_OK(cudaMemcpyFromSymbol(r, initialized, sizeof r));
    EXPECT_EQ(r[2], 30);
    int nine = 9;
    EXPECT_OK(cudaMemcpyToSymbol(initialized, &nine, sizeof nine, 3 * sizeof(int)));
    EXPECT_OK(cudaMemcpyFromSymbol(&r[0], initialized, sizeof(int), 3 * sizeof(int)));
    EXPECT_EQ(r[0], 9);

    cudaStream_t s;
    EXPECT_OK(cudaStreamCreate(&s));
    int *pinned;
    EXPECT_OK(cudaMallocHost(&pinned, 4 * sizeof(int)));
    pinned[0] = 77;
    EXPECT_OK(cudaMemcpyToSymbolAsync(zeroed, pinned, sizeof(int), 0, cudaMemcpyHostToDevice, s));
    pinned[1] = 0;
    EXPECT_OK(cudaMemcpyFromSymbolAsync(&pinned[1], zeroed, sizeof(int), 0,
                                        cudaMemcpyDeviceToHost, s));
    EXPECT_OK(cudaStreamSynchronize(s));
    EXPECT_EQ(pinned[1], 77);

    // Device to device through the symbol's address, and cudaMemcpyDefault.
    int *addr = nullptr;
    EXPECT_OK(cudaGetSymbolAddress((void **)&addr, initialized));
    CHECK(addr != nullptr);
    int *d;
    EXPECT_OK(cudaMalloc(&d, 4 * sizeof(int)));
    EXPECT_OK(cudaMemcpy(d, addr, 4 * sizeof(int), cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaMemcpyToSymbol(zeroed, d + 1, sizeof(int), 0, cudaMemcpyDeviceToDevice));
    EXPECT_OK(cudaMemcpyFromSymbol(&r[0], zeroed, sizeof(int), 0, cudaMemcpyDefault));
    EXPECT_EQ(r[0], 20);
    size_t size = 0;
    EXPECT_OK(cudaGetSymbolSize(&size, coefficients));
    EXPECT_EQ(size, 8 * sizeof(float));
    EXPECT_OK(cudaGetSymbolSize(&size, managed_counter));
    EXPECT_EQ(size, sizeof(int));

    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, addr));
    EXPECT_EQ(a.type, cudaMemoryTypeDevice);
    EXPECT_ERR(cudaFree(addr), cudaErrorInvalidValue); // not a cudaMalloc allocation
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_OK(cudaFree(d));
    EXPECT_OK(cudaFreeHost(pinned));
    EXPECT_OK(cudaStreamDestroy(s));
}

static void managed() {
    managed_counter = 5; // the host writes managed memory directly
    int v = 0;
    EXPECT_OK(cudaMemcpyFromSymbol(&v, managed_counter, sizeof v));
    EXPECT_EQ(v, 5);
    int seven = 7;
    EXPECT_OK(cudaMemcpyToSymbol(managed_counter, &seven, sizeof seven));
    EXPECT_EQ(managed_counter, 7);
    cudaPointerAttributes a;
    EXPECT_OK(cudaPointerGetAttributes(&a, &managed_counter));
    EXPECT_EQ(a.type, cudaMemoryTypeManaged);
    int *out;
    EXPECT_OK(cudaMalloc(&out, sizeof(int)));
    use<<<1, 1>>>(out);
    EXPECT_OK(cudaGetLastError());
    EXPECT_OK(cudaDeviceSynchronize());
    EXPECT_OK(cudaFree(out));
}

static void errors() {
    int v[8];
    EXPECT_ERR(cudaMemcpyToSymbol(not_a_symbol, v, sizeof(int)), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaMemcpyFromSymbol(v, not_a_symbol, sizeof(int)), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaMemcpyToSymbol(initialized, v, 5 * sizeof(int)), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(initialized, v, sizeof(int), 4 * sizeof(int)),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(initialized, v, 2 * sizeof(int), 3 * sizeof(int)),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpyToSymbol(initialized, v, sizeof(int), 0, cudaMemcpyDeviceToHost),
               cudaErrorInvalidMemcpyDirection);
    EXPECT_ERR(cudaMemcpyFromSymbol(v, initialized, sizeof(int), 0, cudaMemcpyHostToDevice),
               cudaErrorInvalidMemcpyDirection);
    void *p;
    size_t size;
    EXPECT_ERR(cudaGetSymbolAddress(&p, &not_a_symbol), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaGetSymbolSize(&size, &not_a_symbol), cudaErrorInvalidSymbol);
    EXPECT_ERR(cudaMemcpyToSymbolAsync(initialized, v, sizeof(int), 0, cudaMemcpyHostToDevice,
                                       (cudaStream_t)0x999),
               cudaErrorInvalidResourceHandle);
    cudaGetLastError();
}

// After a reset, module variables start again from their initial values.
static void reset() {
    int w = 1234, r = 0;
    EXPECT_OK(cudaMemcpyToSymbol(initialized, &w, sizeof w));
    EXPECT_OK(cudaDeviceReset());
    EXPECT_OK(cudaMemcpyFromSymbol(&r, initialized, sizeof r));
    EXPECT_EQ(r, 1);
    EXPECT_EQ(managed_counter, 7); // managed variables survive
}

int main() {
    initial_values();
    round_trips();
    managed();
    errors();
    reset();
    return check_report("sim_symbols");
}
