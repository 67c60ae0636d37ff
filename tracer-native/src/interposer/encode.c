/* Encoders for Event bodies (see encode.h). Field numbers come from the generated schema.h. */
#include "encode.h"

#include <string.h>

/* Every encoder works on a local copy of the writer: a byte stored through w->p could alias the
 * writer itself, so the compiler would reload and store the cursor around every byte; a local
 * whose address does not escape stays in registers. */
#define LOCAL_WRITER(out) \
    pbw local_ = *(out);  \
    pbw *w = &local_
#define DONE(out) (*(out) = local_)

#define U(w, msg, f, v) pbw_u64(w, PB_##msg##_##f, (uint64_t)(v))
#define I(w, msg, f, v) pbw_i32(w, PB_##msg##_##f, (int32_t)(v))
#define Z(w, msg, f, v) pbw_s32(w, PB_##msg##_##f, (int32_t)(v))
#define F(w, msg, f, v) pbw_f64(w, PB_##msg##_##f, (uint64_t)(v))
#define S(w, msg, f, v, max) pbw_str(w, PB_##msg##_##f, v, max)

void enc_batch_head(pbw *out, uint32_t pid, uint32_t tid, uint64_t seq) {
    LOCAL_WRITER(out);
    U(w, Batch, pid, pid);
    U(w, Batch, tid, tid);
    U(w, Batch, seq, seq);
    DONE(out);
}

void enc_event_head_fields(pbw *out, const enc_event_head *h) {
    LOCAL_WRITER(out);
    enc_event_head_write(w, h->entry_ns, h->duration_ns, h->api, h->result, h->call_site, h->correlation_id);
    pbw_u64(w, PB_Event_thread_cpu_ns, h->thread_cpu_ns);
    pbw_u64(w, PB_Event_thread_cpu_exit_ns, h->thread_cpu_exit_ns);
    pbw_u64(w, PB_Event_collector_ns, h->collector_ns);
    DONE(out);
}

void enc_process_start_body(pbw *out, const enc_process_start *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_process_start);
    U(w, ProcessStart, pid, m->pid);
    U(w, ProcessStart, ppid, m->ppid);
    /* argv: NUL-separated, each argument capped, at most ENC_MAX_ARGV of them */
    uint32_t off = 0, count = 0;
    while (off < m->argv_len && count < ENC_MAX_ARGV) {
        const char *arg = m->argv_buf + off;
        size_t len = strnlen(arg, m->argv_len - off);
        pbw_str(w, PB_ProcessStart_argv, arg, len < ENC_MAX_ARG_BYTES ? len : ENC_MAX_ARG_BYTES);
        if (len == 0) { /* an empty argument still counts: write it explicitly */
            if (pbw_room(w, 2 + PB_SLACK)) {
                pbw_tag(w, PB_ProcessStart_argv, PB_LEN);
                pbw_raw_varint(w, 0);
            }
        }
        off += (uint32_t)len + 1;
        count++;
    }
    U(w, ProcessStart, clock, PB_ClockDomain_CLOCK_MONOTONIC);
    U(w, ProcessStart, monotonic_ns, m->monotonic_ns);
    U(w, ProcessStart, realtime_ns, m->realtime_ns);
    S(w, ProcessStart, executable, m->executable, ENC_MAX_PATH);
    S(w, ProcessStart, hostname, m->hostname, ENC_MAX_NAME);
    S(w, ProcessStart, collector_version, m->collector_version, ENC_MAX_NAME);
    pbw_bool(w, PB_ProcessStart_simulated_device, m->simulated_device);
    U(w, ProcessStart, malloc_threshold_bytes, m->malloc_threshold_bytes);
    pbw_bool(w, PB_ProcessStart_cupti_enabled, m->cupti_enabled);
    S(w, ProcessStart, cupti_status, m->cupti_status, ENC_MAX_NAME);
    U(w, ProcessStart, uid, m->uid);
    S(w, ProcessStart, clock_source, m->clock_source, 32);
    pbw_end(w, b);
    DONE(out);
}

void enc_thread_start_body(pbw *out, const enc_thread_start *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_thread_start);
    U(w, ThreadStart, tid, m->tid);
    S(w, ThreadStart, name, m->name, ENC_MAX_NAME);
    pbw_bool(w, PB_ThreadStart_main_thread, m->main_thread);
    pbw_end(w, b);
    DONE(out);
}

void enc_modules_body(pbw *out, const enc_module *mods, uint32_t n) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_modules);
    for (uint32_t i = 0; i < n && i < ENC_MAX_MODULES; i++) {
        uint8_t *mb = pbw_begin(w, PB_ModuleMap_modules);
        S(w, Module, path, mods[i].path, ENC_MAX_PATH);
        F(w, Module, start, mods[i].start);
        F(w, Module, end, mods[i].end);
        U(w, Module, file_offset, mods[i].file_offset);
        S(w, Module, build_id, mods[i].build_id, 128);
        F(w, Module, load_bias, mods[i].load_bias);
        pbw_end(w, mb);
    }
    pbw_end(w, b);
    DONE(out);
}

void enc_set_device_body(pbw *out, int32_t device, uint32_t flags) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_set_device);
    Z(w, SetDevice, device, device);
    U(w, SetDevice, flags, flags);
    pbw_end(w, b);
    DONE(out);
}

void enc_alloc_body(pbw *out, const enc_alloc *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_alloc);
    U(w, Alloc, kind, m->kind);
    F(w, Alloc, ptr, m->ptr);
    U(w, Alloc, bytes, m->bytes);
    U(w, Alloc, flags, m->flags);
    Z(w, Alloc, device, m->device);
    F(w, Alloc, stream, m->stream);
    U(w, Alloc, pitch, m->pitch);
    U(w, Alloc, width, m->width);
    U(w, Alloc, height, m->height);
    U(w, Alloc, depth, m->depth);
    S(w, Alloc, host_function, m->host_function, 64);
    F(w, Alloc, previous_ptr, m->previous_ptr);
    if (m->numa_known) pbw_u64_present(w, PB_Alloc_numa_node, m->numa_node);
    U(w, Alloc, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_free_body(pbw *out, const enc_free *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_free);
    U(w, Free, kind, m->kind);
    F(w, Free, ptr, m->ptr);
    F(w, Free, stream, m->stream);
    Z(w, Free, device, m->device);
    U(w, Free, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_copy_body(pbw *out, const enc_copy *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_copy);
    F(w, Copy, dst, m->dst);
    F(w, Copy, src, m->src);
    U(w, Copy, bytes, m->bytes);
    U(w, Copy, kind_called, m->kind_called);
    U(w, Copy, kind_resolved, m->kind_resolved);
    U(w, Copy, resolution, m->resolution);
    F(w, Copy, stream, m->stream);
    pbw_bool(w, PB_Copy_async, m->async);
    Z(w, Copy, dst_device, m->dst_device);
    Z(w, Copy, src_device, m->src_device);
    U(w, Copy, dims, m->dims);
    U(w, Copy, dpitch, m->dpitch);
    U(w, Copy, spitch, m->spitch);
    U(w, Copy, width, m->width);
    U(w, Copy, height, m->height);
    U(w, Copy, depth, m->depth);
    S(w, Copy, symbol, m->symbol, ENC_MAX_NAME);
    F(w, Copy, symbol_host_address, m->symbol_host_address);
    U(w, Copy, symbol_offset, m->symbol_offset);
    I(w, Copy, dst_memory_type, m->dst_memory_type);
    I(w, Copy, src_memory_type, m->src_memory_type);
    Z(w, Copy, device, m->device);
    pbw_bytes(w, PB_Copy_symbol_data, m->symbol_data, m->symbol_data_len);
    U(w, Copy, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_memset_body(pbw *out, const enc_memset *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_memset);
    F(w, Memset, ptr, m->ptr);
    Z(w, Memset, value, m->value);
    U(w, Memset, bytes, m->bytes);
    F(w, Memset, stream, m->stream);
    pbw_bool(w, PB_Memset_async, m->async);
    U(w, Memset, dims, m->dims);
    U(w, Memset, pitch, m->pitch);
    U(w, Memset, width, m->width);
    U(w, Memset, height, m->height);
    U(w, Memset, depth, m->depth);
    Z(w, Memset, device, m->device);
    U(w, Memset, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_kernel_info_body(pbw *out, const enc_kernel_info *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_kernel_info);
    F(w, KernelInfo, kernel_id, m->kernel_id);
    S(w, KernelInfo, mangled_name, m->mangled_name, ENC_MAX_NAME);
    S(w, KernelInfo, demangled_name, m->demangled_name, ENC_MAX_NAME);
    for (uint32_t i = 0; i < m->nparams && i < ENC_MAX_KERNEL_PARAMS; i++) {
        const enc_kernel_param *p = &m->params[i];
        uint8_t *pb = pbw_begin(w, PB_KernelInfo_params);
        U(w, KernelParam, index, p->index);
        U(w, KernelParam, offset, p->offset);
        U(w, KernelParam, size, p->size);
        U(w, KernelParam, type, p->type);
        S(w, KernelParam, type_name, p->type_name, 128);
        U(w, KernelParam, recorded_offset, p->recorded_offset);
        U(w, KernelParam, recorded_size, p->recorded_size);
        pbw_end(w, pb);
    }
    U(w, KernelInfo, decode, m->decode);
    U(w, KernelInfo, params_bytes, m->params_bytes);
    pbw_end(w, b);
    DONE(out);
}

void enc_launch_body(pbw *out, const enc_launch *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_launch);
    F(w, KernelLaunch, kernel_id, m->kernel_id);
    U(w, KernelLaunch, grid_x, m->grid_x);
    U(w, KernelLaunch, grid_y, m->grid_y);
    U(w, KernelLaunch, grid_z, m->grid_z);
    U(w, KernelLaunch, block_x, m->block_x);
    U(w, KernelLaunch, block_y, m->block_y);
    U(w, KernelLaunch, block_z, m->block_z);
    U(w, KernelLaunch, shared_mem_bytes, m->shared_mem_bytes);
    F(w, KernelLaunch, stream, m->stream);
    pbw_bytes(w, PB_KernelLaunch_args, m->args, m->args_len);
    U(w, KernelLaunch, decode, m->decode);
    pbw_bool(w, PB_KernelLaunch_args_truncated, m->args_truncated);
    Z(w, KernelLaunch, device, m->device);
    pbw_bool(w, PB_KernelLaunch_cooperative, m->cooperative);
    U(w, KernelLaunch, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_stream_body(pbw *out, const enc_stream_op *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_stream);
    F(w, StreamOp, stream, m->stream);
    U(w, StreamOp, flags, m->flags);
    Z(w, StreamOp, priority, m->priority);
    Z(w, StreamOp, device, m->device);
    pbw_end(w, b);
    DONE(out);
}

void enc_event_op_body(pbw *out, const enc_event_op *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_event);
    F(w, EventOp, event, m->event);
    F(w, EventOp, stream, m->stream);
    U(w, EventOp, flags, m->flags);
    U(w, EventOp, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_sync_body(pbw *out, const enc_sync *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_sync);
    U(w, Sync, scope, m->scope);
    F(w, Sync, stream, m->stream);
    F(w, Sync, event, m->event);
    Z(w, Sync, device, m->device);
    pbw_end(w, b);
    DONE(out);
}

void enc_peer_body(pbw *out, const enc_peer *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_peer);
    Z(w, PeerAccess, device, m->device);
    Z(w, PeerAccess, peer, m->peer);
    U(w, PeerAccess, flags, m->flags);
    pbw_bool(w, PB_PeerAccess_enable, m->enable);
    pbw_end(w, b);
    DONE(out);
}

void enc_prefetch_body(pbw *out, const enc_prefetch *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_prefetch);
    F(w, Prefetch, ptr, m->ptr);
    U(w, Prefetch, bytes, m->bytes);
    Z(w, Prefetch, device, m->device);
    F(w, Prefetch, stream, m->stream);
    Z(w, Prefetch, location_type, m->location_type);
    pbw_end(w, b);
    DONE(out);
}

void enc_advise_body(pbw *out, const enc_advise *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_advise);
    F(w, Advise, ptr, m->ptr);
    U(w, Advise, bytes, m->bytes);
    Z(w, Advise, advice, m->advice);
    Z(w, Advise, device, m->device);
    Z(w, Advise, location_type, m->location_type);
    pbw_end(w, b);
    DONE(out);
}

void enc_callback_body(pbw *out, const enc_callback *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_callback);
    F(w, HostCallback, stream, m->stream);
    F(w, HostCallback, function, m->function);
    F(w, HostCallback, user_data, m->user_data);
    U(w, HostCallback, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_symbol_body(pbw *out, const enc_symbol *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_symbol);
    F(w, SymbolInfo, host_address, m->host_address);
    S(w, SymbolInfo, name, m->name, ENC_MAX_NAME);
    U(w, SymbolInfo, bytes, m->bytes);
    pbw_bool(w, PB_SymbolInfo_constant, m->constant);
    pbw_bool(w, PB_SymbolInfo_managed, m->managed);
    F(w, SymbolInfo, device_address, m->device_address);
    pbw_end(w, b);
    DONE(out);
}

void enc_fork_body(pbw *out, uint32_t child_pid) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_fork);
    U(w, Fork, child_pid, child_pid);
    pbw_end(w, b);
    DONE(out);
}

void enc_gpu_body(pbw *out, const enc_gpu *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_gpu);
    U(w, GpuActivity, correlation_id, m->correlation_id);
    U(w, GpuActivity, kind, m->kind);
    U(w, GpuActivity, start_ns, m->start_ns);
    U(w, GpuActivity, end_ns, m->end_ns);
    Z(w, GpuActivity, device, m->device);
    U(w, GpuActivity, stream_id, m->stream_id);
    U(w, GpuActivity, context, m->context);
    U(w, GpuActivity, copy_kind, m->copy_kind);
    U(w, GpuActivity, src_kind, m->src_kind);
    U(w, GpuActivity, dst_kind, m->dst_kind);
    U(w, GpuActivity, bytes, m->bytes);
    S(w, GpuActivity, name, m->name, ENC_MAX_NAME);
    Z(w, GpuActivity, src_device, m->src_device);
    Z(w, GpuActivity, dst_device, m->dst_device);
    U(w, GpuActivity, grid_x, m->grid_x);
    U(w, GpuActivity, grid_y, m->grid_y);
    U(w, GpuActivity, grid_z, m->grid_z);
    U(w, GpuActivity, block_x, m->block_x);
    U(w, GpuActivity, block_y, m->block_y);
    U(w, GpuActivity, block_z, m->block_z);
    U(w, GpuActivity, value, m->value);
    U(w, GpuActivity, flags, m->flags);
    U(w, GpuActivity, registers_per_thread, m->registers_per_thread);
    if (m->shared_mem_known) {
        pbw_u64_present(w, PB_GpuActivity_static_shared_mem_bytes, m->static_shared_mem_bytes);
        pbw_u64_present(w, PB_GpuActivity_dynamic_shared_mem_bytes, m->dynamic_shared_mem_bytes);
        pbw_u64_present(w, PB_GpuActivity_shared_mem_per_block_bytes, m->shared_mem_per_block_bytes);
    }
    U(w, GpuActivity, graph_id, m->graph_id);
    U(w, GpuActivity, graph_node_id, m->graph_node_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_clock_sync_body(pbw *out, uint64_t gpu_clock_ns, uint64_t monotonic_ns, const char *source) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_clock_sync);
    U(w, ClockSync, gpu_clock_ns, gpu_clock_ns);
    U(w, ClockSync, monotonic_ns, monotonic_ns);
    S(w, ClockSync, source, source, 64);
    pbw_end(w, b);
    DONE(out);
}

void enc_loss_body(pbw *out, const enc_loss *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_loss);
    U(w, Loss, records, m->records);
    U(w, Loss, bytes, m->bytes);
    S(w, Loss, reason, m->reason, ENC_MAX_NAME);
    U(w, Loss, since_ns, m->since_ns);
    pbw_end(w, b);
    DONE(out);
}

void enc_process_end_body(pbw *out, const enc_process_end *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_process_end);
    Z(w, ProcessEnd, exit_code, m->exit_code);
    Z(w, ProcessEnd, signal, m->signal);
    U(w, ProcessEnd, events, m->events);
    U(w, ProcessEnd, dropped, m->dropped);
    S(w, ProcessEnd, cudart_path, m->cudart_path, ENC_MAX_PATH);
    U(w, ProcessEnd, cuda_calls, m->cuda_calls);
    pbw_end(w, b);
    DONE(out);
}

void enc_note_body(pbw *out, const char *text, const char *severity) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_note);
    S(w, Note, text, text, ENC_MAX_NAME);
    S(w, Note, severity, severity, 32);
    pbw_end(w, b);
    DONE(out);
}

void enc_device_info_body(pbw *out, const enc_device_info *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_device_info);
    Z(w, DeviceInfo, device, m->device);
    U(w, DeviceInfo, source, m->source);
    S(w, DeviceInfo, name, m->name, 256);
    U(w, DeviceInfo, compute_major, m->compute_major);
    U(w, DeviceInfo, compute_minor, m->compute_minor);
    U(w, DeviceInfo, multiprocessor_count, m->multiprocessor_count);
    U(w, DeviceInfo, clock_rate_khz, m->clock_rate_khz);
    U(w, DeviceInfo, memory_clock_rate_khz, m->memory_clock_rate_khz);
    U(w, DeviceInfo, memory_bus_width_bits, m->memory_bus_width_bits);
    U(w, DeviceInfo, memory_bandwidth_bytes_per_sec, m->memory_bandwidth_bytes_per_sec);
    U(w, DeviceInfo, total_memory_bytes, m->total_memory_bytes);
    U(w, DeviceInfo, l2_cache_bytes, m->l2_cache_bytes);
    U(w, DeviceInfo, max_threads_per_multiprocessor, m->max_threads_per_multiprocessor);
    U(w, DeviceInfo, max_blocks_per_multiprocessor, m->max_blocks_per_multiprocessor);
    U(w, DeviceInfo, registers_per_multiprocessor, m->registers_per_multiprocessor);
    U(w, DeviceInfo, shared_mem_per_multiprocessor_bytes, m->shared_mem_per_multiprocessor_bytes);
    U(w, DeviceInfo, max_threads_per_block, m->max_threads_per_block);
    U(w, DeviceInfo, registers_per_block, m->registers_per_block);
    U(w, DeviceInfo, shared_mem_per_block_bytes, m->shared_mem_per_block_bytes);
    U(w, DeviceInfo, shared_mem_per_block_optin_bytes, m->shared_mem_per_block_optin_bytes);
    U(w, DeviceInfo, warp_size, m->warp_size);
    S(w, DeviceInfo, pci_bus_id, m->pci_bus_id, 64);
    I(w, DeviceInfo, query_error, m->query_error);
    pbw_end(w, b);
    DONE(out);
}

void enc_annotation_body(pbw *out, const enc_annotation *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_annotation);
    U(w, Annotation, kind, m->kind);
    S(w, Annotation, message, m->message, ENC_MAX_NAME);
    S(w, Annotation, domain, m->domain, ENC_MAX_NAME);
    U(w, Annotation, range_id, m->range_id);
    Z(w, Annotation, level, m->level);
    U(w, Annotation, category, m->category);
    pbw_end(w, b);
    DONE(out);
}

void enc_mpi_body(pbw *out, const enc_mpi *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_mpi);
    U(w, MpiCall, op, m->op);
    U(w, MpiCall, comm, m->comm);
    U(w, MpiCall, comm_size, m->comm_size);
    Z(w, MpiCall, rank, m->rank);
    Z(w, MpiCall, peer, m->peer);
    Z(w, MpiCall, tag, m->tag);
    U(w, MpiCall, bytes, m->bytes);
    pbw_bool(w, PB_MpiCall_device_buffer, m->device_buffer);
    Z(w, MpiCall, recv_peer, m->recv_peer);
    Z(w, MpiCall, recv_tag, m->recv_tag);
    U(w, MpiCall, recv_bytes, m->recv_bytes);
    pbw_bool(w, PB_MpiCall_recv_device_buffer, m->recv_device_buffer);
    U(w, MpiCall, request, m->request);
    U(w, MpiCall, total_bytes, m->total_bytes);
    F(w, MpiCall, send_buffer, m->send_buffer);
    F(w, MpiCall, recv_buffer, m->recv_buffer);
    pbw_bool(w, PB_MpiCall_in_place, m->in_place);
    uint32_t n = m->ncompleted < ENC_MAX_MPI_COMPLETIONS ? m->ncompleted : ENC_MAX_MPI_COMPLETIONS;
    for (uint32_t i = 0; i < n; i++) {
        const enc_mpi_completion *c = &m->completed[i];
        uint8_t *cb = pbw_begin(w, PB_MpiCall_completed);
        U(w, MpiCompletion, request, c->request);
        pbw_bool(w, PB_MpiCompletion_receive, c->receive);
        Z(w, MpiCompletion, source, c->source);
        Z(w, MpiCompletion, tag, c->tag);
        U(w, MpiCompletion, bytes, c->bytes);
        pbw_end(w, cb);
    }
    pbw_bool(w, PB_MpiCall_found, m->found);
    for (uint32_t i = 0; i < m->nunrecorded; i++) {
        uint8_t *ub = pbw_begin(w, PB_MpiCall_unrecorded);
        S(w, MpiUnrecorded, function, m->unrecorded[i].function, ENC_MAX_NAME);
        U(w, MpiUnrecorded, calls, m->unrecorded[i].calls);
        pbw_end(w, ub);
    }
    pbw_end(w, b);
    DONE(out);
}

/* ---- CUDA graphs ---- */

uint8_t *enc_graph_exec_begin(pbw *out, const enc_graph_exec *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_graph_exec);
    F(w, GraphExec, exec, m->exec);
    F(w, GraphExec, graph, m->graph);
    Z(w, GraphExec, device, m->device);
    U(w, GraphExec, node_count, m->node_count);
    U(w, GraphExec, edge_count, m->edge_count);
    pbw_bool(w, PB_GraphExec_part, m->part);
    pbw_bool(w, PB_GraphExec_replace, m->replace);
    U(w, GraphExec, nodes_not_recorded, m->nodes_not_recorded);
    DONE(out);
    return b;
}

void enc_graph_node_write(pbw *out, const enc_graph_node *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_GraphExec_nodes);
    F(w, GraphNode, id, m->id);
    U(w, GraphNode, kind, m->kind);
    F(w, GraphNode, parent, m->parent);
    F(w, GraphNode, host_function, m->host_function);
    F(w, GraphNode, user_data, m->user_data);
    F(w, GraphNode, event, m->event);
    F(w, GraphNode, ptr, m->ptr);
    U(w, GraphNode, bytes, m->bytes);
    pbw_bool(w, PB_GraphNode_disabled, m->disabled);
    I(w, GraphNode, query_error, m->query_error);
    DONE(out);
    /* the nested parameter messages have GraphNode's numbers, which are Event's */
    _Static_assert(PB_GraphNode_copy == PB_Event_copy && PB_GraphNode_memset == PB_Event_memset &&
                       PB_GraphNode_launch == PB_Event_launch,
                   "GraphNode numbers its parameters as Event does");
    if (m->copy) enc_copy_body(out, m->copy);
    if (m->memset) enc_memset_body(out, m->memset);
    if (m->launch) enc_launch_body(out, m->launch);
    w = out;
    pbw_end(w, b);
}

void enc_graph_edge(pbw *out, uint64_t from, uint64_t to) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_GraphExec_edges);
    F(w, GraphEdge, from, from);
    F(w, GraphEdge, to, to);
    pbw_end(w, b);
    DONE(out);
}

void enc_nccl_body(pbw *out, const enc_nccl *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_nccl);
    U(w, NcclCall, op, m->op);
    F(w, NcclCall, comm, m->comm);
    Z(w, NcclCall, rank, m->rank);
    U(w, NcclCall, comm_size, m->comm_size);
    Z(w, NcclCall, peer, m->peer);
    U(w, NcclCall, bytes, m->bytes);
    U(w, NcclCall, stream, m->stream);
    F(w, NcclCall, comm_id, m->comm_id);
    U(w, NcclCall, total_bytes, m->total_bytes);
    F(w, NcclCall, send_buffer, m->send_buffer);
    F(w, NcclCall, recv_buffer, m->recv_buffer);
    pbw_end(w, b);
    DONE(out);
}

void enc_graph_exec_end(pbw *w, uint8_t *head) {
    pbw_end(w, head);
}

void enc_graph_launch_body(pbw *out, const enc_graph_launch *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_graph_launch);
    F(w, GraphLaunch, exec, m->exec);
    F(w, GraphLaunch, stream, m->stream);
    Z(w, GraphLaunch, device, m->device);
    U(w, GraphLaunch, capture_id, m->capture_id);
    pbw_end(w, b);
    DONE(out);
}

void enc_stream_capture_body(pbw *out, const enc_stream_capture *m) {
    LOCAL_WRITER(out);
    uint8_t *b = pbw_begin(w, PB_Event_stream_capture);
    F(w, StreamCapture, stream, m->stream);
    U(w, StreamCapture, capture_id, m->capture_id);
    U(w, StreamCapture, mode, m->mode);
    F(w, StreamCapture, graph, m->graph);
    pbw_end(w, b);
    DONE(out);
}
