/* Encoders for the bodies of apptrace.proto's Event, one per message type.
 *
 * Each enc_* writes one body field of an Event (tag, length and the message's fields) from a plain
 * C struct whose members have the proto field's name. They are pure (no globals, no allocation),
 * so tests/native/test_encode.c can write every message type with known values and the Java
 * EncoderConformanceTest can check them field by field against the generated decoder.
 */
#ifndef APPTRACE_ENCODE_H
#define APPTRACE_ENCODE_H

#include <stdbool.h>
#include <stdint.h>

#include "pbwire.h"
#include "schema.h"

/* Caps that keep every event far below a packet (see record.h). */
#define ENC_MAX_ARGV 256
#define ENC_MAX_ARG_BYTES 4096
#define ENC_MAX_PATH 4096
#define ENC_MAX_NAME 2048
#define ENC_MAX_KERNEL_PARAMS 256
#define ENC_MAX_LAUNCH_ARGS 4096
#define ENC_MAX_MODULES 64

typedef struct {
    uint32_t pid, ppid, uid;
    const char *argv_buf;  /* NUL-separated arguments (as /proc/self/cmdline holds them) */
    uint32_t argv_len;
    uint64_t monotonic_ns, realtime_ns;
    const char *executable, *hostname, *collector_version, *cupti_status, *clock_source;
    bool simulated_device, cupti_enabled;
    uint64_t malloc_threshold_bytes;
} enc_process_start;

typedef struct {
    uint32_t tid;
    const char *name;
    bool main_thread;
} enc_thread_start;

typedef struct {
    const char *path;
    uint64_t start, end, file_offset;
    const char *build_id;
    uint64_t load_bias;
} enc_module;

typedef struct {
    int kind; /* PB_MemoryKind_* */
    uint64_t ptr, bytes;
    uint32_t flags;
    int32_t device;
    uint64_t stream, pitch, width, height, depth;
    const char *host_function;
    uint64_t previous_ptr;
    bool numa_known; /* numa_node is written only when known (node 0 is a node) */
    uint32_t numa_node;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_alloc;

typedef struct {
    int kind;
    uint64_t ptr, stream;
    int32_t device;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_free;

typedef struct {
    uint64_t dst, src, bytes;
    int kind_called, kind_resolved, resolution;
    uint64_t stream;
    bool async;
    int32_t dst_device, src_device;
    uint32_t dims;
    uint64_t dpitch, spitch, width, height, depth;
    const char *symbol;
    uint64_t symbol_host_address, symbol_offset;
    int32_t dst_memory_type, src_memory_type, device;
    const void *symbol_data; /* host bytes copied to a variable, symbol_data_len of them */
    uint32_t symbol_data_len;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_copy;

typedef struct {
    uint64_t ptr;
    int32_t value;
    uint64_t bytes, stream;
    bool async;
    uint32_t dims;
    uint64_t pitch, width, height, depth;
    int32_t device;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_memset;

typedef struct {
    uint32_t index, offset, size;
    int type; /* PB_ParamType_* */
    const char *type_name;
    uint32_t recorded_offset, recorded_size;
} enc_kernel_param;

typedef struct {
    uint64_t kernel_id;
    const char *mangled_name, *demangled_name;
    const enc_kernel_param *params;
    uint32_t nparams;
    int decode;
    uint32_t params_bytes;
} enc_kernel_info;

typedef struct {
    uint64_t kernel_id;
    uint32_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
    uint64_t shared_mem_bytes, stream;
    const void *args;
    uint32_t args_len;
    int decode;
    bool args_truncated, cooperative;
    int32_t device;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_launch;

typedef struct {
    uint64_t stream;
    uint32_t flags;
    int32_t priority, device;
} enc_stream_op;

typedef struct {
    uint64_t event, stream;
    uint32_t flags;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_event_op;

typedef struct {
    int scope; /* PB_SyncScope_* */
    uint64_t stream, event;
    int32_t device;
} enc_sync;

typedef struct {
    int32_t device, peer;
    uint32_t flags;
    bool enable;
} enc_peer;

typedef struct {
    uint64_t ptr, bytes;
    int32_t device;
    uint64_t stream;
    int32_t location_type;
} enc_prefetch;

typedef struct {
    uint64_t ptr, bytes;
    int32_t advice, device, location_type;
} enc_advise;

typedef struct {
    uint64_t stream, function, user_data;
    uint64_t capture_id; /* the stream's capture (0: not captured): a graph node, not work */
} enc_callback;

typedef struct {
    uint64_t host_address;
    const char *name;
    uint64_t bytes;
    bool constant, managed;
    uint64_t device_address;
} enc_symbol;

typedef struct {
    uint64_t correlation_id;
    int kind; /* PB_GpuActivityKind_* */
    uint64_t start_ns, end_ns;
    int32_t device;
    uint64_t stream_id;
    uint32_t context;
    int copy_kind, src_kind, dst_kind;
    uint64_t bytes;
    const char *name;
    int32_t src_device, dst_device;
    uint32_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
    uint32_t value, flags;
    uint32_t registers_per_thread;
    bool shared_mem_known; /* the three below are written only when known (0 bytes is a size) */
    uint64_t static_shared_mem_bytes, dynamic_shared_mem_bytes, shared_mem_per_block_bytes;
    uint64_t graph_id, graph_node_id; /* CUPTI's, for work a graph launch ran (0: none) */
} enc_gpu;

/* DeviceInfo: a device as the runtime describes it (0: not known). */
typedef struct {
    int32_t device;
    int source; /* PB_DeviceInfoSource_* */
    const char *name;
    uint32_t compute_major, compute_minor, multiprocessor_count;
    uint32_t clock_rate_khz, memory_clock_rate_khz, memory_bus_width_bits;
    uint64_t memory_bandwidth_bytes_per_sec, total_memory_bytes, l2_cache_bytes;
    uint32_t max_threads_per_multiprocessor, max_blocks_per_multiprocessor, registers_per_multiprocessor;
    uint64_t shared_mem_per_multiprocessor_bytes;
    uint32_t max_threads_per_block, registers_per_block;
    uint64_t shared_mem_per_block_bytes, shared_mem_per_block_optin_bytes;
    uint32_t warp_size;
    const char *pci_bus_id;
    int32_t query_error;
} enc_device_info;

typedef struct {
    uint64_t records, bytes;
    const char *reason;
    uint64_t since_ns;
} enc_loss;

typedef struct {
    int32_t exit_code, signal;
    uint64_t events, dropped;
    const char *cudart_path;
    uint64_t cuda_calls;
} enc_process_end;

typedef struct {
    int kind; /* PB_AnnotationKind_* */
    const char *message; /* at most ENC_MAX_NAME bytes of it are written */
    const char *domain;
    uint64_t range_id;
    int32_t level;
    uint32_t category;
} enc_annotation;

/* At most this many completed requests are written per MPI call (the rest are counted). */
#define ENC_MAX_MPI_COMPLETIONS 256

typedef struct {
    uint64_t request;
    bool receive;
    int32_t source, tag;
    uint64_t bytes;
} enc_mpi_completion;

/* An MPI function passed through unrecorded, and how many times it was called (MPI_Finalize). */
typedef struct {
    const char *function;
    uint64_t calls;
} enc_mpi_unrecorded;

typedef struct {
    int op; /* PB_MpiOp_* */
    uint64_t comm;
    uint32_t comm_size;
    int32_t rank, peer, tag;
    uint64_t bytes, total_bytes;
    bool device_buffer;
    int32_t recv_peer, recv_tag;
    uint64_t recv_bytes;
    bool recv_device_buffer;
    uint64_t request;
    const enc_mpi_completion *completed;
    uint32_t ncompleted;
    uint64_t send_buffer, recv_buffer; /* addresses; 0: none, or MPI_IN_PLACE */
    bool in_place;
    bool found; /* MPI_Iprobe: a message was there */
    const enc_mpi_unrecorded *unrecorded;
    uint32_t nunrecorded;
} enc_mpi;

typedef struct {
    int op; /* PB_NcclOp_* */
    uint64_t comm;
    int32_t rank, peer;
    uint32_t comm_size;
    uint64_t bytes, stream, comm_id, total_bytes;
    uint64_t send_buffer, recv_buffer; /* addresses; 0: none */
} enc_nccl;

/* The fields every Event starts with. */
typedef struct {
    uint64_t entry_ns, duration_ns;
    int api;
    int32_t result;
    uint64_t call_site, correlation_id;
    uint64_t thread_cpu_ns, thread_cpu_exit_ns, collector_ns; /* 0: not read (see apptrace.proto) */
} enc_event_head;

void enc_event_head_fields(pbw *w, const enc_event_head *h);

/* The same, inline, for the recorder's hot path (on a writer held in registers). */
static inline void enc_event_head_write(pbw *w, uint64_t entry_ns, uint64_t duration_ns, int api,
                                        int32_t result, uint64_t call_site, uint64_t correlation_id) {
    pbw_f64(w, PB_Event_entry_ns, entry_ns);
    pbw_u64(w, PB_Event_duration_ns, duration_ns);
    pbw_u64(w, PB_Event_api, (uint64_t)api);
    pbw_i32(w, PB_Event_result, result);
    pbw_f64(w, PB_Event_call_site, call_site);
    pbw_u64(w, PB_Event_correlation_id, correlation_id);
}
void enc_process_start_body(pbw *w, const enc_process_start *m);
void enc_thread_start_body(pbw *w, const enc_thread_start *m);
void enc_modules_body(pbw *w, const enc_module *mods, uint32_t n);
void enc_set_device_body(pbw *w, int32_t device, uint32_t flags);
void enc_alloc_body(pbw *w, const enc_alloc *m);
void enc_free_body(pbw *w, const enc_free *m);
void enc_copy_body(pbw *w, const enc_copy *m);
void enc_memset_body(pbw *w, const enc_memset *m);
void enc_kernel_info_body(pbw *w, const enc_kernel_info *m);
void enc_launch_body(pbw *w, const enc_launch *m);
void enc_stream_body(pbw *w, const enc_stream_op *m);
void enc_event_op_body(pbw *w, const enc_event_op *m);
void enc_sync_body(pbw *w, const enc_sync *m);
void enc_peer_body(pbw *w, const enc_peer *m);
void enc_prefetch_body(pbw *w, const enc_prefetch *m);
void enc_advise_body(pbw *w, const enc_advise *m);
void enc_callback_body(pbw *w, const enc_callback *m);
void enc_symbol_body(pbw *w, const enc_symbol *m);
void enc_fork_body(pbw *w, uint32_t child_pid);
void enc_gpu_body(pbw *w, const enc_gpu *m);
void enc_clock_sync_body(pbw *w, uint64_t gpu_clock_ns, uint64_t monotonic_ns, const char *source);
void enc_loss_body(pbw *w, const enc_loss *m);
void enc_process_end_body(pbw *w, const enc_process_end *m);
void enc_note_body(pbw *w, const char *text, const char *severity);
void enc_device_info_body(pbw *w, const enc_device_info *m);
void enc_annotation_body(pbw *w, const enc_annotation *m);
void enc_mpi_body(pbw *w, const enc_mpi *m);
void enc_nccl_body(pbw *w, const enc_nccl *m);

/* CUDA graphs. A GraphExec is written as a head (enc_graph_exec_begin ... its nodes and edges ...
 * enc_graph_exec_end); each node's parameters reuse the Copy, Memset and KernelLaunch encoders
 * (GraphNode numbers them as Event does). */
typedef struct {
    uint64_t exec, graph;
    int32_t device;
    uint32_t node_count, edge_count, nodes_not_recorded;
    bool part, replace;
} enc_graph_exec;

typedef struct {
    uint64_t id, parent;
    int kind; /* PB_GraphNodeKind_* */
    uint64_t host_function, user_data, event, ptr, bytes;
    bool disabled;
    int32_t query_error;
    const enc_copy *copy;
    const enc_memset *memset;
    const enc_launch *launch;
} enc_graph_node;

typedef struct {
    uint64_t exec, stream, capture_id;
    int32_t device;
} enc_graph_launch;

typedef struct {
    uint64_t stream, capture_id, graph;
    uint32_t mode;
} enc_stream_capture;

uint8_t *enc_graph_exec_begin(pbw *w, const enc_graph_exec *m);
void enc_graph_node_write(pbw *w, const enc_graph_node *m);
void enc_graph_edge(pbw *w, uint64_t from, uint64_t to);
void enc_graph_exec_end(pbw *w, uint8_t *head);
void enc_graph_launch_body(pbw *w, const enc_graph_launch *m);
void enc_stream_capture_body(pbw *w, const enc_stream_capture *m);

/* The header of a Batch (pid, tid, seq); its events follow as repeated field 4. */
void enc_batch_head(pbw *w, uint32_t pid, uint32_t tid, uint64_t seq);

#endif
