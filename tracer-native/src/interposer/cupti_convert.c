/* CUPTI activity records to GpuActivity (see cupti_convert.h). Record layouts are those of the
 * CUDA 13 cupti_activity.h: CUpti_ActivityMemcpy6, CUpti_ActivityMemcpyPtoP4,
 * CUpti_ActivityMemset4, CUpti_ActivityKernel10. */
#include "cupti_convert.h"

#include <string.h>

int cupti_memory_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return PB_MemoryKind_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return PB_MemoryKind_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return PB_MemoryKind_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return PB_MemoryKind_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return PB_MemoryKind_MANAGED;
    default: return PB_MemoryKind_MEMORY_KIND_UNSPECIFIED;
    }
}

int cupti_copy_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return PB_CopyKind_HOST_TO_DEVICE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return PB_CopyKind_DEVICE_TO_HOST;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return PB_CopyKind_DEVICE_TO_DEVICE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return PB_CopyKind_HOST_TO_HOST;
    default: return PB_CopyKind_COPY_KIND_UNSPECIFIED;
    }
}

static void memcpy_record(const CUpti_ActivityMemcpy6 *r, enc_gpu *o) {
    o->kind = PB_GpuActivityKind_GPU_MEMCPY;
    o->graph_id = r->graphId; /* work a graph launch ran: its graph and node (0: none) */
    o->graph_node_id = r->graphNodeId;
    o->correlation_id = r->correlationId;
    o->start_ns = r->start;
    o->end_ns = r->end;
    o->device = (int32_t)r->deviceId;
    o->context = r->contextId;
    o->stream_id = r->streamId;
    o->copy_kind = cupti_copy_kind(r->copyKind);
    o->src_kind = cupti_memory_kind(r->srcKind);
    o->dst_kind = cupti_memory_kind(r->dstKind);
    o->bytes = r->bytes;
    o->flags = r->flags;
    o->src_device = o->dst_device = (int32_t)r->deviceId;
}

static void peer_record(const CUpti_ActivityMemcpyPtoP4 *r, enc_gpu *o) {
    o->kind = PB_GpuActivityKind_GPU_MEMCPY_PEER;
    o->graph_id = r->graphId; /* work a graph launch ran: its graph and node (0: none) */
    o->graph_node_id = r->graphNodeId;
    o->correlation_id = r->correlationId;
    o->start_ns = r->start;
    o->end_ns = r->end;
    o->device = (int32_t)r->deviceId;
    o->context = r->contextId;
    o->stream_id = r->streamId;
    o->copy_kind = cupti_copy_kind(r->copyKind);
    o->src_kind = cupti_memory_kind(r->srcKind);
    o->dst_kind = cupti_memory_kind(r->dstKind);
    o->bytes = r->bytes;
    o->flags = r->flags;
    o->src_device = (int32_t)r->srcDeviceId;
    o->dst_device = (int32_t)r->dstDeviceId;
}

static void memset_record(const CUpti_ActivityMemset4 *r, enc_gpu *o) {
    o->kind = PB_GpuActivityKind_GPU_MEMSET;
    o->graph_id = r->graphId; /* work a graph launch ran: its graph and node (0: none) */
    o->graph_node_id = r->graphNodeId;
    o->correlation_id = r->correlationId;
    o->start_ns = r->start;
    o->end_ns = r->end;
    o->device = (int32_t)r->deviceId;
    o->context = r->contextId;
    o->stream_id = r->streamId;
    o->dst_kind = cupti_memory_kind((uint8_t)r->memoryKind);
    o->bytes = r->bytes;
    o->value = r->value;
    o->flags = r->flags;
}

static void kernel_record(const CUpti_ActivityKernel10 *r, enc_gpu *o) {
    o->kind = PB_GpuActivityKind_GPU_KERNEL;
    o->graph_id = r->graphId; /* work a graph launch ran: its graph and node (0: none) */
    o->graph_node_id = r->graphNodeId;
    o->correlation_id = r->correlationId;
    o->start_ns = r->start;
    o->end_ns = r->end;
    o->device = (int32_t)r->deviceId;
    o->context = r->contextId;
    o->stream_id = r->streamId;
    o->name = r->name;
    o->grid_x = (uint32_t)r->gridX;
    o->grid_y = (uint32_t)r->gridY;
    o->grid_z = (uint32_t)r->gridZ;
    o->block_x = (uint32_t)r->blockX;
    o->block_y = (uint32_t)r->blockY;
    o->block_z = (uint32_t)r->blockZ;
    o->registers_per_thread = r->registersPerThread;
    o->shared_mem_known = true;
    /* int32 in CUPTI's record; a negative size is no size */
    o->static_shared_mem_bytes = r->staticSharedMemory > 0 ? (uint64_t)r->staticSharedMemory : 0;
    o->dynamic_shared_mem_bytes = r->dynamicSharedMemory > 0 ? (uint64_t)r->dynamicSharedMemory : 0;
    o->shared_mem_per_block_bytes = o->static_shared_mem_bytes + o->dynamic_shared_mem_bytes;
}

int cupti_convert(const CUpti_Activity *record, enc_gpu *out) {
    memset(out, 0, sizeof *out);
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        memcpy_record((const CUpti_ActivityMemcpy6 *)record, out);
        return 1;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        peer_record((const CUpti_ActivityMemcpyPtoP4 *)record, out);
        return 1;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        memset_record((const CUpti_ActivityMemset4 *)record, out);
        return 1;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        kernel_record((const CUpti_ActivityKernel10 *)record, out);
        return 1;
    default:
        return 0;
    }
}
