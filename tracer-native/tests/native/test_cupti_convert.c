/* Unit test of cupti_convert.c with synthetic CUPTI activity records (CUDA 13 layouts). No
 * machine here has a GPU, so this is the only way the conversion is exercised: each record is
 * built as CUPTI would fill it, converted, and every field compared. */
#include <stdio.h>
#include <string.h>

#include "cupti_convert.h"

static int failures;

#define EXPECT(cond)                                                     \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);       \
            failures++;                                                  \
        }                                                                \
    } while (0)

static void memcpy_pinned_h2d(void) {
    CUpti_ActivityMemcpy6 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
    r.bytes = 1 << 20;
    r.start = 1000;
    r.end = 91000;
    r.deviceId = 1;
    r.contextId = 5;
    r.streamId = 13;
    r.correlationId = 77;
    r.graphId = 3;
    r.graphNodeId = 0x100000002ull;
    enc_gpu g;
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.kind == PB_GpuActivityKind_GPU_MEMCPY);
    EXPECT(g.copy_kind == PB_CopyKind_HOST_TO_DEVICE);
    EXPECT(g.src_kind == PB_MemoryKind_PINNED);
    EXPECT(g.dst_kind == PB_MemoryKind_DEVICE);
    EXPECT(g.bytes == 1 << 20);
    EXPECT(g.start_ns == 1000 && g.end_ns == 91000);
    EXPECT(g.device == 1 && g.context == 5 && g.stream_id == 13);
    EXPECT(g.correlation_id == 77);
    EXPECT(g.flags == CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
    EXPECT(g.graph_id == 3 && g.graph_node_id == 0x100000002ull); /* a memcpy node of graph 3 */
}

static void memcpy_pageable_d2h(void) {
    CUpti_ActivityMemcpy6 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    r.bytes = 4096;
    enc_gpu g;
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.copy_kind == PB_CopyKind_DEVICE_TO_HOST);
    EXPECT(g.src_kind == PB_MemoryKind_DEVICE);
    EXPECT(g.dst_kind == PB_MemoryKind_PAGEABLE);
}

static void peer(void) {
    CUpti_ActivityMemcpyPtoP4 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    r.srcKind = r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.bytes = 8 << 20;
    r.start = 5;
    r.end = 10;
    r.deviceId = 0;
    r.srcDeviceId = 2;
    r.dstDeviceId = 3;
    r.correlationId = 9;
    r.graphId = 0; /* not graph work */
    enc_gpu g;
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.kind == PB_GpuActivityKind_GPU_MEMCPY_PEER);
    EXPECT(g.graph_id == 0 && g.graph_node_id == 0);
    EXPECT(g.copy_kind == PB_CopyKind_DEVICE_TO_DEVICE);
    EXPECT(g.src_device == 2 && g.dst_device == 3);
    EXPECT(g.bytes == 8 << 20 && g.correlation_id == 9);
}

static void memset_record(void) {
    CUpti_ActivityMemset4 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.value = 0xab;
    r.bytes = 256;
    r.start = 1;
    r.end = 2;
    r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    r.correlationId = 3;
    r.graphId = 5;
    r.graphNodeId = 6;
    enc_gpu g;
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.kind == PB_GpuActivityKind_GPU_MEMSET);
    EXPECT(g.graph_id == 5 && g.graph_node_id == 6);
    EXPECT(g.value == 0xab && g.bytes == 256);
    EXPECT(g.dst_kind == PB_MemoryKind_MANAGED);
}

static void kernel(void) {
    CUpti_ActivityKernel10 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.start = 100;
    r.end = 250;
    r.deviceId = 2;
    r.streamId = 7;
    r.gridX = 4;
    r.gridY = 2;
    r.gridZ = 1;
    r.blockX = 256;
    r.blockY = 1;
    r.blockZ = 1;
    r.correlationId = 11;
    r.graphId = 9;
    r.graphNodeId = 42;
    r.registersPerThread = 40;
    r.staticSharedMemory = 4096;
    r.dynamicSharedMemory = 1024;
    r.name = "_Z10vector_addPfPKfS1_i";
    enc_gpu g;
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.kind == PB_GpuActivityKind_GPU_KERNEL);
    EXPECT(strcmp(g.name, "_Z10vector_addPfPKfS1_i") == 0);
    EXPECT(g.grid_x == 4 && g.grid_y == 2 && g.grid_z == 1);
    EXPECT(g.block_x == 256 && g.block_y == 1 && g.block_z == 1);
    EXPECT(g.start_ns == 100 && g.end_ns == 250 && g.device == 2 && g.stream_id == 7);
    EXPECT(g.correlation_id == 11);
    EXPECT(g.graph_id == 9 && g.graph_node_id == 42);
    EXPECT(g.registers_per_thread == 40 && g.shared_mem_known);
    EXPECT(g.static_shared_mem_bytes == 4096 && g.dynamic_shared_mem_bytes == 1024);
    EXPECT(g.shared_mem_per_block_bytes == 5120);
    r.dynamicSharedMemory = -1; /* not a size */
    EXPECT(cupti_convert((CUpti_Activity *)&r, &g) == 1);
    EXPECT(g.dynamic_shared_mem_bytes == 0 && g.shared_mem_per_block_bytes == 4096);
}

static void ignored(void) {
    CUpti_Activity r = {.kind = CUPTI_ACTIVITY_KIND_OVERHEAD};
    enc_gpu g;
    EXPECT(cupti_convert(&r, &g) == 0);
}

static void kinds(void) {
    EXPECT(cupti_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC) == PB_MemoryKind_DEVICE);
    EXPECT(cupti_memory_kind(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN) == PB_MemoryKind_MEMORY_KIND_UNSPECIFIED);
    EXPECT(cupti_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH) == PB_CopyKind_HOST_TO_HOST);
    EXPECT(cupti_copy_kind(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH) == PB_CopyKind_DEVICE_TO_HOST);
}

int main(void) {
    memcpy_pinned_h2d();
    memcpy_pageable_d2h();
    peer();
    memset_record();
    kernel();
    ignored();
    kinds();
    if (failures == 0) printf("test_cupti_convert: all passed\n");
    return failures != 0;
}
