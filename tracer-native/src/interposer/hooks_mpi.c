/* MPI calls, through MPI's profiling interface: the program's MPI_X resolves to the hook below
 * (the interposer is preloaded), which calls PMPI_X of the MPI library the program linked, found
 * with dlsym, and records what the call did (docs/CAPTURE.md, "MPI and NCCL").
 *
 * The program is never harmed: every hook calls PMPI_X with the program's own arguments (statuses
 * the program ignores are the one exception: the hook passes its own, which MPI fills instead of
 * nothing) and returns its result whatever happens to recording; what is asked of MPI beyond the
 * call (type sizes, communicator members, the count of a status) is asked only after the call
 * succeeded, with the handles it accepted, so no error handler can be reached through apptrace.
 * Without an MPI library nothing here is ever called. */

#include <string.h>

#include "hooks_mpi.h"

/* Asked only once the program has started the CUDA runtime itself (asking first would start it). */
bool mpi_device_memory(const void *p) {
    if (p == NULL || mpi_in_place(p)) return false;
    if (!atomic_load_explicit(&at_devices_asked, memory_order_relaxed)) return false;
    int type, device;
    return at_pointer_type(p, &type, &device) && (type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged);
}

void mpi_record(const at_call *c, int result, const enc_mpi *m) {
    AT_RECORD(c, result, enc_mpi_body, m);
}

void mpi_on_comm(enc_mpi *m, int op, mpi_h comm) {
    m->op = op;
    m->rank = mpi_world_rank();
    mpi_comm_info ci;
    if (mpi_comm(comm, &ci)) {
        m->comm = ci.id;
        m->comm_size = ci.size;
    }
}

/* --- start and end --------------------------------------------------------------------------- */

/* MPI_Init and MPI_Init_thread, once the real call returned r: the process's rank and world size. */
static int init_recorded(at_call *c, int r) {
    enc_mpi m = {.op = PB_MpiOp_MPI_INIT, .rank = -1};
    if (r == 0) {
        mpi_started();
        m.rank = mpi_world_rank();
        m.comm_size = mpi_world_size();
    }
    mpi_record(c, r, &m);
    at_leave(c);
    return r;
}

typedef int (*init_fn)(int *, char ***);
MPI_HOOK(int, MPI_Init, (int *argc, char ***argv)) {
    PMPI_REAL(init_fn, MPI_Init);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(argc, argv);
    int r = real(argc, argv);
    return init_recorded(&c, r);
}

typedef int (*init_thread_fn)(int *, char ***, int, int *);
MPI_HOOK(int, MPI_Init_thread, (int *argc, char ***argv, int required, int *provided)) {
    PMPI_REAL(init_thread_fn, MPI_Init_thread);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(argc, argv, required, provided);
    int r = real(argc, argv, required, provided);
    return init_recorded(&c, r);
}

typedef int (*finalize_fn)(void);
MPI_HOOK(int, MPI_Finalize, (void)) {
    PMPI_REAL(finalize_fn, MPI_Finalize);
    mpi_finishing(); /* nothing may be asked of MPI from here on */
    at_call c;
    if (!AT_ENTER(&c, 0)) return real();
    int r = real();
    enc_mpi m = {.op = PB_MpiOp_MPI_FINALIZE, .rank = mpi_world_rank(), .comm_size = mpi_world_size()};
    enc_mpi_unrecorded unrecorded[MPI_UNRECORDED_MAX];
    m.nunrecorded = mpi_unrecorded_calls(unrecorded, MPI_UNRECORDED_MAX);
    m.unrecorded = unrecorded;
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*comm_free_fn)(mpi_h *);
MPI_HOOK(int, MPI_Comm_free, (mpi_h *comm)) {
    PMPI_REAL(comm_free_fn, MPI_Comm_free);
    if (comm != NULL) mpi_comm_forget(mpi_handle_at(comm, 0));
    return real(comm);
}

/* --- point to point -------------------------------------------------------------------------- */

typedef int (*send_fn)(const void *, int, mpi_h, int, int, mpi_h);

static int send_like(send_fn real, int op, const void *buf, int count, mpi_h type, int dest, int tag,
                     mpi_h comm) {
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(buf, count, type, dest, tag, comm);
    int r = real(buf, count, type, dest, tag, comm);
    enc_mpi m = {0};
    mpi_on_comm(&m, op, comm);
    m.tag = tag;
    if (r == 0) {
        m.peer = mpi_world_rank_of(comm, dest);
        m.bytes = mpi_bytes(count, type);
        m.device_buffer = mpi_device_memory(buf);
        m.send_buffer = (uintptr_t)buf;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

MPI_HOOK(int, MPI_Send, (const void *buf, int count, mpi_h type, int dest, int tag, mpi_h comm)) {
    PMPI_REAL(send_fn, MPI_Send);
    return send_like(real, PB_MpiOp_MPI_SEND, buf, count, type, dest, tag, comm);
}

MPI_HOOK(int, MPI_Ssend, (const void *buf, int count, mpi_h type, int dest, int tag, mpi_h comm)) {
    PMPI_REAL(send_fn, MPI_Ssend);
    return send_like(real, PB_MpiOp_MPI_SSEND, buf, count, type, dest, tag, comm);
}

typedef int (*recv_fn)(void *, int, mpi_h, int, int, mpi_h, mpi_status *);
MPI_HOOK(int, MPI_Recv, (void *buf, int count, mpi_h type, int source, int tag, mpi_h comm, mpi_status *st)) {
    PMPI_REAL(recv_fn, MPI_Recv);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(buf, count, type, source, tag, comm, st);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(buf, count, type, source, tag, comm, s);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_RECV, comm);
    m.peer = mpi_world_rank_of(comm, source);
    m.tag = mpi_tag(tag);
    if (r == 0 && known) {
        m.peer = mpi_status_source(s, comm);
        m.tag = mpi_status_tag(s);
        m.bytes = mpi_received_bytes(s, type);
        m.device_buffer = mpi_device_memory(buf);
        m.recv_buffer = (uintptr_t)buf;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*isend_fn)(const void *, int, mpi_h, int, int, mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Isend, (const void *buf, int count, mpi_h type, int dest, int tag, mpi_h comm, mpi_h *req)) {
    PMPI_REAL(isend_fn, MPI_Isend);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(buf, count, type, dest, tag, comm, req);
    int r = real(buf, count, type, dest, tag, comm, req);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_ISEND, comm);
    m.tag = tag;
    if (r == 0) {
        m.peer = mpi_world_rank_of(comm, dest);
        m.bytes = mpi_bytes(count, type);
        m.device_buffer = mpi_device_memory(buf);
        m.send_buffer = (uintptr_t)buf;
        if (mpi_usable()) m.request = mpi_request_started(mpi_handle_at(req, 0), false, comm, type);
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*irecv_fn)(void *, int, mpi_h, int, int, mpi_h, mpi_h *);
MPI_HOOK(int, MPI_Irecv, (void *buf, int count, mpi_h type, int source, int tag, mpi_h comm, mpi_h *req)) {
    PMPI_REAL(irecv_fn, MPI_Irecv);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(buf, count, type, source, tag, comm, req);
    int r = real(buf, count, type, source, tag, comm, req);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_IRECV, comm);
    m.tag = mpi_tag(tag);
    if (r == 0) {
        m.peer = mpi_world_rank_of(comm, source);
        m.bytes = mpi_bytes(count, type); /* the buffer's size; the completion says what came */
        m.device_buffer = mpi_device_memory(buf);
        m.recv_buffer = (uintptr_t)buf;
        if (mpi_usable()) {
            mpi_world_rank_of(comm, 0); /* caches the communicator's members for the completion */
            m.request = mpi_request_started(mpi_handle_at(req, 0), true, comm, type);
        }
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*sendrecv_fn)(const void *, int, mpi_h, int, int, void *, int, mpi_h, int, int, mpi_h, mpi_status *);
MPI_HOOK(int, MPI_Sendrecv, (const void *sbuf, int scount, mpi_h stype, int dest, int stag, void *rbuf,
                             int rcount, mpi_h rtype, int source, int rtag, mpi_h comm, mpi_status *st)) {
    PMPI_REAL(sendrecv_fn, MPI_Sendrecv);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, s);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_SENDRECV, comm);
    m.tag = stag;
    m.recv_tag = mpi_tag(rtag);
    if (r == 0 && known) {
        m.peer = mpi_world_rank_of(comm, dest);
        m.bytes = mpi_bytes(scount, stype);
        m.device_buffer = mpi_device_memory(sbuf);
        m.recv_peer = mpi_status_source(s, comm);
        m.recv_tag = mpi_status_tag(s);
        m.recv_bytes = mpi_received_bytes(s, rtype);
        m.recv_device_buffer = mpi_device_memory(rbuf);
        m.send_buffer = (uintptr_t)sbuf;
        m.recv_buffer = (uintptr_t)rbuf;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

/* --- completions ----------------------------------------------------------------------------- */

#define MAX_TRACKED 256 /* requests per Waitall (Waitsome, Testall...) whose completions are recorded */

/* The completion of request `h`, if the trace saw it start. */
static bool completion(mpi_h h, const mpi_status *s, enc_mpi_completion *out) {
    mpi_request q;
    if (!mpi_request_done(h, &q)) return false;
    *out = (enc_mpi_completion){.request = q.number, .receive = q.receive};
    if (q.receive && s != NULL) {
        out->source = mpi_status_source(s, q.comm);
        out->tag = mpi_status_tag(s);
        out->bytes = mpi_received_bytes(s, q.type);
    }
    return true;
}

typedef int (*wait_fn)(mpi_h *, mpi_status *);
MPI_HOOK(int, MPI_Wait, (mpi_h *req, mpi_status *st)) {
    PMPI_REAL(wait_fn, MPI_Wait);
    at_call c;
    if (req == NULL || !AT_ENTER(&c, 0)) return real(req, st);
    mpi_h h = mpi_handle_at(req, 0);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(req, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_WAIT, .rank = mpi_world_rank()};
    enc_mpi_completion done;
    if (known && completion(h, r == 0 ? s : NULL, &done)) {
        m.completed = &done;
        m.ncompleted = 1;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*waitall_fn)(int, mpi_h *, mpi_status *);
MPI_HOOK(int, MPI_Waitall, (int count, mpi_h *reqs, mpi_status *sts)) {
    PMPI_REAL(waitall_fn, MPI_Waitall);
    at_call c;
    if (count <= 0 || count > MAX_TRACKED || reqs == NULL || !AT_ENTER(&c, 0)) return real(count, reqs, sts);
    mpi_h handles[MAX_TRACKED];
    for (int i = 0; i < count; i++) handles[i] = mpi_handle_at(reqs, i);
    mpi_status own[MAX_TRACKED];
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(sts, own); /* MPI_STATUSES_IGNORE */
    int r = real(count, reqs, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_WAITALL, .rank = mpi_world_rank()};
    enc_mpi_completion done[MAX_TRACKED];
    uint32_t n = 0;
    for (int i = 0; known && i < count; i++) {
        if (completion(handles[i], r == 0 ? mpi_status_at(s, i) : NULL, &done[n])) n++;
    }
    m.completed = done;
    m.ncompleted = n;
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*waitany_fn)(int, mpi_h *, int *, mpi_status *);
MPI_HOOK(int, MPI_Waitany, (int count, mpi_h *reqs, int *index, mpi_status *st)) {
    PMPI_REAL(waitany_fn, MPI_Waitany);
    at_call c;
    if (count <= 0 || count > MAX_TRACKED || reqs == NULL || index == NULL || !AT_ENTER(&c, 0)) {
        return real(count, reqs, index, st);
    }
    mpi_h handles[MAX_TRACKED];
    for (int i = 0; i < count; i++) handles[i] = mpi_handle_at(reqs, i);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(count, reqs, index, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_WAITANY, .rank = mpi_world_rank()};
    enc_mpi_completion done;
    if (known && r == 0 && *index >= 0 && *index < count && completion(handles[*index], s, &done)) {
        m.completed = &done;
        m.ncompleted = 1;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*test_fn)(mpi_h *, int *, mpi_status *);
MPI_HOOK(int, MPI_Test, (mpi_h *req, int *flag, mpi_status *st)) {
    PMPI_REAL(test_fn, MPI_Test);
    at_call c;
    if (req == NULL || flag == NULL || !AT_ENTER(&c, 0)) return real(req, flag, st);
    mpi_h h = mpi_handle_at(req, 0);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(req, flag, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_TEST, .rank = mpi_world_rank()};
    enc_mpi_completion done;
    if (known && r == 0 && *flag && completion(h, s, &done)) {
        m.completed = &done;
        m.ncompleted = 1;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

/* Waitsome, Testsome: the requests at `indices[0..outcount)` of `handles` completed, their statuses
 * in `s` in the same order. */
static uint32_t some_completed(const mpi_h *handles, int incount, int outcount, const int *indices,
                               const mpi_status *s, bool ok, enc_mpi_completion *done) {
    uint32_t n = 0;
    if (outcount == mpi_undefined() || outcount < 0 || indices == NULL) return 0;
    for (int j = 0; j < outcount && j < incount; j++) {
        int i = indices[j];
        if (i >= 0 && i < incount && completion(handles[i], ok ? mpi_status_at(s, j) : NULL, &done[n])) n++;
    }
    return n;
}

typedef int (*waitsome_fn)(int, mpi_h *, int *, int *, mpi_status *);

static int some(waitsome_fn real, int op, int incount, mpi_h *reqs, int *outcount, int *indices,
                mpi_status *sts) {
    at_call c;
    if (incount <= 0 || incount > MAX_TRACKED || reqs == NULL || outcount == NULL || indices == NULL ||
        !AT_ENTER(&c, 0)) {
        return real(incount, reqs, outcount, indices, sts);
    }
    mpi_h handles[MAX_TRACKED];
    for (int i = 0; i < incount; i++) handles[i] = mpi_handle_at(reqs, i);
    mpi_status own[MAX_TRACKED];
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(sts, own);
    int r = real(incount, reqs, outcount, indices, s);
    enc_mpi m = {.op = op, .rank = mpi_world_rank()};
    enc_mpi_completion done[MAX_TRACKED];
    m.completed = done;
    m.ncompleted = known && r == 0 ? some_completed(handles, incount, *outcount, indices, s, true, done) : 0;
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

MPI_HOOK(int, MPI_Waitsome, (int incount, mpi_h *reqs, int *outcount, int *indices, mpi_status *sts)) {
    PMPI_REAL(waitsome_fn, MPI_Waitsome);
    return some(real, PB_MpiOp_MPI_WAITSOME, incount, reqs, outcount, indices, sts);
}

MPI_HOOK(int, MPI_Testsome, (int incount, mpi_h *reqs, int *outcount, int *indices, mpi_status *sts)) {
    PMPI_REAL(waitsome_fn, MPI_Testsome);
    return some(real, PB_MpiOp_MPI_TESTSOME, incount, reqs, outcount, indices, sts);
}

typedef int (*testall_fn)(int, mpi_h *, int *, mpi_status *);
MPI_HOOK(int, MPI_Testall, (int count, mpi_h *reqs, int *flag, mpi_status *sts)) {
    PMPI_REAL(testall_fn, MPI_Testall);
    at_call c;
    if (count <= 0 || count > MAX_TRACKED || reqs == NULL || flag == NULL || !AT_ENTER(&c, 0)) {
        return real(count, reqs, flag, sts);
    }
    mpi_h handles[MAX_TRACKED];
    for (int i = 0; i < count; i++) handles[i] = mpi_handle_at(reqs, i);
    mpi_status own[MAX_TRACKED];
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(sts, own);
    int r = real(count, reqs, flag, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_TESTALL, .rank = mpi_world_rank()};
    enc_mpi_completion done[MAX_TRACKED];
    uint32_t n = 0;
    /* all or none: with flag false no request was completed (nor freed) */
    for (int i = 0; known && r == 0 && *flag && i < count; i++) {
        if (completion(handles[i], mpi_status_at(s, i), &done[n])) n++;
    }
    m.completed = done;
    m.ncompleted = n;
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*testany_fn)(int, mpi_h *, int *, int *, mpi_status *);
MPI_HOOK(int, MPI_Testany, (int count, mpi_h *reqs, int *index, int *flag, mpi_status *st)) {
    PMPI_REAL(testany_fn, MPI_Testany);
    at_call c;
    if (count <= 0 || count > MAX_TRACKED || reqs == NULL || index == NULL || flag == NULL || !AT_ENTER(&c, 0)) {
        return real(count, reqs, index, flag, st);
    }
    mpi_h handles[MAX_TRACKED];
    for (int i = 0; i < count; i++) handles[i] = mpi_handle_at(reqs, i);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(count, reqs, index, flag, s);
    enc_mpi m = {.op = PB_MpiOp_MPI_TESTANY, .rank = mpi_world_rank()};
    enc_mpi_completion done;
    /* flag true with index MPI_UNDEFINED: no active request was left */
    if (known && r == 0 && *flag && *index >= 0 && *index < count && completion(handles[*index], s, &done)) {
        m.completed = &done;
        m.ncompleted = 1;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

/* --- probes ---------------------------------------------------------------------------------- */

/* What a probe that found a message records: its source, tag and bytes, from the status. */
static void probed(enc_mpi *m, mpi_h comm, const mpi_status *s) {
    m->peer = mpi_status_source(s, comm);
    m->tag = mpi_status_tag(s);
    m->bytes = mpi_probed_bytes(s);
}

typedef int (*probe_fn)(int, int, mpi_h, mpi_status *);
MPI_HOOK(int, MPI_Probe, (int source, int tag, mpi_h comm, mpi_status *st)) {
    PMPI_REAL(probe_fn, MPI_Probe);
    at_call c;
    if (!AT_ENTER(&c, 0)) return real(source, tag, comm, st);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(source, tag, comm, s);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_PROBE, comm);
    m.peer = mpi_world_rank_of(comm, source);
    m.tag = mpi_tag(tag);
    if (r == 0 && known) {
        probed(&m, comm, s);
        m.found = true;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}

typedef int (*iprobe_fn)(int, int, mpi_h, int *, mpi_status *);
MPI_HOOK(int, MPI_Iprobe, (int source, int tag, mpi_h comm, int *flag, mpi_status *st)) {
    PMPI_REAL(iprobe_fn, MPI_Iprobe);
    at_call c;
    if (flag == NULL || !AT_ENTER(&c, 0)) return real(source, tag, comm, flag, st);
    mpi_status own;
    bool known = mpi_world() != NULL;
    mpi_status *s = mpi_status_arg(st, &own);
    int r = real(source, tag, comm, flag, s);
    enc_mpi m = {0};
    mpi_on_comm(&m, PB_MpiOp_MPI_IPROBE, comm);
    m.peer = mpi_world_rank_of(comm, source);
    m.tag = mpi_tag(tag);
    if (r == 0 && known && *flag) {
        probed(&m, comm, s);
        m.found = true;
    }
    mpi_record(&c, r, &m);
    at_leave(&c);
    return r;
}
