/* The simulated CUDA runtime: shared state and the interfaces between its files.
 *
 * A process sees N simulated devices. Device memory is host memory from address ranges the
 * simulator reserves (one per device, plus one for managed memory); copies and memsets really
 * move bytes; kernels are validated and ordered on their stream but never run. Every operation
 * advances a simulated clock by a modeled duration (timing.c), which events report.
 *
 * Locks, always taken in this order: sim_reg_lock (registered modules, kernels, variables), then
 * sim_sched_lock (streams, events, queues, clocks, device state), then sim_mem_lock (address
 * ranges and host regions). A public call holds them only for its own work, never while it runs
 * a host callback or waits for the worker.
 */
#ifndef APPTRACE_SIM_H
#define APPTRACE_SIM_H

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_API __attribute__((visibility("default")))

#define SIM_MAX_DEVICES 64
#define SIM_ALIGN 256u

/* ---- errors.c ------------------------------------------------------------------------------ */

extern __thread cudaError_t sim_last_error;

/* Records a failure as the thread's last error (CUDA: every failing call does) and returns it. */
static inline cudaError_t sim_result(cudaError_t e) {
    if (e != cudaSuccess)
        sim_last_error = e;
    return e;
}

/* ---- init.c -------------------------------------------------------------------------------- */

/* cudaSuccess once the configuration is loaded, cudaErrorInitializationError forever after a bad
 * one. Cheap after the first call. */
cudaError_t sim_init(void);

/* Enters a public function: initializes lazily and fails the call if initialization failed. */
#define SIM_ENTER()                                                                                \
    do {                                                                                           \
        cudaError_t sim_init_status_ = sim_init();                                                 \
        if (sim_init_status_ != cudaSuccess)                                                       \
            return sim_result(sim_init_status_);                                                   \
    } while (0)

extern pthread_mutex_t sim_reg_lock;
extern pthread_mutex_t sim_sched_lock;
extern pthread_mutex_t sim_mem_lock;

uint64_t sim_now_ns(void); /* host clock, ns since the runtime started (see sim_host_catch_up) */
void sim_host_catch_up(uint64_t t_ns);
/* Brackets work the simulator does for the device (moving bytes): excluded from host time. */
uint64_t sim_overhead_start(void);
void sim_overhead_stop(uint64_t start); /* nested brackets count once */
void sim_sleep_until(uint64_t t_ns);

/* ---- config.c ------------------------------------------------------------------------------ */

enum sim_xfer_kind { SIM_H2D_PINNED, SIM_D2H_PINNED, SIM_H2D_PAGEABLE, SIM_D2H_PAGEABLE, SIM_D2D,
                     SIM_PEER, SIM_H2H, SIM_XFER_KINDS };

typedef struct {
    double latency_ns;
    double bandwidth_bytes_per_s;
} sim_link;

typedef struct {
    sim_link xfer[SIM_XFER_KINDS];
    double kernel_duration_ns;
    double memset_latency_ns;
} sim_timing;

typedef struct {
    struct cudaDeviceProp prop;
    int clock_rate_khz;
    int memory_clock_rate_khz;
    int compute_mode;
    int single_to_double_perf_ratio;
    double memory_bandwidth_bytes_per_s; /* memsets; 0: from clock and bus width */
} sim_device_config;

typedef struct {
    int device_count;
    bool quiet;
    bool realtime;
    sim_timing timing;
    sim_device_config dev[SIM_MAX_DEVICES];
    bool peer[SIM_MAX_DEVICES][SIM_MAX_DEVICES]; /* may device a access device b's memory */
} sim_config;

extern sim_config sim_cfg;

/* Fills sim_cfg from the defaults, APPTRACE_SIM_CONFIG and the environment. Returns 0, or -1
 * after printing one line about what is wrong. */
int sim_config_load(void);

/* ---- device.c ------------------------------------------------------------------------------ */

extern __thread int sim_current_device;
cudaError_t sim_check_device(int device);
bool sim_peer_enabled(int from, int to); /* requires sim_sched_lock */

/* ---- memory.c, heap.c ---------------------------------------------------------------------- */

typedef enum {
    SIM_MEM_UNREGISTERED, /* ordinary (pageable) host memory, or anything unknown */
    SIM_MEM_HOST,         /* pinned by cudaHostAlloc/cudaMallocHost or cudaHostRegister */
    SIM_MEM_DEVICE,       /* cudaMalloc and friends */
    SIM_MEM_MANAGED,      /* cudaMallocManaged, __managed__ variables */
    SIM_MEM_MODULE,       /* __device__ / __constant__ variables: device memory, not freeable */
} sim_memtype;

typedef struct {
    sim_memtype type;
    int device;         /* owning device; for host memory the device current at allocation */
    uintptr_t base;     /* start of the allocation or region */
    size_t size;        /* its size as requested */
    unsigned flags;     /* cudaHostAlloc / cudaHostRegister / cudaMallocManaged flags */
    bool registered;    /* SIM_MEM_HOST from cudaHostRegister */
    bool in_device_range; /* the address is inside a simulated device range (even if not live) */
} sim_ptrinfo;

/* Classifies p (requires sim_mem_lock). Never fails: unknown memory is SIM_MEM_UNREGISTERED. */
void sim_mem_lookup(const void *p, sim_ptrinfo *out);
/* The same; with `graph_mem`, graph allocations count as device memory even while unmapped. */
void sim_mem_lookup_ex(const void *p, sim_ptrinfo *out, bool graph_mem);
bool sim_is_device_side(sim_memtype t); /* DEVICE, MANAGED or MODULE */

/* Flag of managed memory that backs a __managed__ variable: never freed, even by a reset. */
#define SIM_FLAG_MODULE_VAR 0x80000000u

void *sim_mem_alloc(int device, size_t size, sim_memtype type, unsigned flags); /* sim_mem_lock */
void sim_mem_set_pool(void *p, void *pool);
void sim_mem_forget_pool(int device, void *pool);
int sim_mem_free(void *p); /* requires sim_mem_lock; 0 or -1 (not a live allocation base) */
size_t sim_mem_used(int device);
size_t sim_mem_capacity(int device);
void sim_mem_free_device(int device); /* cudaDeviceReset: every allocation of the device */
void sim_mem_set_resident(const void *p, int location);
int sim_mem_resident(const void *p);

/* Graph memory (memory.c; requires sim_mem_lock): allocations of graph alloc nodes get their
 * address when the node is created, from a range of their own; they are mapped (accessible to
 * the API, counted in the device's memory) while allocated by a launch. */
void *sim_graph_mem_reserve(int device, size_t size);
void sim_graph_mem_release(void *p);      /* gives the address back, now or once unmapped */
cudaError_t sim_graph_mem_map(void *p);   /* cudaErrorMemoryAllocation: device full */
bool sim_graph_mem_is_graph(const void *p, bool *mapped); /* p is the base of a graph allocation */
size_t sim_graph_mem_available(int device); /* device memory not allocated */
void sim_graph_mem_stats(int device, size_t *current, size_t *high);
void sim_graph_mem_reset_high(int device);

/* ---- sched.c, timing.c: operations, streams, markers --------------------------------------- */

/* A point in a stream's work: done once the work before it ran; `time_ns` is its simulated time.
 * Events hold markers; so do waits and synchronous callers. Requires sim_sched_lock. */
typedef struct sim_marker {
    int refs;
    bool done;
    bool floating; /* recorded on an idle stream: takes the start time of that stream's next work */
    uint64_t time_ns;
    struct sim_marker *float_next;
} sim_marker;

sim_marker *sim_marker_new(void);
void sim_marker_ref(sim_marker *m);
void sim_marker_unref(sim_marker *m);
void sim_marker_observe(sim_marker *m); /* fixes a floating marker's time */

typedef enum { SIM_STREAM_LEGACY, SIM_STREAM_PER_THREAD, SIM_STREAM_USER } sim_stream_kind;

typedef struct sim_op sim_op;

struct sim_capture;
struct sim_gnode;

typedef struct sim_stream {
    sim_stream_kind kind;
    int device;
    unsigned flags;
    int priority;
    unsigned long long id;
    bool blocking;  /* synchronizes with the legacy default stream */
    bool destroyed; /* the handle is gone; freed once its queue drains */
    bool internal;  /* runs the nodes of graph launches; no handle, survives device resets */
    int holds;      /* threads using it without the lock (waiting, running a host function) */
    sim_op *head, *tail;
    size_t queued;
    uint64_t last_end_ns;
    sim_marker *floating;
    struct sim_stream *pending_prev, *pending_next; /* streams with queued work */
    struct sim_stream *dev_prev, *dev_next;         /* every stream of the device */
    /* Stream capture (capture.c): the sequence this stream takes part in, and the nodes the next
     * captured operation depends on, with their edge data (all zero). */
    struct sim_capture *cap;
    struct sim_gnode **cap_deps;
    cudaGraphEdgeData *cap_edges;
    size_t cap_ndeps, cap_depcap;
} sim_stream;

typedef enum {
    SIM_OP_COPY,
    SIM_OP_MEMSET,
    SIM_OP_KERNEL,
    SIM_OP_PREFETCH,
    SIM_OP_RECORD,
    SIM_OP_WAIT,
    SIM_OP_HOST_FN,
    SIM_OP_FREE,
    SIM_OP_GRAPH_MAP, /* a graph allocation becomes accessible (its alloc node ran) */
    SIM_OP_MARK,      /* the start of a graph launch: takes no time, pulls floating markers */
} sim_op_kind;

enum { SIM_ENGINE_COMPUTE, SIM_ENGINE_COPY_IN, SIM_ENGINE_COPY_OUT, SIM_ENGINES };

/* A strided block of bytes: depth slices of height rows of width bytes. */
typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    size_t dpitch, spitch, dslice, sslice;
    size_t width, height, depth;
    int value;     /* memset */
    unsigned elem; /* memset element size in bytes: 1 (or 0), 2 or 4; width counts bytes */
} sim_xfer;

struct sim_op {
    sim_op *next;
    sim_op_kind kind;
    int engine_device; /* device whose engine runs it; -1 for none */
    int engine;
    int peer_device;   /* second device of a peer copy, -1 otherwise */
    int peer_engine;
    uint64_t duration_ns;
    uint64_t submit_ns;
    sim_xfer x;
    void *staging;        /* owned copy of a pageable source */
    sim_marker *marker;   /* RECORD completes it, WAIT waits for it */
    sim_marker *complete; /* set done (time = end) when the op has run; for synchronous callers */
    void (*host_fn)(void *);
    void *user;
    cudaStreamCallback_t callback;
    cudaStream_t callback_stream;
    void *free_ptr;
    int prefetch_location;
    bool internal; /* a record made for implicit synchronization: never floats */
    bool running;
};

/* Runs op on s now when nothing is ahead of it, else queues a heap copy of it for the worker;
 * either way op's references (markers, staging) pass to the simulator. Requires sim_sched_lock.
 * Returns cudaErrorMemoryAllocation if a copy cannot be queued (op untouched then). */
cudaError_t sim_submit(sim_stream *s, sim_op *op);
/* The same with a given submission time (graph launches submit all their nodes at the launch's). */
cudaError_t sim_submit_at(sim_stream *s, sim_op *op, uint64_t submit_ns);
/* The same, then waits (releasing the lock) until op has run; returns its end time. */
cudaError_t sim_submit_wait(sim_stream *s, sim_op *op, uint64_t *end_ns);
bool sim_stream_busy(const sim_stream *s); /* queued work, or legacy/blocking dependencies */

/* Wait (sim_sched_lock held, released while waiting) until the work is done; end_ns gets its
 * simulated end. */
cudaError_t sim_wait_stream(sim_stream *s, uint64_t *end_ns);
cudaError_t sim_wait_device(int device);           /* likewise; every stream of the device */
cudaError_t sim_wait_marker(sim_marker *m);        /* likewise */
/* The host has waited for simulated time t: sleeps in real-time mode (dropping sim_sched_lock),
 * else moves the host clock forward. */
void sim_wait_host_until(uint64_t t_ns);

void sim_sched_link_stream(sim_stream *s);
void sim_sched_release_stream(sim_stream *s); /* drop a destroyed stream, now or once drained */
sim_stream *sim_device_streams(int device);   /* head of the device's stream list */
uint64_t sim_device_end(int device);          /* latest end of any work on the device */
void sim_sched_atfork_child(void);
extern __thread bool sim_in_callback;

/* timing.c */
uint64_t sim_xfer_duration(int device, enum sim_xfer_kind kind, size_t bytes);
uint64_t sim_memset_duration(int device, size_t bytes);
uint64_t sim_kernel_duration(void);
double sim_device_memory_bandwidth(int device);
int sim_copy_engine(int device, enum sim_xfer_kind kind, bool source_side);
uint64_t *sim_blocking_end(int device);

/* ---- stream.c ------------------------------------------------------------------------------ */

/* Resolves a stream handle (requires sim_sched_lock). 0 is the legacy default stream, or the
 * calling thread's default stream when per_thread (the _ptsz/_ptds entry points). */
cudaError_t sim_stream_resolve(cudaStream_t h, bool per_thread, sim_stream **out);
sim_stream *sim_legacy_stream(int device);
/* A stream without handle on which graph launches run their nodes (non-blocking). Released with
 * sim_sched_release_stream. */
sim_stream *sim_internal_stream(int device);
void sim_streams_reset_device(int device); /* cudaDeviceReset; sim_sched_lock held */
void sim_events_reset_device(int device);
/* The calling thread's mode (cudaThreadExchangeStreamCaptureMode; capture.c). */
extern __thread enum cudaStreamCaptureMode sim_capture_mode;

/* ---- event.c ------------------------------------------------------------------------------- */

typedef struct {
    int device;
    unsigned flags;
    sim_marker *marker; /* NULL until first recorded */
    /* Recorded in a capturing stream (capture.c): the capture and the nodes the record stood for.
     * The event is "captured" while that capture is going on. */
    struct sim_capture *cap;
    struct sim_gnode **cap_nodes;
    size_t cap_n;
} sim_event;

sim_event *sim_event_get(cudaEvent_t event); /* NULL if not a live event; requires sim_sched_lock */

/* ---- module.c, symbols.c ------------------------------------------------------------------- */

typedef struct {
    const char *name;
    const void *host_fun; /* the host stub it was registered with */
    int max_threads;    /* this kernel's limit (launch bounds, registers) */
    size_t static_smem;
    int max_dynamic_smem;
    int num_params;
    int regs;
} sim_kernel_limits;

/* Looks up a kernel by host stub address or cudaKernel_t handle. */
cudaError_t sim_kernel_limits_of(const void *func, sim_kernel_limits *out);

/* Copies a launch's arguments, given as kernelParams (needs the kernel's parameter layout) or as
 * an `extra` buffer, into one allocation that *blob receives (NULL when there is nothing it can
 * copy). *params or *extra_out point into it. Takes sim_reg_lock. */
cudaError_t sim_kernel_args_copy(const void *func, void **args, void **extra, void **blob,
                                 void ***params, void ***extra_out);

/* launch.c: validates a launch configuration of func on the current device as a launch would. */
cudaError_t sim_check_launch(const void *func, dim3 grid, dim3 block, size_t shmem);

typedef struct {
    void *device_ptr;
    size_t size;
    bool managed;
} sim_symbol;

/* Device address of a registered variable on the current device (allocated on first use). */
cudaError_t sim_symbol_lookup(const void *symbol, sim_symbol *out);
/* The bytes of a copy to or from a symbol, checked as cudaMemcpyToSymbol/FromSymbol check them. */
cudaError_t sim_symbol_xfer(const void *symbol, void *other, size_t count, size_t offset,
                            enum cudaMemcpyKind kind, bool to_symbol, sim_xfer *x);
const char *sim_kernel_name(const void *func); /* registered name or NULL; sim_reg_lock held */
void sim_symbols_reset_device(int device); /* sim_reg_lock held */
void sim_symbols_unregister(void *module);  /* sim_reg_lock held */
void *sim_module_of(void **handle);         /* sim_reg_lock held */
void *sim_module_wrapper(void *module);     /* its __fatBinC_Wrapper_t */

/* ---- mempool.c ---------------------------------------------------------------------------- */

void sim_async_free(void *p); /* runs a cudaFreeAsync when its stream reaches it */
void sim_pool_note_free(void *pool, size_t bytes); /* sim_mem_lock held */
void sim_pools_reset_device(int device);

/* ---- copy.c -------------------------------------------------------------------------------- */

/* Validates and performs a strided copy on a stream (sync: also waits as cudaMemcpy does). */
cudaError_t sim_copy(sim_xfer x, enum cudaMemcpyKind kind, cudaStream_t stream, bool per_thread,
                     bool sync);
/* Validates a copy as sim_copy does (graph allocations count as allocated when `graph_mem`) and
 * plans its op: kind, engines, duration. An empty copy gives op->kind SIM_OP_COPY and duration 0
 * with no bytes. Requires sim_sched_lock (takes sim_mem_lock). */
cudaError_t sim_copy_plan(const sim_xfer *x, enum cudaMemcpyKind kind, int stream_device,
                          bool graph_mem, sim_op *op);
/* A cudaMemcpy3DParms on linear memory as a strided block (cudaErrorNotSupported for arrays). */
cudaError_t sim_xfer_3d(const struct cudaMemcpy3DParms *p, sim_xfer *x);

/* memset.c: validates a memset (graph allocations count when `graph_mem`) and plans its op.
 * Requires sim_sched_lock. */
cudaError_t sim_memset_plan(const sim_xfer *x, int stream_device, bool graph_mem, sim_op *op,
                            bool *host_visible); /* pinned or managed target (may be NULL) */

/* ---- capture.c: stream capture -------------------------------------------------------------- */

/* What a captured operation becomes: a node of one of these types, with these parameters. */
typedef struct {
    enum cudaGraphNodeType type;
    /* kernel; args and extra as given by the program (copied into the node) */
    const void *func;
    dim3 grid, block;
    unsigned shmem;
    void **args, **extra;
    void *arg_blob; /* prepared copy (sim_kernel_args_copy): passes to the node */
    void **arg_params, **arg_extra;
    /* memcpy, memset */
    sim_xfer x;
    enum cudaMemcpyKind kind;
    /* host */
    cudaHostFn_t fn;
    void *user;
    /* event record / wait */
    cudaEvent_t event;
    /* child graph: a graph handle (with child_direct, the graph itself), copied into the node or
     * moved into it */
    void *child;
    bool child_direct, child_move;
    /* memory alloc (device, bytes, pool properties, access), free */
    const struct cudaMemPoolProps *pool;
    const struct cudaMemAccessDesc *access;
    size_t access_count;
    size_t bytes;
    void *dptr; /* alloc: returns the address; free: the address */
} sim_node_desc;

/* Nonzero while some capture sequence is going on: a cheap test before taking locks. */
int sim_captures_active(void);
/* An operation is about to be submitted to s (sim_sched_lock held). When s is capturing, the
 * operation becomes a node instead and *captured is set, the result being what the call returns;
 * so it is when the operation is not allowed (the legacy stream while a blocking stream of its
 * device captures: cudaErrorStreamCaptureImplicit). */
cudaError_t sim_capture_op(sim_stream *s, sim_node_desc *d, bool *captured);
/* An operation that cannot be captured (sim_sched_lock held): cudaErrorStreamCaptureUnsupported
 * on a capturing stream (the capture is invalidated), cudaErrorStreamCaptureImplicit on the
 * legacy stream while a blocking stream of its device captures, else cudaSuccess. */
cudaError_t sim_capture_forbid(sim_stream *s);
/* A potentially unsafe call (cudaMalloc, synchronous copies...): cudaErrorStreamCaptureUnsupported
 * when the thread's capture mode prohibits it, invalidating the captures that do. The first form
 * takes sim_sched_lock itself, only when captures exist. */
cudaError_t sim_capture_unsafe(void);
cudaError_t sim_capture_unsafe_locked(void);
/* cudaDeviceSynchronize: cudaErrorStreamCaptureUnsupported while a stream of the device
 * captures. */
cudaError_t sim_capture_check_device(int device);
/* Synchronizing with or querying an event recorded in a capture: cudaErrorCapturedEvent. */
cudaError_t sim_capture_check_event(sim_event *ev);
/* cudaEventRecord / cudaStreamWaitEvent on a stream (either capturing, or an event captured). */
cudaError_t sim_capture_record(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                               bool *captured);
cudaError_t sim_capture_wait(sim_stream *s, sim_event *ev, cudaEvent_t handle, unsigned flags,
                             bool *captured);
void sim_capture_stream_gone(sim_stream *s); /* a stream is destroyed */
void sim_capture_event_gone(sim_event *ev);  /* an event is destroyed */

/* graph.c: graph memory the program frees itself (cudaFree, cudaFreeAsync; sim_sched_lock held):
 * true when p is a graph allocation, then *e says whether it may be freed now. */
bool sim_graph_mem_program_free(void *p, cudaError_t *e);

/* ---- internal helpers ---------------------------------------------------------------------- */

/* Pointer-keyed hash map (open addressing). Keys 0 and 1 are reserved. */
typedef struct {
    uintptr_t *keys;
    void **vals;
    size_t cap, count, used;
} sim_ptrmap;

void *sim_ptrmap_get(const sim_ptrmap *m, const void *key);
int sim_ptrmap_put(sim_ptrmap *m, const void *key, void *val);
void *sim_ptrmap_remove(sim_ptrmap *m, const void *key);
/* Calls fn on every entry; entries for which fn returns true are removed. */
void sim_ptrmap_foreach(sim_ptrmap *m, bool (*fn)(void *key, void *val, void *ctx), void *ctx);

/* Bytes spanned by depth slices of height rows of width bytes, or SIZE_MAX on overflow. */
static inline size_t sim_extent(size_t width, size_t height, size_t depth, size_t pitch,
                                size_t slice) {
    size_t a, b, r;
    if (width == 0 || height == 0 || depth == 0)
        return 0;
    if (__builtin_mul_overflow(depth - 1, slice, &a) ||
        __builtin_mul_overflow(height - 1, pitch, &b) || __builtin_add_overflow(a, b, &r) ||
        __builtin_add_overflow(r, width, &r))
        return SIZE_MAX;
    return r;
}

static inline uint64_t sim_max_u64(uint64_t a, uint64_t b) {
    return a > b ? a : b;
}

#endif
