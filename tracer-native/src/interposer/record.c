/* Per-thread event buffers and the Event writer (see record.h). */
#include "record.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define AT_MAX_BUFS 4096
/* How long a flush from another thread waits for a buffer's owner to finish its event. */
#define AT_FLUSH_SPINS (1u << 22)

/* The layout the collector reads from the shared region (record.h). */
_Static_assert(offsetof(at_buf, owner) == 4, "at_buf layout");
_Static_assert(offsetof(at_buf, tid) == 8, "at_buf layout");
_Static_assert(offsetof(at_buf, seq) == 16, "at_buf layout");
_Static_assert(offsetof(at_buf, len) == 24, "at_buf layout");
_Static_assert(offsetof(at_buf, sent) == 28, "at_buf layout");
_Static_assert(offsetof(at_buf, data) == 56, "at_buf layout");
_Static_assert(offsetof(at_region_head, used) == 36, "region head layout");
_Static_assert(sizeof(at_region_head) <= AT_REGION_HEAD_BYTES, "region head layout");

/* Orders the stores before it (event bytes, a send) before those after it (the lengths and
 * sequence number the collector reads from a dead process's region). A SIGKILL can stop the
 * process between any two instructions, and x86 keeps stores in program order; this keeps the
 * compiler from reordering them. */
#define AT_STORE_ORDER() atomic_signal_fence(memory_order_release)

__thread at_thread at_tls AT_TLS;
/* Set while this thread is between at_begin and at_commit (its buffer lock is its own). */
static __thread bool in_event AT_TLS;

static at_buf *_Atomic bufs[AT_MAX_BUFS];
static _Atomic int nbufs;
static _Atomic uint64_t dropped_events; /* events that did not fit or had no buffer */
static uint8_t *region; /* the shared region; NULL: every buffer is private memory */
static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *unused) {
    (void)unused;
    at_thread_detach();
}

static void make_key(void) {
    pthread_key_create(&thread_key, thread_exit);
}

static inline void cpu_relax(void) {
    __asm__ __volatile__("pause" ::: "memory");
}

static void lock_own(at_buf *b) {
    while (atomic_exchange_explicit(&b->lock, 1, memory_order_acquire)) {
        cpu_relax(); /* another thread is sending this buffer: wait for its sendmsg */
    }
}

static bool try_lock_bounded(at_buf *b) {
    for (uint32_t i = 0; i < AT_FLUSH_SPINS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_weak_explicit(&b->lock, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
            return true;
        }
        cpu_relax();
    }
    return false;
}

static void unlock(at_buf *b) {
    atomic_store_explicit(&b->lock, 0, memory_order_release);
}

/* Sends the buffer's unsent events as one Batch. The caller holds the lock (or is a crash flush
 * on its own thread). A failed send loses the events; the transport counts and reports that. */
static void send_events(at_buf *b, uint64_t now_ns) {
    if (b->len > b->sent) {
        uint8_t head[32];
        pbw w;
        pbw_init(&w, head, sizeof head);
        enc_batch_head(&w, at_pid(), b->tid, b->seq);
        at_transport_send(head, (uint32_t)(w.p - head), b->data + b->sent, b->len - b->sent);
        /* Killed before the next stores, the region still holds the batch just sent under its
         * sequence number, which the collector recognizes; killed between them, nothing. */
        AT_STORE_ORDER();
        b->len = 0;
        b->sent = 0;
        AT_STORE_ORDER();
        b->seq++;
    }
    b->len = 0;
    b->sent = 0;
    b->last_flush_ns = now_ns;
}

/* Maps the shared region (at `at`, replacing what is there, when not NULL); its descriptor, or -1
 * when no shared memory is to be had. */
static int map_region(uint8_t *at) {
    /* Growing the memfd past RLIMIT_FSIZE would raise SIGXFSZ, which kills the program; and under
     * an address-space limit, the region must not take the room the program counts on. */
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < AT_REGION_BYTES) {
        return -1;
    }
    if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur / 8 < AT_REGION_BYTES) {
        return -1;
    }
    int fd = (int)syscall(SYS_memfd_create, "apptrace-buffers", MFD_CLOEXEC);
    if (fd < 0) return -1;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)AT_REGION_BYTES) == 0) {
        m = mmap(at, AT_REGION_BYTES, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | (at != NULL ? MAP_FIXED : 0), fd, 0);
    }
    if (m == MAP_FAILED) {
        close(fd);
        return -1;
    }
    at_region_head *h = m;
    memcpy(h->magic, AT_REGION_MAGIC, sizeof h->magic);
    h->version = AT_REGION_VERSION;
    h->pid = at_pid();
    h->head_bytes = AT_REGION_HEAD_BYTES;
    h->slot_bytes = (uint32_t)AT_SLOT_BYTES;
    h->slots = AT_SHARED_SLOTS;
    h->data_offset = (uint32_t)offsetof(at_buf, data);
    h->data_bytes = AT_BUF_CAP;
    region = m;
    return fd;
}

int at_buffers_share(void) {
    return map_region(NULL);
}

static at_buf *region_slot(int slot) {
    return (at_buf *)(region + AT_REGION_HEAD_BYTES + (size_t)slot * AT_SLOT_BYTES);
}

static void region_mark_used(int slot) {
    at_region_head *h = (at_region_head *)region;
    uint32_t used = atomic_load(&h->used);
    while (used < (uint32_t)slot + 1 && !atomic_compare_exchange_weak(&h->used, &used, (uint32_t)slot + 1)) {
    }
}

/* A new buffer, owned by `tid` before any other thread can see it in the registry (a buffer
 * published with owner 0 could be claimed by a second thread attaching at the same moment). */
static at_buf *new_buffer(uint32_t tid) {
    int slot = atomic_fetch_add(&nbufs, 1);
    if (slot >= AT_MAX_BUFS) {
        atomic_fetch_sub(&nbufs, 1);
        return NULL;
    }
    at_buf *b;
    if (region != NULL && slot < AT_SHARED_SLOTS) {
        b = region_slot(slot); /* fresh pages of the region: zero */
    } else {
        void *m = mmap(NULL, sizeof(at_buf), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL; /* the slot stays empty; every walk skips it */
        b = m;
    }
    atomic_store(&b->owner, tid);
    atomic_store_explicit(&bufs[slot], b, memory_order_release);
    if (region != NULL && slot < AT_SHARED_SLOTS) region_mark_used(slot);
    return b;
}

static uint32_t gettid_cached(void) {
    if (at_tls.tid == 0) at_tls.tid = (uint32_t)syscall(SYS_gettid);
    return at_tls.tid;
}

/* Gives this thread a buffer (a free one left by an exited thread, or a new one) and writes its
 * ThreadStart record. */
static at_buf *thread_attach(void) {
    uint32_t tid = gettid_cached();
    at_buf *b = NULL;
    int n = atomic_load(&nbufs);
    for (int i = 0; i < n && b == NULL; i++) {
        at_buf *cand = atomic_load_explicit(&bufs[i], memory_order_acquire);
        uint32_t free_owner = 0;
        if (cand && atomic_compare_exchange_strong(&cand->owner, &free_owner, tid)) b = cand;
    }
    if (b == NULL) {
        b = new_buffer(tid);
        if (b == NULL) return NULL;
    }
    at_clock_anchor();
    lock_own(b);
    b->tid = tid;
    b->seq = 0;
    b->len = b->sent = 0;
    b->last_flush_ns = at_now_ns();
    unlock(b);
    at_tls.buf = b;
    pthread_once(&key_once, make_key);
    pthread_setspecific(thread_key, b);

    at_event e;
    if (at_begin_record(&e, b->last_flush_ns)) {
        char name[17] = {0};
        prctl(PR_GET_NAME, name, 0, 0, 0);
        enc_thread_start m = {.tid = tid, .name = name, .main_thread = tid == at_pid()};
        enc_thread_start_body(&e.w, &m);
        at_commit(&e);
    }
    return b;
}

/* Locks this thread's buffer and writes an Event's header into it. */
static inline bool begin(at_event *e, uint64_t entry_ns, uint64_t duration_ns, int api, int result,
                         uint64_t call_site, uint64_t correlation, uint64_t cpu_entry_ns, uint64_t cpu_exit_ns) {
    /* Only a signal handler can get here while this thread is writing an event (its buffer lock
     * is its own): waiting for the lock would never end, so that record is not written. */
    if (AT_UNLIKELY(in_event)) {
        atomic_fetch_add(&dropped_events, 1);
        return false;
    }
    at_buf *b = at_tls.buf;
    if (AT_UNLIKELY(b == NULL)) {
        b = thread_attach();
        if (b == NULL) {
            atomic_fetch_add(&dropped_events, 1);
            return false;
        }
    }
    lock_own(b);
    in_event = true;
    e->buf = b;
    pbw w; /* a local writer stays in registers (see encode.c) */
    pbw_init(&w, b->data + b->len, AT_BUF_CAP - b->len);
    e->event_len = pbw_begin(&w, PB_Batch_events);
    enc_event_head_write(&w, entry_ns, duration_ns, api, result, call_site, correlation);
    pbw_u64(&w, PB_Event_thread_cpu_ns, cpu_entry_ns);
    pbw_u64(&w, PB_Event_thread_cpu_exit_ns, cpu_exit_ns);
    if (api != 0) {
        pbw_u64(&w, PB_Event_collector_ns, at_tls.collector_ns);
        at_tls.collector_ns = 0;
    }
    e->w = w;
    return true;
}

bool at_begin(at_event *e, const at_call *c, int result) {
    static _Atomic bool armed;
    /* API calls only: host allocations can come from other libraries' constructors, before the
     * loader has registered its own exit handler. */
    if (AT_UNLIKELY(!atomic_load_explicit(&armed, memory_order_relaxed)) && c->api != 0) {
        atomic_store(&armed, true);
        at_arm_exit_handler();
    }
    e->exit_ns = at_now_ns();
    uint64_t correlation = at_tls.correlation;
    at_tls.correlation = 0;
    uint64_t cpu_exit = 0;
    if (c->api != 0) {
        if (e->exit_ns - c->entry_ns > AT_CPU_GAP_NS) cpu_exit = at_thread_cpu_ns();
        at_tls.last_exit_ns = e->exit_ns;
    }
    if (!begin(e, c->entry_ns, e->exit_ns - c->entry_ns, c->api, result, c->call_site, correlation,
               c->api != 0 ? c->cpu_ns : 0, cpu_exit)) {
        return false;
    }
    if (c->api != 0) e->buf->calls++; /* host allocations are events, not CUDA calls */
    return true;
}

bool at_begin_record(at_event *e, uint64_t time_ns) {
    e->exit_ns = time_ns;
    return begin(e, time_ns, 0, 0, 0, 0, 0, 0, 0);
}

void at_commit(at_event *e) {
    at_buf *b = e->buf;
    pbw_end(&e->w, e->event_len);
    if (AT_LIKELY(!e->w.overflow)) {
        AT_STORE_ORDER(); /* the event's bytes before the length that makes it complete */
        b->len = (uint32_t)(e->w.p - b->data);
        b->events++;
    } else {
        atomic_fetch_add(&dropped_events, 1);
    }
    if (b->len >= at_flush_bytes || e->exit_ns - b->last_flush_ns >= AT_FLUSH_NS ||
        atomic_load_explicit(&at_exiting, memory_order_relaxed)) {
        uint64_t t0 = at_now_ns();
        send_events(b, e->exit_ns);
        at_clock_anchor(); /* the owner thread: keep its derived clock within ~1 us */
        /* after the call's exit time: not the program's time, and the trace says so */
        uint64_t t1 = at_now_ns();
        if (t1 > t0) at_tls.collector_ns += t1 - t0;
    }
    in_event = false;
    unlock(b);
}

void at_flush_all(void) {
    uint64_t now = at_now_ns();
    int n = atomic_load(&nbufs);
    for (int i = 0; i < n; i++) {
        at_buf *b = atomic_load_explicit(&bufs[i], memory_order_acquire);
        if (b == NULL || atomic_load(&b->owner) == 0) continue;
        if (b == at_tls.buf && in_event) {
            /* A signal arrived while this thread was writing an event: send what is complete and
             * leave the rest for the interrupted writer, which continues after `sent`. */
            if (b->len > b->sent) {
                uint8_t head[32];
                pbw w;
                pbw_init(&w, head, sizeof head);
                enc_batch_head(&w, at_pid(), b->tid, b->seq);
                at_transport_send(head, (uint32_t)(w.p - head), b->data + b->sent, b->len - b->sent);
                AT_STORE_ORDER();
                b->sent = b->len;
                AT_STORE_ORDER();
                b->seq++;
            }
            continue;
        }
        if (!try_lock_bounded(b)) continue; /* its owner is stuck mid-event: skip, never block */
        send_events(b, now);
        unlock(b);
    }
    uint64_t end = at_now_ns();
    if (end > now) at_tls.collector_ns += end - now; /* the calling thread's time, not its program's */
}

void at_thread_detach(void) {
    at_buf *b = at_tls.buf;
    if (b == NULL) return;
    lock_own(b);
    send_events(b, at_now_ns());
    at_tls.buf = NULL;
    atomic_store(&b->owner, 0);
    unlock(b);
}

int at_buffers_after_fork_child(void) {
    /* Only the forking thread exists in the child. Every buffer's events belong to the parent,
     * which sends them; the child starts empty, with its own (new) thread identity. The region is
     * still the parent's (shared memory stays shared across fork): the child maps a region of its
     * own at the same address, so no pointer into it goes stale, before anything is written. Until
     * then nothing is (the fork hook and the atfork prepare handler hold the recursion guard). */
    int fd = -1;
    if (region != NULL) {
        fd = map_region(region);
        if (fd < 0 && mmap(region, AT_REGION_BYTES, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
            atomic_store(&at_active, false); /* still the parent's memory: never write to it */
            return -1;
        }
        if (fd >= 0) {
            atomic_store(&((at_region_head *)region)->used, (uint32_t)atomic_load(&nbufs) < AT_SHARED_SLOTS
                                                                ? (uint32_t)atomic_load(&nbufs)
                                                                : AT_SHARED_SLOTS);
        } else {
            region = NULL; /* private memory at the same address: usable, not recoverable */
        }
    }
    int n = atomic_load(&nbufs);
    for (int i = 0; i < n; i++) {
        at_buf *b = atomic_load_explicit(&bufs[i], memory_order_acquire);
        if (b == NULL) continue;
        atomic_store(&b->lock, 0);
        b->len = b->sent = 0;
        b->events = 0;
        b->calls = 0;
        atomic_store(&b->owner, 0);
    }
    in_event = false;
    at_tls.buf = NULL;
    at_tls.tid = 0;
    return fd;
}

uint64_t at_events_total(void) {
    uint64_t total = 0;
    int n = atomic_load(&nbufs);
    for (int i = 0; i < n; i++) {
        at_buf *b = atomic_load_explicit(&bufs[i], memory_order_acquire);
        if (b) total += b->events;
    }
    return total;
}

uint64_t at_calls_total(void) {
    uint64_t total = 0;
    int n = atomic_load(&nbufs);
    for (int i = 0; i < n; i++) {
        at_buf *b = atomic_load_explicit(&bufs[i], memory_order_acquire);
        if (b) total += b->calls;
    }
    return total;
}

uint64_t at_events_dropped(void) {
    return atomic_load(&dropped_events) + at_transport_dropped();
}
