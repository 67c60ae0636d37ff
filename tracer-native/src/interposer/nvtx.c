/* The interposer as an NVTX injection library, as Nsight Systems is one (docs/CAPTURE.md).
 *
 * NVTX v3 (header-only, compiled into the program and into each library that uses it) and the
 * older libnvToolsExt.so both load the library named by NVTX_INJECTION64_PATH at the first NVTX
 * call and call its InitializeInjectionNvtx2 with their export table; `apptrace run` names this
 * library, which is already preloaded, so dlopen returns it. The injection writes its own
 * functions into the CORE and CORE2 function tables (marks, push/pop and start/end ranges, in the
 * default domain and in named ones, domain and string registration); every other NVTX call stays
 * the no-op NVTX makes of it. Each copy of NVTX in the process calls in once; every one gets the
 * same functions.
 *
 * The functions never harm the program: they are thread-safe, take no lock but their thread's
 * buffer (and a mutex when a domain or string is registered), accept NULL and attributes of any
 * size or message type, and return what NVTX specifies: push the 0-based level of the range
 * opened, pop the level of the range closed or -1 when nothing is open. When tracing is off (no
 * collector, or its start-up failed), they only keep that count. Each call is recorded as an
 * Annotation on the calling thread's batch at the time of the call.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <wchar.h>

#include "hook.h"

/* A domain or registered string: the handle NVTX gives back to us is a pointer to one. */
#define NAME_MAGIC 0x4e565458u /* "NVTX" */
typedef struct at_nvtx_name {
    uint32_t magic;
    uint32_t len;
    char text[];
} at_nvtx_name;
struct nvtxDomainRegistration_st {
    at_nvtx_name name;
};
struct nvtxStringRegistration_st {
    at_nvtx_name name;
};

/* Names live in mmap'd chunks, never freed (NVTX handles stay valid until the process ends). At
 * most AT_NVTX_NAME_BYTES in all: a program that registers more strings gets the empty one. */
#define CHUNK_BYTES (256u * 1024)
#define AT_NVTX_NAME_BYTES (64u * 1024 * 1024)
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *chunk;
static size_t chunk_used = CHUNK_BYTES, names_total;
static const at_nvtx_name empty_name = {.magic = NAME_MAGIC, .len = 0};

/* Domains created so far (a second nvtxDomainCreate of the same name returns the same handle). */
#define MAX_DOMAINS 256
static const at_nvtx_name *domains[MAX_DOMAINS];
static int ndomains;

static const at_nvtx_name *name_new_locked(const char *text, size_t len) {
    size_t need = (sizeof(at_nvtx_name) + len + 1 + 7) & ~(size_t)7;
    if (need > CHUNK_BYTES || names_total + need > AT_NVTX_NAME_BYTES) return &empty_name;
    if (chunk_used + need > CHUNK_BYTES) {
        void *m = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return &empty_name;
        chunk = m;
        chunk_used = 0;
    }
    at_nvtx_name *n = (at_nvtx_name *)(chunk + chunk_used);
    chunk_used += need;
    names_total += need;
    n->magic = NAME_MAGIC;
    n->len = (uint32_t)len;
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    return n;
}

static const at_nvtx_name *name_new(const char *text, bool intern) {
    if (text == NULL) text = "";
    size_t len = strnlen(text, ENC_MAX_NAME);
    pthread_mutex_lock(&names_lock);
    const at_nvtx_name *n = NULL;
    if (intern) {
        for (int i = 0; i < ndomains && n == NULL; i++) {
            if (domains[i]->len == len && memcmp(domains[i]->text, text, len) == 0) n = domains[i];
        }
    }
    if (n == NULL) {
        n = name_new_locked(text, len);
        if (intern && ndomains < MAX_DOMAINS && n != &empty_name) domains[ndomains++] = n;
    }
    pthread_mutex_unlock(&names_lock);
    return n;
}

/* UTF-32 (wchar_t on Linux) to UTF-8, at most ENC_MAX_NAME bytes, always NUL-terminated;
 * characters that are not Unicode scalar values become U+FFFD. */
static size_t utf8(const wchar_t *in, char *out, size_t cap) {
    size_t n = 0;
    if (cap == 0) return 0;
    for (; in != NULL && *in != 0; in++) {
        uint32_t c = (uint32_t)*in;
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (n + k >= cap) break;
        if (k == 1) {
            out[n++] = (char)c;
        } else {
            static const uint8_t lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
            for (size_t i = k - 1; i > 0; i--) {
                out[n + i] = (char)(0x80 | (c & 0x3F));
                c >>= 6;
            }
            out[n] = (char)(lead[k] | c);
            n += k;
        }
    }
    out[n] = '\0';
    return n;
}

static const char *domain_name(nvtxDomainHandle_t d) {
    return d == NULL || d->name.magic != NAME_MAGIC ? "" : d->name.text;
}

/* The message of event attributes, as UTF-8 (into buf when it must be converted). */
static const char *message_of(const nvtxEventAttributes_t *a, char *buf, size_t cap, uint32_t *category) {
    *category = 0;
    if (a == NULL || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message) return "";
    *category = a->category;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii == NULL ? "" : a->message.ascii;
    case NVTX_MESSAGE_TYPE_UNICODE:
        utf8(a->message.unicode, buf, cap);
        return buf;
    case NVTX_MESSAGE_TYPE_REGISTERED: {
        nvtxStringHandle_t s = a->message.registered;
        return s == NULL || s->name.magic != NAME_MAGIC ? "" : s->name.text;
    }
    default:
        return "";
    }
}

/* Push/pop levels, per thread and domain: what push and pop return. A thread that uses more
 * domains than this is told NVTX_NO_PUSH_POP_TRACKING for the others. */
#define LEVEL_DOMAINS 8
typedef struct {
    nvtxDomainHandle_t domain[LEVEL_DOMAINS];
    int32_t level[LEVEL_DOMAINS];
    int used;
} at_nvtx_levels;
static __thread at_nvtx_levels levels AT_TLS;

static int32_t *level_of(nvtxDomainHandle_t d) {
    for (int i = 0; i < levels.used; i++) {
        if (levels.domain[i] == d) return &levels.level[i];
    }
    if (levels.used == LEVEL_DOMAINS) return NULL;
    levels.domain[levels.used] = d;
    levels.level[levels.used] = 0;
    return &levels.level[levels.used++];
}

static _Atomic uint64_t next_range_id = 1;

/* Writes the Annotation; nothing when tracing is off. */
static void record(int kind, const char *message, nvtxDomainHandle_t d, uint64_t id, int32_t level,
                   uint32_t category) {
    if (AT_UNLIKELY(!atomic_load_explicit(&at_active, memory_order_relaxed)) && !at_activate_slow()) return;
    at_tls.depth++; /* nothing the recorder does is the program's */
    at_event e;
    if (at_begin_record(&e, at_now_ns())) {
        enc_annotation m = {.kind = kind, .message = message, .domain = domain_name(d), .range_id = id,
                            .level = level, .category = category};
        enc_annotation_body(&e.w, &m);
        at_commit(&e);
    }
    at_tls.depth--;
}

static int push(nvtxDomainHandle_t d, const char *message, uint32_t category) {
    int32_t *l = level_of(d);
    int32_t level = l == NULL ? NVTX_NO_PUSH_POP_TRACKING : (*l)++;
    record(PB_AnnotationKind_RANGE_PUSH, message, d, 0, level, category);
    return level;
}

static int pop(nvtxDomainHandle_t d) {
    int32_t *l = level_of(d);
    int32_t level = l == NULL ? NVTX_NO_PUSH_POP_TRACKING : *l > 0 ? --*l : -1;
    record(PB_AnnotationKind_RANGE_POP, NULL, d, 0, level, 0);
    return level;
}

static nvtxRangeId_t start(nvtxDomainHandle_t d, const char *message, uint32_t category) {
    uint64_t id = atomic_fetch_add_explicit(&next_range_id, 1, memory_order_relaxed);
    record(PB_AnnotationKind_RANGE_START, message, d, id, 0, category);
    return id;
}

/* ---- the functions NVTX calls (the default domain's are the domain ones with a NULL domain) ---- */

static void NVTX_API domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char buf[ENC_MAX_NAME + 1];
    uint32_t cat;
    const char *m = message_of(a, buf, sizeof buf, &cat);
    record(PB_AnnotationKind_MARK, m, d, 0, 0, cat);
}
static nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char buf[ENC_MAX_NAME + 1];
    uint32_t cat;
    const char *m = message_of(a, buf, sizeof buf, &cat);
    return start(d, m, cat);
}
static void NVTX_API domain_range_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
    record(PB_AnnotationKind_RANGE_END, NULL, d, id, 0, 0);
}
static int NVTX_API domain_range_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) {
    char buf[ENC_MAX_NAME + 1];
    uint32_t cat;
    const char *m = message_of(a, buf, sizeof buf, &cat);
    return push(d, m, cat);
}
static int NVTX_API domain_range_pop(nvtxDomainHandle_t d) {
    return pop(d);
}

static void NVTX_API mark_ex(const nvtxEventAttributes_t *a) {
    domain_mark_ex(NULL, a);
}
static void NVTX_API mark_a(const char *message) {
    record(PB_AnnotationKind_MARK, message, NULL, 0, 0, 0);
}
static void NVTX_API mark_w(const wchar_t *message) {
    char buf[ENC_MAX_NAME + 1];
    utf8(message, buf, sizeof buf);
    mark_a(buf);
}
static nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t *a) {
    return domain_range_start_ex(NULL, a);
}
static nvtxRangeId_t NVTX_API range_start_a(const char *message) {
    return start(NULL, message, 0);
}
static nvtxRangeId_t NVTX_API range_start_w(const wchar_t *message) {
    char buf[ENC_MAX_NAME + 1];
    utf8(message, buf, sizeof buf);
    return range_start_a(buf);
}
static void NVTX_API range_end(nvtxRangeId_t id) {
    domain_range_end(NULL, id);
}
static int NVTX_API range_push_ex(const nvtxEventAttributes_t *a) {
    return domain_range_push_ex(NULL, a);
}
static int NVTX_API range_push_a(const char *message) {
    return push(NULL, message, 0);
}
static int NVTX_API range_push_w(const wchar_t *message) {
    char buf[ENC_MAX_NAME + 1];
    utf8(message, buf, sizeof buf);
    return range_push_a(buf);
}
static int NVTX_API range_pop(void) {
    return pop(NULL);
}
static nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t d, const char *s) {
    (void)d;
    return (nvtxStringHandle_t)name_new(s, false);
}
static nvtxStringHandle_t NVTX_API domain_register_string_w(nvtxDomainHandle_t d, const wchar_t *s) {
    (void)d;
    char buf[ENC_MAX_NAME + 1];
    utf8(s, buf, sizeof buf);
    return (nvtxStringHandle_t)name_new(buf, false);
}
static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name) {
    return (nvtxDomainHandle_t)name_new(name, true);
}
static nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t *name) {
    char buf[ENC_MAX_NAME + 1];
    utf8(name, buf, sizeof buf);
    return (nvtxDomainHandle_t)name_new(buf, true);
}
static void NVTX_API domain_destroy(nvtxDomainHandle_t d) {
    (void)d; /* the handle stays valid: a range of it may still be closed */
}

/* ---- installation ---- */

typedef struct {
    unsigned int id;
    NvtxFunctionPointer fn;
} slot;

#define FN(f) ((NvtxFunctionPointer)(f))
static const slot core[] = {
    {NVTX_CBID_CORE_MarkEx, FN(mark_ex)},           {NVTX_CBID_CORE_MarkA, FN(mark_a)},
    {NVTX_CBID_CORE_MarkW, FN(mark_w)},             {NVTX_CBID_CORE_RangeStartEx, FN(range_start_ex)},
    {NVTX_CBID_CORE_RangeStartA, FN(range_start_a)}, {NVTX_CBID_CORE_RangeStartW, FN(range_start_w)},
    {NVTX_CBID_CORE_RangeEnd, FN(range_end)},       {NVTX_CBID_CORE_RangePushEx, FN(range_push_ex)},
    {NVTX_CBID_CORE_RangePushA, FN(range_push_a)},  {NVTX_CBID_CORE_RangePushW, FN(range_push_w)},
    {NVTX_CBID_CORE_RangePop, FN(range_pop)},
};
static const slot core2[] = {
    {NVTX_CBID_CORE2_DomainMarkEx, FN(domain_mark_ex)},
    {NVTX_CBID_CORE2_DomainRangeStartEx, FN(domain_range_start_ex)},
    {NVTX_CBID_CORE2_DomainRangeEnd, FN(domain_range_end)},
    {NVTX_CBID_CORE2_DomainRangePushEx, FN(domain_range_push_ex)},
    {NVTX_CBID_CORE2_DomainRangePop, FN(domain_range_pop)},
    {NVTX_CBID_CORE2_DomainRegisterStringA, FN(domain_register_string_a)},
    {NVTX_CBID_CORE2_DomainRegisterStringW, FN(domain_register_string_w)},
    {NVTX_CBID_CORE2_DomainCreateA, FN(domain_create_a)},
    {NVTX_CBID_CORE2_DomainCreateW, FN(domain_create_w)},
    {NVTX_CBID_CORE2_DomainDestroy, FN(domain_destroy)},
};

/* Writes `n` functions into module `module`'s table; false when NVTX has no such table. Slots
 * beyond the table's size (an older NVTX) are left alone. */
static bool install(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, const slot *s, size_t n) {
    NvtxFunctionTable table = NULL;
    unsigned int size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || table == NULL) return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i].id <= size && table[s[i].id] != NULL) *table[s[i].id] = s[i].fn;
    }
    return true;
}

static int initialize(NvtxGetExportTableFunc_t get_export_table) {
    if (get_export_table == NULL) return 0;
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
    if (cb == NULL || cb->struct_size < offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable) +
                                            sizeof cb->GetModuleFunctionTable ||
        cb->GetModuleFunctionTable == NULL) {
        return 0;
    }
    if (!install(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0])) return 0;
    install(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]); /* NVTX v1 has no CORE2 */
    return 1;
}

/* The entry point NVTX looks up in the library NVTX_INJECTION64_PATH names; 1: installed. */
APPTRACE_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
    return initialize(get_export_table);
}
