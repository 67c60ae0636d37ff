/* Hooks for the host malloc family: allocations of at least APPTRACE_MALLOC_THRESHOLD bytes
 * (default 4 KiB) are recorded as PAGEABLE memory, so the graph knows the host buffers a program
 * copies from and to.
 *
 * Every call goes to the next allocator in the search order (glibc's, or jemalloc or tcmalloc if
 * the program brings its own): tracing must not change which allocator a program uses. While
 * that allocator is being looked up (dlsym itself allocates), requests are served from a small
 * static arena that free() recognizes and ignores. The cost for a small allocation is one
 * indirect call and one compare. */
#include <dlfcn.h>
#include <malloc.h>
#include <string.h>

#include "hook.h"

typedef struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    size_t (*usable_size)(void *);
} allocator;

static allocator next;
static _Atomic int resolving;
static _Alignas(16) uint8_t bootstrap[64 * 1024];
static _Atomic size_t bootstrap_used;

static bool in_bootstrap(const void *p) {
    return (const uint8_t *)p >= bootstrap && (const uint8_t *)p < bootstrap + sizeof bootstrap;
}

static void *bootstrap_alloc(size_t n) {
    size_t need = (n + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&bootstrap_used, need);
    if (at + need > sizeof bootstrap) return NULL;
    return bootstrap + at; /* static storage: already zeroed, as calloc requires */
}

static bool resolve(void) {
    if (AT_LIKELY(next.free != NULL)) return true;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&resolving, &expected, 1)) return false;
    allocator a;
    a.malloc = dlsym(RTLD_NEXT, "malloc");
    a.calloc = dlsym(RTLD_NEXT, "calloc");
    a.realloc = dlsym(RTLD_NEXT, "realloc");
    a.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    a.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    a.memalign = dlsym(RTLD_NEXT, "memalign");
    a.valloc = dlsym(RTLD_NEXT, "valloc");
    a.usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
    a.free = dlsym(RTLD_NEXT, "free");
    next = a;
    atomic_store(&resolving, 0);
    return next.free != NULL;
}

/* Records a host allocation; never starts the interposer (allocations happen inside the loader
 * and libc start-up, where that would not be safe). */
static void record_host(void *ra, const char *fn, void *p, size_t size, void *previous) {
    if (!atomic_load_explicit(&at_active, memory_order_relaxed) || at_tls.depth > 0 || p == NULL) return;
    if (at_in_runtime((uint64_t)(uintptr_t)ra)) return; /* the runtime's own, on its own threads */
    at_call c;
    if (!at_enter_(&c, APPTRACE_API_API_UNSPECIFIED, ra)) return;
    enc_alloc m = {.kind = PB_MemoryKind_PAGEABLE, .ptr = (uint64_t)(uintptr_t)p, .bytes = size,
                   .device = -1, .host_function = fn, .previous_ptr = (uint64_t)(uintptr_t)previous};
    AT_RECORD(&c, 0, enc_alloc_body, &m);
    at_leave(&c);
}

static void record_host_free(void *ra, void *p) {
    if (!atomic_load_explicit(&at_active, memory_order_relaxed) || at_tls.depth > 0) return;
    if (at_in_runtime((uint64_t)(uintptr_t)ra)) return;
    if (next.usable_size == NULL || next.usable_size(p) < at_cfg.malloc_threshold) return;
    at_call c;
    if (!at_enter_(&c, APPTRACE_API_API_UNSPECIFIED, ra)) return;
    enc_free m = {.kind = PB_MemoryKind_PAGEABLE, .ptr = (uint64_t)(uintptr_t)p, .device = -1};
    AT_RECORD(&c, 0, enc_free_body, &m);
    at_leave(&c);
}

#define LARGE(n) AT_UNLIKELY((n) >= at_cfg.malloc_threshold)

APPTRACE_HOOK(malloc, void *, (size_t size)) {
    if (AT_UNLIKELY(!resolve())) return bootstrap_alloc(size);
    void *p = next.malloc(size);
    if (LARGE(size)) record_host(__builtin_return_address(0), "malloc", p, size, NULL);
    return p;
}

APPTRACE_HOOK(calloc, void *, (size_t n, size_t size)) {
    if (AT_UNLIKELY(!resolve())) return bootstrap_alloc(n * size);
    void *p = next.calloc(n, size);
    if (LARGE(n * size)) record_host(__builtin_return_address(0), "calloc", p, n * size, NULL);
    return p;
}

APPTRACE_HOOK(realloc, void *, (void *old, size_t size)) {
    if (AT_UNLIKELY(!resolve())) return bootstrap_alloc(size);
    if (AT_UNLIKELY(old != NULL && in_bootstrap(old))) {
        void *p = next.malloc(size);
        if (p) memcpy(p, old, size < (size_t)(bootstrap + sizeof bootstrap - (uint8_t *)old)
                                  ? size : (size_t)(bootstrap + sizeof bootstrap - (uint8_t *)old));
        return p;
    }
    bool was_large = old != NULL && next.usable_size && next.usable_size(old) >= at_cfg.malloc_threshold;
    void *p = next.realloc(old, size);
    if (p != NULL && (LARGE(size) || was_large)) {
        if (LARGE(size)) {
            record_host(__builtin_return_address(0), "realloc", p, size, was_large ? old : NULL);
        } else if (atomic_load(&at_active) && at_tls.depth == 0) {
            /* shrunk below the threshold: the recorded allocation ends here */
            at_call c;
            if (at_enter_(&c, APPTRACE_API_API_UNSPECIFIED, __builtin_return_address(0))) {
                enc_free m = {.kind = PB_MemoryKind_PAGEABLE, .ptr = (uint64_t)(uintptr_t)old, .device = -1};
                AT_RECORD(&c, 0, enc_free_body, &m);
                at_leave(&c);
            }
        }
    }
    return p;
}

APPTRACE_HOOK(free, void, (void *p)) {
    if (p == NULL || AT_UNLIKELY(in_bootstrap(p))) return;
    if (AT_UNLIKELY(!resolve())) return; /* cannot happen for a pointer we did not hand out */
    if (atomic_load_explicit(&at_active, memory_order_relaxed)) record_host_free(__builtin_return_address(0), p);
    next.free(p);
}

APPTRACE_HOOK(posix_memalign, int, (void **out, size_t align, size_t size)) {
    if (AT_UNLIKELY(!resolve())) return 12; /* ENOMEM */
    int r = next.posix_memalign(out, align, size);
    if (r == 0 && LARGE(size)) record_host(__builtin_return_address(0), "posix_memalign", *out, size, NULL);
    return r;
}

APPTRACE_HOOK(aligned_alloc, void *, (size_t align, size_t size)) {
    if (AT_UNLIKELY(!resolve())) return NULL;
    void *p = next.aligned_alloc(align, size);
    if (LARGE(size)) record_host(__builtin_return_address(0), "aligned_alloc", p, size, NULL);
    return p;
}

APPTRACE_HOOK(memalign, void *, (size_t align, size_t size)) {
    if (AT_UNLIKELY(!resolve())) return NULL;
    void *p = next.memalign(align, size);
    if (LARGE(size)) record_host(__builtin_return_address(0), "memalign", p, size, NULL);
    return p;
}

APPTRACE_HOOK(valloc, void *, (size_t size)) {
    if (AT_UNLIKELY(!resolve())) return NULL;
    void *p = next.valloc(size);
    if (LARGE(size)) record_host(__builtin_return_address(0), "valloc", p, size, NULL);
    return p;
}
