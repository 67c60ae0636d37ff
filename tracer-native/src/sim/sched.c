/* Ordering work on streams, as a host observes it on a real device.
 *
 * The device is infinitely fast: work submitted to a stream with nothing ahead of it runs at
 * once on the calling thread. Host functions (cudaLaunchHostFunc, cudaStreamAddCallback) never
 * run on the caller's thread: they are queued for the worker thread, and while one is pending,
 * later work on that stream queues behind it, and so does work that depends on that stream
 * through an event wait or through the legacy default stream's implicit synchronization (a
 * recorded marker on the pending stream and a wait on the dependent one). The worker runs
 * queued work in order; markers complete when it reaches them; synchronizing calls wait on a
 * condition variable for it. All of this runs under sim_sched_lock, except host functions.
 *
 * Simulated time: an operation starts at max(its submission time, the end of the previous work
 * on its stream, the end of the engine it needs, and for the legacy stream the end of all
 * blocking streams' work, for a blocking stream the end of the legacy stream's work), and ends a
 * modeled duration later (timing.c). A marker (an event's record) takes the end time of the work
 * before it; recorded on an idle stream it "floats": the stream's next operation pulls it to its
 * own start unless someone observes the marker first. So two events around an operation measure
 * exactly its modeled duration, never the host's issue delays. */
#include "sim.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int floating; /* markers floating on the device's streams */
    uint64_t engine_end[SIM_ENGINES];
    uint64_t blocking_end; /* latest end of work in the device's blocking streams */
    uint64_t max_end;      /* latest end of any work on the device */
    sim_stream *legacy;
    sim_stream *streams;
    int pending;          /* streams with queued work */
    int pending_blocking; /* of which blocking streams other than the legacy one */
} dev_sched;

static sim_stream *pending_head;
static pthread_cond_t worker_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t progress_cv = PTHREAD_COND_INITIALIZER;
static bool worker_running;
static int waiters; /* threads in wait_progress: progress is broadcast only if someone listens */
__thread bool sim_in_callback;

static void progress(void) {
    if (waiters)
        pthread_cond_broadcast(&progress_cv);
}

/* ---- markers ------------------------------------------------------------------------------- */

sim_marker *sim_marker_new(void) {
    sim_marker *m = calloc(1, sizeof *m);
    if (m)
        m->refs = 1;
    return m;
}

void sim_marker_ref(sim_marker *m) {
    m->refs++;
}

void sim_marker_unref(sim_marker *m) {
    if (m && --m->refs == 0)
        free(m);
}

void sim_marker_observe(sim_marker *m) {
    m->floating = false;
}

static dev_sched devs[SIM_MAX_DEVICES];

static void resolve_floating(sim_stream *s, uint64_t start) {
    sim_marker *m = s->floating, *next;
    for (; m; m = next) {
        next = m->float_next;
        m->float_next = NULL;
        if (m->floating) {
            m->time_ns = start;
            m->floating = false;
        }
        sim_marker_unref(m);
        devs[s->device].floating--;
    }
    s->floating = NULL;
}

static bool counts_as_blocking(const sim_stream *s);

/* Work starting at `start` on s pulls the floating markers it must follow: those of its own
 * stream, and through the legacy stream's implicit synchronization, those of the legacy stream
 * (for a blocking stream) or of every blocking stream (for the legacy stream). */
static void resolve_dependents(sim_stream *s, uint64_t start) {
    dev_sched *d = &devs[s->device];
    resolve_floating(s, start);
    if (d->floating == 0)
        return;
    if (counts_as_blocking(s) && d->legacy)
        resolve_floating(d->legacy, start);
    else if (s->kind == SIM_STREAM_LEGACY)
        for (sim_stream *b = d->streams; b && d->floating; b = b->dev_next)
            if (counts_as_blocking(b))
                resolve_floating(b, start);
}

/* ---- stream lists -------------------------------------------------------------------------- */

void sim_sched_link_stream(sim_stream *s) {
    dev_sched *d = &devs[s->device];
    s->dev_prev = NULL;
    s->dev_next = d->streams;
    if (d->streams)
        d->streams->dev_prev = s;
    d->streams = s;
    if (s->kind == SIM_STREAM_LEGACY)
        d->legacy = s;
}

sim_stream *sim_device_streams(int device) {
    return devs[device].streams;
}

uint64_t sim_device_end(int device) {
    return devs[device].max_end;
}

uint64_t *sim_blocking_end(int device) {
    return &devs[device].blocking_end;
}

static void free_stream(sim_stream *s) {
    dev_sched *d = &devs[s->device];
    if (s->dev_prev)
        s->dev_prev->dev_next = s->dev_next;
    else
        d->streams = s->dev_next;
    if (s->dev_next)
        s->dev_next->dev_prev = s->dev_prev;
    if (d->legacy == s)
        d->legacy = NULL;
    resolve_floating(s, s->last_end_ns);
    free(s);
}

void sim_sched_release_stream(sim_stream *s) {
    s->destroyed = true;
    if (s->queued == 0 && s->holds == 0)
        free_stream(s);
}

static bool counts_as_blocking(const sim_stream *s) {
    return s->blocking && s->kind != SIM_STREAM_LEGACY;
}

static void mark_pending(sim_stream *s) {
    s->pending_prev = NULL;
    s->pending_next = pending_head;
    if (pending_head)
        pending_head->pending_prev = s;
    pending_head = s;
    devs[s->device].pending++;
    if (counts_as_blocking(s))
        devs[s->device].pending_blocking++;
}

static void mark_idle(sim_stream *s) {
    if (s->pending_prev)
        s->pending_prev->pending_next = s->pending_next;
    else
        pending_head = s->pending_next;
    if (s->pending_next)
        s->pending_next->pending_prev = s->pending_prev;
    devs[s->device].pending--;
    if (counts_as_blocking(s))
        devs[s->device].pending_blocking--;
    if (s->destroyed && s->holds == 0)
        free_stream(s);
}

static void enqueue(sim_stream *s, sim_op *op) {
    op->next = NULL;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    if (s->queued++ == 0)
        mark_pending(s);
}

bool sim_stream_busy(const sim_stream *s) {
    const dev_sched *d = &devs[s->device];
    if (s->queued)
        return true;
    if (s->kind == SIM_STREAM_LEGACY)
        return d->pending_blocking > 0;
    return s->blocking && d->legacy && d->legacy->queued > 0;
}

/* ---- executing operations ------------------------------------------------------------------ */

static uint64_t op_start(const sim_stream *s, const sim_op *op) {
    const dev_sched *d = &devs[s->device];
    uint64_t t = sim_max_u64(op->submit_ns, s->last_end_ns);
    if (s->kind == SIM_STREAM_LEGACY)
        t = sim_max_u64(t, d->blocking_end);
    else if (s->blocking && d->legacy)
        t = sim_max_u64(t, d->legacy->last_end_ns);
    return t;
}

static void note_end(sim_stream *s, uint64_t end) {
    dev_sched *d = &devs[s->device];
    s->last_end_ns = sim_max_u64(s->last_end_ns, end);
    d->max_end = sim_max_u64(d->max_end, end);
    if (counts_as_blocking(s))
        d->blocking_end = sim_max_u64(d->blocking_end, end);
}

/* Large transfers take the host real time that a device would not: that time is taken out of
 * the host clock. Small ones cost less than reading the clock, so they are not timed. */
#define TIMED_TRANSFER_BYTES (64u << 10)

/* A memset of 2- or 4-byte elements (graph memset nodes): the value's low bytes, repeated. */
static void fill_elements(uint8_t *dst, int value, unsigned elem, size_t bytes) {
    uint16_t v16 = (uint16_t)value;
    uint32_t v32 = (uint32_t)value;
    for (size_t i = 0; i + elem <= bytes; i += elem)
        memcpy(dst + i, elem == 2 ? (const void *)&v16 : (const void *)&v32, elem);
}

static void move_bytes(const sim_op *op) {
    const sim_xfer *x = &op->x;
    bool timed = x->width * x->height * x->depth >= TIMED_TRANSFER_BYTES;
    uint64_t t0 = timed ? sim_overhead_start() : 0;
    for (size_t z = 0; z < x->depth; z++) {
        for (size_t y = 0; y < x->height; y++) {
            uint8_t *dst = x->dst + z * x->dslice + y * x->dpitch;
            if (op->kind == SIM_OP_MEMSET && x->elem > 1)
                fill_elements(dst, x->value, x->elem, x->width);
            else if (op->kind == SIM_OP_MEMSET)
                memset(dst, x->value, x->width);
            else
                memmove(dst, x->src + z * x->sslice + y * x->spitch, x->width);
        }
    }
    if (timed)
        sim_overhead_stop(t0);
}

/* Work that occupies engines: copies, memsets, kernels, prefetches. */
static uint64_t exec_timed(sim_stream *s, sim_op *op) {
    uint64_t start = op_start(s, op);
    uint64_t *e1 = op->engine >= 0 ? &devs[op->engine_device].engine_end[op->engine] : NULL;
    uint64_t *e2 = op->peer_device >= 0 ? &devs[op->peer_device].engine_end[op->peer_engine] : NULL;
    if (e1)
        start = sim_max_u64(start, *e1);
    if (e2)
        start = sim_max_u64(start, *e2);
    uint64_t end = start + op->duration_ns;
    if (e1)
        *e1 = end;
    if (e2) {
        *e2 = end;
        devs[op->peer_device].max_end = sim_max_u64(devs[op->peer_device].max_end, end);
    }
    resolve_dependents(s, start);
    note_end(s, end);
    if (op->kind == SIM_OP_COPY || op->kind == SIM_OP_MEMSET)
        move_bytes(op);
    else if (op->kind == SIM_OP_PREFETCH) {
        pthread_mutex_lock(&sim_mem_lock);
        sim_mem_set_resident(op->x.dst, op->prefetch_location);
        pthread_mutex_unlock(&sim_mem_lock);
    }
    return end;
}

/* A marker takes the end of the work before it. If the stream was idle when it was recorded, it
 * floats: the next work on the stream, if it comes before anyone looks, pulls it to its start. */
static uint64_t exec_record(sim_stream *s, sim_op *op) {
    sim_op probe = *op;
    probe.submit_ns = 0;
    uint64_t t = op_start(s, &probe);
    sim_marker *m = op->marker;
    m->time_ns = t;
    m->done = true;
    if (!op->internal && t <= op->submit_ns) {
        m->floating = true;
        sim_marker_ref(m);
        m->float_next = s->floating;
        s->floating = m;
        devs[s->device].floating++;
    }
    note_end(s, t);
    return t;
}

static uint64_t exec_op(sim_stream *s, sim_op *op) {
    switch (op->kind) {
    case SIM_OP_RECORD:
        return exec_record(s, op);
    case SIM_OP_WAIT:
        sim_marker_observe(op->marker);
        note_end(s, op->marker->time_ns);
        return s->last_end_ns;
    case SIM_OP_FREE:
        sim_async_free(op->free_ptr);
        return op_start(s, op);
    case SIM_OP_GRAPH_MAP:
        pthread_mutex_lock(&sim_mem_lock);
        sim_graph_mem_map(op->free_ptr); /* room was checked at launch */
        pthread_mutex_unlock(&sim_mem_lock);
        return op_start(s, op);
    default:
        return exec_timed(s, op);
    }
}

/* Host functions run on the worker without the lock; their simulated duration is their real one, and
   they end no earlier than they really return. */
static uint64_t exec_host_fn(sim_stream *s, sim_op *op) {
    uint64_t start = op_start(s, op);
    resolve_dependents(s, start);
    op->running = true;
    pthread_mutex_unlock(&sim_sched_lock);
    if (sim_cfg.realtime)
        sim_sleep_until(start);
    uint64_t t0 = sim_now_ns();
    sim_in_callback = true;
    if (op->callback)
        op->callback(op->callback_stream, cudaSuccess, op->user);
    else
        op->host_fn(op->user);
    sim_in_callback = false;
    uint64_t returned = sim_now_ns();
    pthread_mutex_lock(&sim_sched_lock);
    op->running = false;
    /* Nothing behind it on the stream runs before the function returns: when the worker took it up
       late (simulated time behind the host's), its end is the real return, not start + its run time,
       or work the host issued while it ran would be timed from its own submission instead. */
    uint64_t end = sim_max_u64(start + (returned - t0), returned);
    note_end(s, end);
    return end;
}

/* Releases what an executed op holds and tells its synchronous caller. */
static void finish_op(sim_op *op, uint64_t end) {
    if (op->complete) {
        op->complete->time_ns = end;
        op->complete->done = true;
        sim_marker_unref(op->complete);
    }
    sim_marker_unref(op->marker);
    free(op->staging);
}

/* ---- submission ---------------------------------------------------------------------------- */

/* Makes `to` wait for everything queued on `from` so far. */
static cudaError_t chain(sim_stream *from, sim_stream *to, uint64_t now) {
    sim_marker *m = sim_marker_new();
    sim_op *r = calloc(1, sizeof *r), *w = calloc(1, sizeof *w);
    if (m == NULL || r == NULL || w == NULL) {
        free(m), free(r), free(w);
        return cudaErrorMemoryAllocation;
    }
    r->kind = SIM_OP_RECORD;
    r->internal = true;
    r->marker = m;
    w->kind = SIM_OP_WAIT;
    w->marker = m;
    sim_marker_ref(m);
    r->submit_ns = w->submit_ns = now;
    r->engine = w->engine = r->peer_device = w->peer_device = -1;
    enqueue(from, r);
    enqueue(to, w);
    return cudaSuccess;
}

/* The legacy stream's implicit synchronization, for work that must queue. */
static cudaError_t add_implicit_waits(sim_stream *s, uint64_t now) {
    dev_sched *d = &devs[s->device];
    if (s->kind == SIM_STREAM_LEGACY) {
        for (sim_stream *b = pending_head; b; b = b->pending_next)
            if (b->device == s->device && counts_as_blocking(b) && chain(b, s, now) != cudaSuccess)
                return cudaErrorMemoryAllocation;
    } else if (s->blocking && d->legacy && d->legacy->queued > 0 && d->legacy != s) {
        return chain(d->legacy, s, now);
    }
    return cudaSuccess;
}

static void *worker_main(void *arg);

static bool start_worker(void) {
    if (worker_running)
        return true;
    pthread_attr_t attr;
    pthread_t t;
    sigset_t all, old;
    sigfillset(&all);
    /* Signals stay with the program's threads: the worker blocks them all (inherited mask). */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    worker_running = pthread_create(&t, &attr, worker_main, NULL) == 0;
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (worker_running)
        pthread_setname_np(t, "apptrace-sim");
    return worker_running;
}

cudaError_t sim_submit(sim_stream *s, sim_op *op) {
    return sim_submit_at(s, op, sim_now_ns());
}

cudaError_t sim_submit_at(sim_stream *s, sim_op *op, uint64_t submit_ns) {
    op->submit_ns = submit_ns;
    bool must_queue = op->kind == SIM_OP_HOST_FN || (op->kind == SIM_OP_WAIT && !op->marker->done);
    if (!must_queue && !sim_stream_busy(s)) {
        finish_op(op, exec_op(s, op));
        progress();
        return cudaSuccess;
    }
    sim_op *q = malloc(sizeof *q);
    if (q == NULL || add_implicit_waits(s, op->submit_ns) != cudaSuccess) {
        free(q);
        return cudaErrorMemoryAllocation;
    }
    *q = *op;
    enqueue(s, q);
    start_worker();
    pthread_cond_signal(&worker_cv);
    return cudaSuccess;
}

cudaError_t sim_submit_wait(sim_stream *s, sim_op *op, uint64_t *end_ns) {
    sim_marker *c = sim_marker_new();
    if (c == NULL)
        return cudaErrorMemoryAllocation;
    op->complete = c;
    sim_marker_ref(c);
    cudaError_t e = sim_submit(s, op);
    if (e != cudaSuccess) {
        free(c); /* never queued: both references were ours */
        free(op->staging);
        op->staging = NULL;
        return e;
    }
    e = sim_wait_marker(c);
    if (end_ns)
        *end_ns = c->time_ns;
    sim_marker_unref(c);
    return e;
}

/* ---- the worker ---------------------------------------------------------------------------- */

static bool head_runnable(const sim_stream *s) {
    const sim_op *op = s->head;
    if (op == NULL || op->running)
        return false;
    return op->kind != SIM_OP_WAIT || op->marker->done;
}

static sim_stream *runnable_stream(void) {
    for (sim_stream *s = pending_head; s; s = s->pending_next)
        if (head_runnable(s))
            return s;
    return NULL;
}

static void run_head(sim_stream *s) {
    sim_op *op = s->head;
    s->holds++;
    uint64_t end = op->kind == SIM_OP_HOST_FN ? exec_host_fn(s, op) : exec_op(s, op);
    s->holds--;
    s->head = op->next;
    if (s->head == NULL)
        s->tail = NULL;
    finish_op(op, end);
    free(op);
    if (--s->queued == 0)
        mark_idle(s);
    progress();
}

static void *worker_main(void *arg) {
    (void)arg;
    pthread_mutex_lock(&sim_sched_lock);
    for (;;) {
        sim_stream *s = runnable_stream();
        if (s)
            run_head(s);
        else
            pthread_cond_wait(&worker_cv, &sim_sched_lock);
    }
    return NULL;
}

/* Waits for progress. When no worker thread can be started the waiting thread runs the queue
 * itself (host functions included): late, but never stuck. */
static cudaError_t wait_progress(void) {
    if (sim_in_callback)
        return cudaErrorNotPermitted; /* a host function waiting for the worker that runs it */
    if (!start_worker()) {
        sim_stream *s = runnable_stream();
        if (s)
            run_head(s);
        return s ? cudaSuccess : cudaErrorUnknown;
    }
    pthread_cond_signal(&worker_cv);
    waiters++;
    pthread_cond_wait(&progress_cv, &sim_sched_lock);
    waiters--;
    return cudaSuccess;
}

cudaError_t sim_wait_marker(sim_marker *m) {
    while (!m->done) {
        cudaError_t e = wait_progress();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t sim_wait_stream(sim_stream *s, uint64_t *end_ns) {
    cudaError_t e = cudaSuccess;
    bool legacy = s->kind == SIM_STREAM_LEGACY;
    s->holds++;
    while (e == cudaSuccess && (s->queued > 0 || (legacy && devs[s->device].pending_blocking > 0)))
        e = wait_progress();
    s->holds--;
    if (end_ns) /* the legacy stream also waited for every blocking stream */
        *end_ns = legacy ? sim_max_u64(s->last_end_ns, devs[s->device].blocking_end)
                         : s->last_end_ns;
    if (s->destroyed && s->queued == 0 && s->holds == 0)
        free_stream(s);
    return e;
}

cudaError_t sim_wait_device(int device) {
    cudaError_t e = cudaSuccess;
    while (e == cudaSuccess && devs[device].pending > 0)
        e = wait_progress();
    return e;
}

void sim_wait_host_until(uint64_t t_ns) {
    if (!sim_cfg.realtime || sim_now_ns() >= t_ns) {
        sim_host_catch_up(t_ns);
        return;
    }
    pthread_mutex_unlock(&sim_sched_lock);
    sim_sleep_until(t_ns);
    pthread_mutex_lock(&sim_sched_lock);
}

/* In a forked child only the forking thread exists: no worker, no waiters, and a host function
 * the parent's worker was running is the parent's business (dropped here). */
void sim_sched_atfork_child(void) {
    pthread_cond_init(&worker_cv, NULL);
    pthread_cond_init(&progress_cv, NULL);
    worker_running = false;
    waiters = 0;
    for (int d = 0; d < SIM_MAX_DEVICES; d++)
        for (sim_stream *s = devs[d].streams; s; s = s->dev_next)
            s->holds = 0;
    for (sim_stream *s = pending_head, *next; s; s = next) {
        next = s->pending_next;
        if (s->head && s->head->running) {
            sim_op *op = s->head;
            s->head = op->next;
            if (s->head == NULL)
                s->tail = NULL;
            op->running = false;
            finish_op(op, s->last_end_ns);
            free(op);
            if (--s->queued == 0)
                mark_idle(s);
        }
    }
}
