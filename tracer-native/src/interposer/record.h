/* The one recorder every hook hands its data to.
 *
 * Each thread owns a buffer (mmap'd, never malloc'd) of encoded Events. A hook:
 *
 *     at_call c;
 *     if (!AT_ENTER(&c, APPTRACE_API_cudaMalloc)) return real(...);   // not traced: pass through
 *     cudaError_t r = real(...);
 *     at_event e;
 *     if (at_begin(&e, &c, r)) { enc_alloc_body(&e.w, &rec); at_commit(&e); }
 *     at_leave(&c);
 *
 * AT_ENTER is false when tracing is off or when the call is made from inside another hook (the
 * recursion guard: calls the runtime makes internally, and calls apptrace itself makes, are not
 * the application's). at_begin takes the exit timestamp and writes the Event header; the body
 * encoders append to e.w; at_commit closes the event and sends the buffer as one Batch when it is
 * full, when 10 ms have passed since its last send, or when the process is ending.
 *
 * Buffers are locked only against flushes from other threads (a synchronizing call, exit, a fatal
 * signal), so the owner's lock is uncontended. A send is one sendmsg() of one SOCK_SEQPACKET
 * packet, atomic with respect to other threads, so no lock is held across threads while sending.
 */
#ifndef APPTRACE_RECORD_H
#define APPTRACE_RECORD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"
#include "encode.h"
#include "init.h"
#include "pbwire.h"

#define AT_TLS __attribute__((tls_model("initial-exec")))
#define AT_LIKELY(x) __builtin_expect(!!(x), 1)
#define AT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A buffer is sent once it holds at_flush_bytes (at most AT_FLUSH_BYTES: fewer, larger packets
 * cost fewer system calls per event; less when the socket's send buffer is smaller, see
 * transport.c). No single event may be larger than AT_BUF_CAP - AT_FLUSH_BYTES (the encoders'
 * caps keep them far smaller). */
#define AT_BUF_CAP (320 * 1024)
#define AT_FLUSH_BYTES (256 * 1024)
extern uint32_t at_flush_bytes;
/* The longest an event waits in a buffer while its thread keeps making calls. */
#define AT_FLUSH_NS (10ull * 1000 * 1000)

/* The first fields' offsets are read by the collector from the shared region (see below); they
 * are pinned by static assertions in record.c. */
typedef struct at_buf {
    _Atomic int lock;        /* 1 while the owner writes an event or anyone sends */
    _Atomic uint32_t owner;  /* tid of the owning thread; 0 when free for reuse */
    uint32_t tid;            /* tid written into the Batch header */
    uint64_t seq;            /* next Batch sequence number */
    uint32_t len;            /* bytes of complete events in data */
    uint32_t sent;           /* bytes of data already sent (only a crash flush leaves it > 0) */
    uint64_t last_flush_ns;
    uint64_t events;         /* events written into this buffer, ever */
    uint64_t calls;          /* of which API calls */
    uint8_t data[AT_BUF_CAP];
} at_buf;

/* Buffers in shared memory. The first AT_SHARED_SLOTS buffers of a process live in one region of
 * shared memory (a memfd, no file system path) whose descriptor goes to the collector with the
 * process's first packet. When the connection closes, the collector reads from the region the
 * complete events that were never sent: a process killed by SIGKILL loses none. The region starts
 * with this head; buffer i is at head_bytes + i * slot_bytes. The collector's reader
 * (io.apptrace.capture.SharedBuffers) follows this layout: change both together, and the
 * version. */
#define AT_REGION_MAGIC "APPTRBUF"
#define AT_REGION_VERSION 1
#define AT_SHARED_SLOTS 256
#define AT_REGION_HEAD_BYTES 4096
#define AT_SLOT_BYTES ((sizeof(at_buf) + 4095) & ~(size_t)4095)
#define AT_REGION_BYTES (AT_REGION_HEAD_BYTES + AT_SHARED_SLOTS * AT_SLOT_BYTES)

typedef struct {
    char magic[8];           /* AT_REGION_MAGIC, no terminating NUL */
    uint32_t version;        /* AT_REGION_VERSION */
    uint32_t pid;            /* the pid the process's batches carry */
    uint32_t head_bytes;     /* offset of buffer 0 */
    uint32_t slot_bytes;     /* distance between buffers */
    uint32_t slots;          /* buffers the region holds */
    uint32_t data_offset;    /* offsetof(at_buf, data) */
    uint32_t data_bytes;     /* AT_BUF_CAP */
    _Atomic uint32_t used;   /* buffers handed out: the collector reads buffers [0, used) */
} at_region_head;

typedef struct {
    int depth;               /* recursion guard: > 0 inside a hook */
    at_buf *buf;
    uint32_t tid;
    int device;              /* current device, as cudaSetDevice told us */
    uint64_t correlation;    /* last CUPTI correlation id seen on this thread */
    /* <<<...>>> sites: __cudaPushCallConfiguration's return addresses (a stack: a launch in a
     * kernel argument nests), and the one the next launch takes, set by the matching Pop */
    void *push_sites[8];
    int push_depth;
    void *launch_site;
    uint64_t last_exit_ns;   /* when this thread's last traced API call returned, 0 before any */
    uint64_t collector_ns;   /* wall time the recorder spent sending since then (for the next call) */
} at_thread;

extern __thread at_thread at_tls AT_TLS;
extern _Atomic bool at_active;   /* connected to a collector and not shut down */
extern _Atomic bool at_exiting;  /* the process is ending: send every event at once */

typedef struct {
    uint64_t entry_ns;
    uint64_t call_site;
    uint64_t cpu_ns;         /* the thread's CPU time at entry, read after a long gap; else 0 */
    int api;
} at_call;

/* A gap between two API calls of a thread, or a call, longer than this gets the thread's CPU time
 * read at its end (at the next call's entry) or at the call's exit, so that the consumer can tell
 * host compute from time the thread spent off the CPU (a loaded capturing machine's noise). On
 * the simulated runtime the bar is 10 us: there the host time between calls is all the projection
 * takes from the capturing machine, and gaps of tens of microseconds between launches are what a
 * loaded machine stretches; calls back to back (a read costs a system call, over a microsecond on
 * a virtual machine) still read nothing. */
#define AT_CPU_GAP_NS (at_cfg.simulated ? 10000ull : 100000ull)

typedef struct {
    pbw w;
    at_buf *buf;
    uint8_t *event_len;      /* the Event's length placeholder */
    uint64_t exit_ns;
} at_event;


bool at_activate_slow(void);

/* The devices (devices.c): false until they were asked about, at the program's first runtime
 * call; at_devices_first_call asks (inside the recursion guard, before the call goes on). */
extern _Atomic bool at_devices_asked;
void at_devices_first_call(int api);

/* Starts a traced call; false (and nothing to undo) when the call must not be recorded. */
static inline bool at_enter_(at_call *c, int api, void *ra) {
    if (AT_UNLIKELY(!atomic_load_explicit(&at_active, memory_order_relaxed)) && !at_activate_slow()) {
        return false;
    }
    if (at_tls.depth > 0) return false;
    at_tls.depth++;
    if (AT_UNLIKELY(!atomic_load_explicit(&at_devices_asked, memory_order_relaxed))) at_devices_first_call(api);
    c->api = api;
    c->call_site = (uint64_t)(uintptr_t)ra;
    c->entry_ns = at_now_ns();
    /* read at the thread's first call (a first reference) and after a long gap */
    c->cpu_ns = api != 0 && (at_tls.last_exit_ns == 0 || c->entry_ns - at_tls.last_exit_ns > AT_CPU_GAP_NS)
                    ? at_thread_cpu_ns() : 0;
    return true;
}
#define AT_ENTER(c, api) at_enter_((c), (api), __builtin_return_address(0))

static inline void at_leave(at_call *c) {
    (void)c;
    at_tls.depth--;
}

/* Writes the header of the call's Event; false when the event cannot be written (then call
 * neither an encoder nor at_commit). */
bool at_begin(at_event *e, const at_call *c, int result);
/* Like at_begin, for records that are not API calls (api 0, no duration). */
bool at_begin_record(at_event *e, uint64_t time_ns);
/* Closes the event and sends the buffer if it is due. */
void at_commit(at_event *e);

/* Sends every thread's complete events now: after a synchronizing call (so that a SIGKILL loses
 * nothing issued before it), at exit, before exec. Safe from a signal handler. */
void at_flush_all(void);

/* Process-level state (init.c). */
void at_ensure_init(void);
void at_arm_exit_handler(void);
uint32_t at_pid(void);
void *at_resolve(const char *name);
/* dlsym on a handle, never apptrace's own (hooks_dlsym.c). */
void *at_dlsym_on(void *handle, const char *name);

/* Transport (transport.c). */
bool at_transport_connect(void);
bool at_transport_send(const uint8_t *head, uint32_t head_len, const uint8_t *body, uint32_t body_len);
void at_transport_after_fork(void);
/* Sends `fd` (SCM_RIGHTS) with the next packet, then closes it; -1: nothing to send. */
void at_transport_pass_fd(int fd);
uint64_t at_transport_dropped(void);

/* Buffers (record.c). */
/* Creates the shared region for this process's buffers; its descriptor (to send to the collector
 * and then close), or -1 when buffers are private memory (no shared memory available). */
int at_buffers_share(void);
/* In a child after fork: forgets the parent's buffers, gives the child a region of its own;
 * returns its descriptor as at_buffers_share does. */
int at_buffers_after_fork_child(void);
void at_thread_detach(void);
uint64_t at_events_total(void);
uint64_t at_calls_total(void);
uint64_t at_events_dropped(void);

/* Diagnostics to stderr, only with APPTRACE_LOG=1; async-signal-safe. */
void at_log(const char *msg);
/* A message to stderr that the user must see: "apptrace: " and the NULL-terminated parts;
 * async-signal-safe. */
void at_warn(const char *part, ...) __attribute__((sentinel));

#endif
