// The simulated NCCL (libnccl.so.2) in one process: two communicators of ncclCommInitAll on two
// simulated devices, driven from one thread in groups as NCCL requires. Every collective and
// send/receive moves real bytes with NCCL's semantics, for each reduction over the common types
// (half and bfloat16 rounded to nearest even), in stream order (a copy queued before a collective
// is what it reduces, a copy queued after sees its result), and bad arguments get NCCL's codes.
// Multi-process communicators (ncclCommInitRank over MPI) are tested by tests/mpi/nccl_allreduce.cu.
#include "check.h"

#include <nccl.h>

#include <cstdint>
#include <vector>

#define EXPECT_NCCL(call, want)                                                                    \
    do {                                                                                           \
        check_count++;                                                                             \
        ncclResult_t got_ = (call);                                                                \
        if (got_ != (want)) {                                                                      \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, __LINE__, #call, \
                    (int)got_, ncclGetErrorString(got_), (int)(want));                             \
        }                                                                                          \
    } while (0)
#define NCCL_OK(call) EXPECT_NCCL(call, ncclSuccess)

static ncclComm_t comm[2];
static cudaStream_t stream[2];

// Runs ncclAllReduce of `in[r]` (n elements of T) on both ranks; the results.
template <typename T>
static std::vector<std::vector<T>> all_reduce(const std::vector<T> in[2], ncclDataType_t type, ncclRedOp_t op) {
    size_t n = in[0].size();
    T *buf[2];
    for (int r = 0; r < 2; r++) {
        EXPECT_OK(cudaSetDevice(r));
        EXPECT_OK(cudaMalloc(&buf[r], n * sizeof(T)));
        EXPECT_OK(cudaMemcpyAsync(buf[r], in[r].data(), n * sizeof(T), cudaMemcpyHostToDevice, stream[r]));
    }
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) NCCL_OK(ncclAllReduce(buf[r], buf[r], n, type, op, comm[r], stream[r]));
    NCCL_OK(ncclGroupEnd());
    std::vector<std::vector<T>> out(2, std::vector<T>(n));
    for (int r = 0; r < 2; r++) {
        EXPECT_OK(cudaMemcpyAsync(out[r].data(), buf[r], n * sizeof(T), cudaMemcpyDeviceToHost, stream[r]));
        EXPECT_OK(cudaStreamSynchronize(stream[r]));
        EXPECT_OK(cudaFree(buf[r]));
    }
    return out;
}

template <typename T>
static void check_ops(ncclDataType_t type) {
    const size_t n = 100000; // more than one staging chunk for every type
    std::vector<T> in[2] = {std::vector<T>(n), std::vector<T>(n)};
    for (size_t i = 0; i < n; i++) {
        in[0][i] = (T)(i % 5 + 1);
        in[1][i] = (T)(i % 3 + 2);
    }
    for (ncclRedOp_t op : {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg}) {
        auto out = all_reduce(in, type, op);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            double a = (double)in[0][i], b = (double)in[1][i];
            double want = op == ncclSum ? a + b : op == ncclProd ? a * b : op == ncclMax ? (a > b ? a : b)
                        : op == ncclMin ? (a < b ? a : b) : (double)(T)((T)(a + b) / (T)2);
            if ((double)out[0][i] != want || (double)out[1][i] != want) bad++;
        }
        EXPECT_EQ(bad, 0);
    }
}

// Half and bfloat16 as bits: 1.5 + 2.25 = 3.75 exactly; a sum halfway between two halves rounds
// to the even one.
static void check_16_bit() {
    const size_t n = 1000;
    std::vector<uint16_t> half[2] = {std::vector<uint16_t>(n, 0x3e00), std::vector<uint16_t>(n, 0x4080)};
    auto h = all_reduce(half, ncclFloat16, ncclSum);
    EXPECT_EQ(h[0][7], 0x4380); // 3.75
    EXPECT_EQ(h[1][999], 0x4380);
    std::vector<uint16_t> bf[2] = {std::vector<uint16_t>(n, 0x3fc0), std::vector<uint16_t>(n, 0x4010)};
    auto b = all_reduce(bf, ncclBfloat16, ncclSum);
    EXPECT_EQ(b[0][0], 0x4070); // 1.5 + 2.25 = 3.75
    std::vector<uint16_t> tie[2] = {std::vector<uint16_t>(n, 0x3c00), std::vector<uint16_t>(n, 0x1000)};
    tie[0][1] = 0x3c01;
    auto t = all_reduce(tie, ncclFloat16, ncclSum);
    EXPECT_EQ(t[0][0], 0x3c00); // 1 + 2^-11: down to 1
    EXPECT_EQ(t[1][1], 0x3c02); // (1 + 2^-10) + 2^-11: up to 1 + 2^-9
}

static void check_collectives() {
    const size_t n = 70000;
    float *send[2], *recv[2];
    std::vector<float> host(2 * n);
    for (int r = 0; r < 2; r++) {
        EXPECT_OK(cudaSetDevice(r));
        EXPECT_OK(cudaMalloc(&send[r], 2 * n * sizeof(float)));
        EXPECT_OK(cudaMalloc(&recv[r], 2 * n * sizeof(float)));
        for (size_t i = 0; i < 2 * n; i++) host[i] = (float)(r * 1000000 + i);
        EXPECT_OK(cudaMemcpy(send[r], host.data(), 2 * n * sizeof(float), cudaMemcpyHostToDevice));
    }
    // broadcast from rank 1, reduce to rank 1, all-gather, reduce-scatter, then a send/receive swap
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) NCCL_OK(ncclBroadcast(send[r], recv[r], n, ncclFloat, 1, comm[r], stream[r]));
    NCCL_OK(ncclGroupEnd());
    for (int r = 0; r < 2; r++) {
        EXPECT_OK(cudaMemcpy(host.data(), recv[r], n * sizeof(float), cudaMemcpyDeviceToHost));
        EXPECT_EQ(host[n - 1], 1000000 + n - 1);
    }
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) NCCL_OK(ncclReduce(send[r], recv[r], n, ncclFloat, ncclSum, 1, comm[r], stream[r]));
    NCCL_OK(ncclGroupEnd());
    EXPECT_OK(cudaMemcpy(host.data(), recv[1], n * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[10], 1000000 + 2 * 10);
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) NCCL_OK(ncclAllGather(send[r], recv[r], n, ncclFloat, comm[r], stream[r]));
    NCCL_OK(ncclGroupEnd());
    EXPECT_OK(cudaMemcpy(host.data(), recv[0], 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[5], 5);
    EXPECT_EQ(host[n + 5], 1000000 + 5);
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) NCCL_OK(ncclReduceScatter(send[r], recv[r], n, ncclFloat, ncclMin, comm[r], stream[r]));
    NCCL_OK(ncclGroupEnd());
    EXPECT_OK(cudaMemcpy(host.data(), recv[1], n * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[3], n + 3); // rank 1's block of rank 0's input is the smaller
    NCCL_OK(ncclGroupStart());
    for (int r = 0; r < 2; r++) {
        NCCL_OK(ncclSend(send[r], 2 * n, ncclFloat, 1 - r, comm[r], stream[r]));
        NCCL_OK(ncclRecv(recv[r], 2 * n, ncclFloat, 1 - r, comm[r], stream[r]));
    }
    NCCL_OK(ncclGroupEnd());
    EXPECT_OK(cudaMemcpy(host.data(), recv[0], 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[2 * n - 1], 1000000 + 2 * n - 1);
    for (int r = 0; r < 2; r++) {
        EXPECT_OK(cudaFree(send[r]));
        EXPECT_OK(cudaFree(recv[r]));
    }
}

static void check_errors() {
    float *buf;
    EXPECT_OK(cudaSetDevice(0));
    EXPECT_OK(cudaMalloc(&buf, 1024));
    EXPECT_NCCL(ncclAllReduce(buf, buf, 4, ncclFloat, (ncclRedOp_t)9, comm[0], stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclAllReduce(buf, buf, 4, (ncclDataType_t)42, ncclSum, comm[0], stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclBroadcast(buf, buf, 4, ncclFloat, 2, comm[0], stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclSend(buf, 4, ncclFloat, -1, comm[0], stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclAllReduce(buf, buf, 4, ncclFloat, ncclSum, nullptr, stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclGroupEnd(), ncclInvalidUsage);
    // an error inside a group is returned again by ncclGroupEnd, and the group is dropped
    NCCL_OK(ncclGroupStart());
    EXPECT_NCCL(ncclRecv(nullptr, 4, ncclFloat, 1, comm[0], stream[0]), ncclInvalidArgument);
    EXPECT_NCCL(ncclGroupEnd(), ncclInvalidArgument);
    ncclComm_t one;
    ncclUniqueId id;
    NCCL_OK(ncclGetUniqueId(&id));
    EXPECT_NCCL(ncclCommInitRank(&one, 2, id, 2), ncclInvalidArgument);
    id.internal[0] ^= 1;
    EXPECT_NCCL(ncclCommInitRank(&one, 1, id, 0), ncclInvalidArgument); // not an id ncclGetUniqueId made
    EXPECT_OK(cudaFree(buf));
}

int main() {
    setenv("APPTRACE_SIM_DEVICES", "2", 1);
    int version = 0;
    NCCL_OK(ncclGetVersion(&version));
    EXPECT_EQ(version, NCCL_VERSION_CODE);
    CHECK(strcmp(ncclGetErrorString(ncclInvalidUsage), "invalid usage (run with NCCL_DEBUG=WARN for details)") == 0);
    int devs[2] = {0, 1};
    NCCL_OK(ncclCommInitAll(comm, 2, devs));
    for (int r = 0; r < 2; r++) {
        int v = -1;
        NCCL_OK(ncclCommUserRank(comm[r], &v));
        EXPECT_EQ(v, r);
        NCCL_OK(ncclCommCount(comm[r], &v));
        EXPECT_EQ(v, 2);
        NCCL_OK(ncclCommCuDevice(comm[r], &v));
        EXPECT_EQ(v, r);
        EXPECT_OK(cudaSetDevice(r));
        EXPECT_OK(cudaStreamCreate(&stream[r]));
    }
    check_ops<float>(ncclFloat);
    check_ops<double>(ncclDouble);
    check_ops<int32_t>(ncclInt32);
    check_ops<uint64_t>(ncclUint64);
    check_ops<int8_t>(ncclInt8);
    check_16_bit();
    check_collectives();
    check_errors();
    for (int r = 0; r < 2; r++) NCCL_OK(ncclCommDestroy(comm[r]));
    return check_report("sim_nccl");
}
