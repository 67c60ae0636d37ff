/* Writes one Event of every body type the interposer encodes, each field set to a value derived
 * from its field number, as one Batch in a trace file (magic, header, batch). The Java test
 * EncoderConformanceTest decodes it with the generated classes and checks every field against the
 * same rule, message type by message type:
 *   unsigned, fixed64 and enum fields: 1000 + n       int32 and sint32 fields: -(100 + n)
 *   strings: "f" + field number                        bools: true
 * Usage: encode_samples OUT_FILE */
#include <stdio.h>
#include <string.h>

#include "encode.h"

#define U(msg, f) (1000u + PB_##msg##_##f)
#define I(msg, f) (-(int32_t)(100 + PB_##msg##_##f))
#define S(msg, f) str(PB_##msg##_##f)

static char strings[64][16];
static const char *str(int field) {
    snprintf(strings[field], sizeof strings[field], "f%d", field);
    return strings[field];
}

static uint8_t events[1 << 16];
static pbw w;

static void head(void) {
    enc_event_head h = {.entry_ns = U(Event, entry_ns), .duration_ns = U(Event, duration_ns),
                        .api = U(Event, api), .result = I(Event, result),
                        .call_site = U(Event, call_site), .correlation_id = U(Event, correlation_id),
                        .thread_cpu_ns = U(Event, thread_cpu_ns), .thread_cpu_exit_ns = U(Event, thread_cpu_exit_ns),
                        .collector_ns = U(Event, collector_ns)};
    enc_event_head_fields(&w, &h);
}

#define EVENT(body)                                   \
    do {                                              \
        uint8_t *len = pbw_begin(&w, PB_Batch_events); \
        head();                                       \
        body;                                         \
        pbw_end(&w, len);                             \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: encode_samples OUT_FILE\n");
        return 2;
    }
    pbw_init(&w, events, sizeof events);
    enc_batch_head(&w, 4242, 4343, 7);

    static const char args[] = "prog\0--flag\0\0last";
    enc_process_start ps = {.pid = U(ProcessStart, pid), .ppid = U(ProcessStart, ppid),
        .uid = U(ProcessStart, uid), .argv_buf = args, .argv_len = sizeof args,
        .monotonic_ns = U(ProcessStart, monotonic_ns), .realtime_ns = U(ProcessStart, realtime_ns),
        .executable = S(ProcessStart, executable), .hostname = S(ProcessStart, hostname),
        .collector_version = S(ProcessStart, collector_version), .cupti_status = S(ProcessStart, cupti_status),
        .clock_source = S(ProcessStart, clock_source),
        .simulated_device = true, .cupti_enabled = true,
        .malloc_threshold_bytes = U(ProcessStart, malloc_threshold_bytes)};
    EVENT(enc_process_start_body(&w, &ps));

    enc_thread_start ts = {.tid = U(ThreadStart, tid), .name = S(ThreadStart, name), .main_thread = true};
    EVENT(enc_thread_start_body(&w, &ts));

    enc_module mods[2] = {
        {.path = S(Module, path), .start = U(Module, start), .end = U(Module, end),
         .file_offset = U(Module, file_offset), .build_id = S(Module, build_id), .load_bias = U(Module, load_bias)},
        {.path = "second", .start = 1, .end = 2},
    };
    EVENT(enc_modules_body(&w, mods, 2));

    EVENT(enc_set_device_body(&w, I(SetDevice, device), U(SetDevice, flags)));

    enc_alloc al = {.kind = U(Alloc, kind), .ptr = U(Alloc, ptr), .bytes = U(Alloc, bytes),
        .flags = U(Alloc, flags), .device = I(Alloc, device), .stream = U(Alloc, stream),
        .pitch = U(Alloc, pitch), .width = U(Alloc, width), .height = U(Alloc, height),
        .depth = U(Alloc, depth), .host_function = S(Alloc, host_function), .previous_ptr = U(Alloc, previous_ptr),
        .numa_known = true, .numa_node = U(Alloc, numa_node)};
    al.capture_id = U(Alloc, capture_id);
    EVENT(enc_alloc_body(&w, &al));
    /* NUMA node 0 is present, unlike the zero of a plain field */
    enc_alloc node0 = {.kind = 2, .ptr = 0x1000, .bytes = 4096, .numa_known = true, .numa_node = 0};
    EVENT(enc_alloc_body(&w, &node0));

    enc_free fr = {.kind = U(Free, kind), .ptr = U(Free, ptr), .stream = U(Free, stream), .device = I(Free, device)};
    fr.capture_id = U(Free, capture_id);
    EVENT(enc_free_body(&w, &fr));

    enc_copy cp = {.dst = U(Copy, dst), .src = U(Copy, src), .bytes = U(Copy, bytes),
        .kind_called = U(Copy, kind_called), .kind_resolved = U(Copy, kind_resolved),
        .resolution = U(Copy, resolution), .stream = U(Copy, stream), .async = true,
        .dst_device = I(Copy, dst_device), .src_device = I(Copy, src_device), .dims = U(Copy, dims),
        .dpitch = U(Copy, dpitch), .spitch = U(Copy, spitch), .width = U(Copy, width),
        .height = U(Copy, height), .depth = U(Copy, depth), .symbol = S(Copy, symbol),
        .symbol_host_address = U(Copy, symbol_host_address), .symbol_offset = U(Copy, symbol_offset),
        .dst_memory_type = I(Copy, dst_memory_type), .src_memory_type = I(Copy, src_memory_type),
        .device = I(Copy, device), .symbol_data = "\x01\x02\x00\xff", .symbol_data_len = 4};
    cp.capture_id = U(Copy, capture_id);
    EVENT(enc_copy_body(&w, &cp));

    enc_memset ms = {.ptr = U(Memset, ptr), .value = I(Memset, value), .bytes = U(Memset, bytes),
        .stream = U(Memset, stream), .async = true, .dims = U(Memset, dims), .pitch = U(Memset, pitch),
        .width = U(Memset, width), .height = U(Memset, height), .depth = U(Memset, depth),
        .device = I(Memset, device)};
    ms.capture_id = U(Memset, capture_id);
    EVENT(enc_memset_body(&w, &ms));

    enc_kernel_param params[2] = {
        {.index = U(KernelParam, index), .offset = U(KernelParam, offset), .size = U(KernelParam, size),
         .type = U(KernelParam, type), .type_name = S(KernelParam, type_name),
         .recorded_offset = U(KernelParam, recorded_offset), .recorded_size = U(KernelParam, recorded_size)},
        {.index = 1, .size = 4, .type = 3},
    };
    enc_kernel_info ki = {.kernel_id = U(KernelInfo, kernel_id), .mangled_name = S(KernelInfo, mangled_name),
        .demangled_name = S(KernelInfo, demangled_name), .params = params, .nparams = 2,
        .decode = U(KernelInfo, decode), .params_bytes = U(KernelInfo, params_bytes)};
    EVENT(enc_kernel_info_body(&w, &ki));

    static const uint8_t blob[] = {1, 2, 3, 0, 255};
    enc_launch la = {.kernel_id = U(KernelLaunch, kernel_id), .grid_x = U(KernelLaunch, grid_x),
        .grid_y = U(KernelLaunch, grid_y), .grid_z = U(KernelLaunch, grid_z),
        .block_x = U(KernelLaunch, block_x), .block_y = U(KernelLaunch, block_y),
        .block_z = U(KernelLaunch, block_z), .shared_mem_bytes = U(KernelLaunch, shared_mem_bytes),
        .stream = U(KernelLaunch, stream), .args = blob, .args_len = sizeof blob,
        .decode = U(KernelLaunch, decode), .args_truncated = true, .device = I(KernelLaunch, device),
        .cooperative = true};
    la.capture_id = U(KernelLaunch, capture_id);
    EVENT(enc_launch_body(&w, &la));

    enc_stream_op so = {.stream = U(StreamOp, stream), .flags = U(StreamOp, flags),
        .priority = I(StreamOp, priority), .device = I(StreamOp, device)};
    EVENT(enc_stream_body(&w, &so));

    enc_event_op eo = {.event = U(EventOp, event), .stream = U(EventOp, stream), .flags = U(EventOp, flags)};
    eo.capture_id = U(EventOp, capture_id);
    EVENT(enc_event_op_body(&w, &eo));

    enc_sync sy = {.scope = U(Sync, scope), .stream = U(Sync, stream), .event = U(Sync, event), .device = I(Sync, device)};
    EVENT(enc_sync_body(&w, &sy));

    enc_peer pe = {.device = I(PeerAccess, device), .peer = I(PeerAccess, peer), .flags = U(PeerAccess, flags), .enable = true};
    EVENT(enc_peer_body(&w, &pe));

    enc_prefetch pf = {.ptr = U(Prefetch, ptr), .bytes = U(Prefetch, bytes), .device = I(Prefetch, device),
        .stream = U(Prefetch, stream), .location_type = I(Prefetch, location_type)};
    EVENT(enc_prefetch_body(&w, &pf));

    enc_advise ad = {.ptr = U(Advise, ptr), .bytes = U(Advise, bytes), .advice = I(Advise, advice),
        .device = I(Advise, device), .location_type = I(Advise, location_type)};
    EVENT(enc_advise_body(&w, &ad));

    enc_callback cb = {.stream = U(HostCallback, stream), .function = U(HostCallback, function),
        .user_data = U(HostCallback, user_data)};
    cb.capture_id = U(HostCallback, capture_id);
    EVENT(enc_callback_body(&w, &cb));

    enc_symbol sm = {.host_address = U(SymbolInfo, host_address), .name = S(SymbolInfo, name),
        .bytes = U(SymbolInfo, bytes), .constant = true, .managed = true,
        .device_address = U(SymbolInfo, device_address)};
    EVENT(enc_symbol_body(&w, &sm));

    EVENT(enc_fork_body(&w, U(Fork, child_pid)));

    enc_gpu g = {.correlation_id = U(GpuActivity, correlation_id), .kind = U(GpuActivity, kind),
        .start_ns = U(GpuActivity, start_ns), .end_ns = U(GpuActivity, end_ns), .device = I(GpuActivity, device),
        .stream_id = U(GpuActivity, stream_id), .context = U(GpuActivity, context),
        .copy_kind = U(GpuActivity, copy_kind), .src_kind = U(GpuActivity, src_kind),
        .dst_kind = U(GpuActivity, dst_kind), .bytes = U(GpuActivity, bytes), .name = S(GpuActivity, name),
        .src_device = I(GpuActivity, src_device), .dst_device = I(GpuActivity, dst_device),
        .grid_x = U(GpuActivity, grid_x), .grid_y = U(GpuActivity, grid_y), .grid_z = U(GpuActivity, grid_z),
        .block_x = U(GpuActivity, block_x), .block_y = U(GpuActivity, block_y),
        .block_z = U(GpuActivity, block_z), .value = U(GpuActivity, value), .flags = U(GpuActivity, flags),
        .registers_per_thread = U(GpuActivity, registers_per_thread), .shared_mem_known = true,
        .static_shared_mem_bytes = U(GpuActivity, static_shared_mem_bytes),
        .dynamic_shared_mem_bytes = U(GpuActivity, dynamic_shared_mem_bytes),
        .shared_mem_per_block_bytes = U(GpuActivity, shared_mem_per_block_bytes)};
    g.graph_id = U(GpuActivity, graph_id);
    g.graph_node_id = U(GpuActivity, graph_node_id);
    EVENT(enc_gpu_body(&w, &g));

    enc_graph_exec gx = {.exec = U(GraphExec, exec), .graph = U(GraphExec, graph), .device = I(GraphExec, device),
                         .node_count = U(GraphExec, node_count), .edge_count = U(GraphExec, edge_count),
                         .nodes_not_recorded = U(GraphExec, nodes_not_recorded), .part = true, .replace = true};
    enc_graph_node gn = {.id = U(GraphNode, id), .kind = U(GraphNode, kind), .parent = U(GraphNode, parent),
                         .host_function = U(GraphNode, host_function), .user_data = U(GraphNode, user_data),
                         .event = U(GraphNode, event), .ptr = U(GraphNode, ptr), .bytes = U(GraphNode, bytes),
                         .disabled = true, .query_error = I(GraphNode, query_error), .copy = &cp, .memset = &ms,
                         .launch = &la};
    EVENT({
        uint8_t *gh = enc_graph_exec_begin(&w, &gx);
        enc_graph_node_write(&w, &gn);
        enc_graph_edge(&w, U(GraphEdge, from), U(GraphEdge, to));
        enc_graph_exec_end(&w, gh);
    });
    enc_graph_launch gl = {.exec = U(GraphLaunch, exec), .stream = U(GraphLaunch, stream),
                           .device = I(GraphLaunch, device), .capture_id = U(GraphLaunch, capture_id)};
    EVENT(enc_graph_launch_body(&w, &gl));
    enc_stream_capture sc = {.stream = U(StreamCapture, stream), .capture_id = U(StreamCapture, capture_id),
                             .mode = U(StreamCapture, mode), .graph = U(StreamCapture, graph)};
    EVENT(enc_stream_capture_body(&w, &sc));

    EVENT(enc_clock_sync_body(&w, U(ClockSync, gpu_clock_ns), U(ClockSync, monotonic_ns), S(ClockSync, source)));

    enc_loss lo = {.records = U(Loss, records), .bytes = U(Loss, bytes), .reason = S(Loss, reason),
        .since_ns = U(Loss, since_ns)};
    EVENT(enc_loss_body(&w, &lo));

    enc_process_end pd = {.exit_code = I(ProcessEnd, exit_code), .signal = I(ProcessEnd, signal),
        .events = U(ProcessEnd, events), .dropped = U(ProcessEnd, dropped),
        .cudart_path = S(ProcessEnd, cudart_path), .cuda_calls = U(ProcessEnd, cuda_calls)};
    EVENT(enc_process_end_body(&w, &pd));

    EVENT(enc_note_body(&w, S(Note, text), S(Note, severity)));

    enc_device_info di = {.device = I(DeviceInfo, device), .source = U(DeviceInfo, source),
        .name = S(DeviceInfo, name), .compute_major = U(DeviceInfo, compute_major),
        .compute_minor = U(DeviceInfo, compute_minor), .multiprocessor_count = U(DeviceInfo, multiprocessor_count),
        .clock_rate_khz = U(DeviceInfo, clock_rate_khz), .memory_clock_rate_khz = U(DeviceInfo, memory_clock_rate_khz),
        .memory_bus_width_bits = U(DeviceInfo, memory_bus_width_bits),
        .memory_bandwidth_bytes_per_sec = U(DeviceInfo, memory_bandwidth_bytes_per_sec),
        .total_memory_bytes = U(DeviceInfo, total_memory_bytes), .l2_cache_bytes = U(DeviceInfo, l2_cache_bytes),
        .max_threads_per_multiprocessor = U(DeviceInfo, max_threads_per_multiprocessor),
        .max_blocks_per_multiprocessor = U(DeviceInfo, max_blocks_per_multiprocessor),
        .registers_per_multiprocessor = U(DeviceInfo, registers_per_multiprocessor),
        .shared_mem_per_multiprocessor_bytes = U(DeviceInfo, shared_mem_per_multiprocessor_bytes),
        .max_threads_per_block = U(DeviceInfo, max_threads_per_block),
        .registers_per_block = U(DeviceInfo, registers_per_block),
        .shared_mem_per_block_bytes = U(DeviceInfo, shared_mem_per_block_bytes),
        .shared_mem_per_block_optin_bytes = U(DeviceInfo, shared_mem_per_block_optin_bytes),
        .warp_size = U(DeviceInfo, warp_size), .pci_bus_id = S(DeviceInfo, pci_bus_id),
        .query_error = I(DeviceInfo, query_error)};
    EVENT(enc_device_info_body(&w, &di));

    enc_annotation an = {.kind = U(Annotation, kind), .message = S(Annotation, message),
        .domain = S(Annotation, domain), .range_id = U(Annotation, range_id), .level = I(Annotation, level),
        .category = U(Annotation, category)};
    EVENT(enc_annotation_body(&w, &an));

    enc_mpi_completion done[2] = {
        {.request = U(MpiCompletion, request), .receive = true, .source = I(MpiCompletion, source),
         .tag = I(MpiCompletion, tag), .bytes = U(MpiCompletion, bytes)},
        {.request = 2, .receive = false}};
    enc_mpi_unrecorded unrecorded[1] = {{.function = S(MpiUnrecorded, function), .calls = U(MpiUnrecorded, calls)}};
    enc_mpi mpi = {.op = U(MpiCall, op), .comm = U(MpiCall, comm), .comm_size = U(MpiCall, comm_size),
        .rank = I(MpiCall, rank), .peer = I(MpiCall, peer), .tag = I(MpiCall, tag), .bytes = U(MpiCall, bytes),
        .device_buffer = true, .recv_peer = I(MpiCall, recv_peer), .recv_tag = I(MpiCall, recv_tag),
        .recv_bytes = U(MpiCall, recv_bytes), .recv_device_buffer = true, .request = U(MpiCall, request),
        .total_bytes = U(MpiCall, total_bytes), .completed = done, .ncompleted = 2,
        .send_buffer = U(MpiCall, send_buffer), .recv_buffer = U(MpiCall, recv_buffer), .in_place = true,
        .found = true, .unrecorded = unrecorded, .nunrecorded = 1};
    EVENT(enc_mpi_body(&w, &mpi));

    enc_nccl nccl = {.op = U(NcclCall, op), .comm = U(NcclCall, comm), .rank = I(NcclCall, rank),
        .comm_size = U(NcclCall, comm_size), .peer = I(NcclCall, peer), .bytes = U(NcclCall, bytes),
        .stream = U(NcclCall, stream), .comm_id = U(NcclCall, comm_id), .total_bytes = U(NcclCall, total_bytes),
        .send_buffer = U(NcclCall, send_buffer), .recv_buffer = U(NcclCall, recv_buffer)};
    EVENT(enc_nccl_body(&w, &nccl));

    if (w.overflow) {
        fprintf(stderr, "encode_samples: buffer overflow\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "wb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    /* The trace file: magic, an empty header (schema version 1), then the batch. */
    uint8_t lenbuf[16];
    pbw lw;
    fwrite("APPTRACE", 1, 8, f);
    static const uint8_t header[] = {0x08, 0x01};
    fputc(sizeof header, f);
    fwrite(header, 1, sizeof header, f);
    pbw_init(&lw, lenbuf, sizeof lenbuf);
    pbw_raw_varint(&lw, (uint64_t)(w.p - events));
    fwrite(lenbuf, 1, (size_t)(lw.p - lenbuf), f);
    fwrite(events, 1, (size_t)(w.p - events), f);
    fclose(f);
    return 0;
}
