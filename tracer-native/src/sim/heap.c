/* The allocator of simulated device and managed memory.
 *
 * Each range is reserved once (PROT_NONE, MAP_NORESERVE: address space only) and tiled by
 * segments, free or allocated, kept in a treap ordered by address. Every node also records the
 * largest free segment below it, so first-fit is a single descent. Allocations are 256-byte
 * aligned; their pages are made readable and writable when allocated and returned to the system
 * (and made inaccessible again, so stray accesses fault as on a device) when freed. */
#include "heap.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define RESERVE_GRANULE (2u << 20)
#define MIN_RESERVE (64u << 20)

static uint32_t prio_state = 2463534242u;

static uint32_t next_prio(void) {
    uint32_t x = prio_state; /* xorshift32: only the treap's balance depends on it */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return prio_state = x;
}

static uintptr_t page_mask(void) {
    static uintptr_t ps;
    if (ps == 0)
        ps = (uintptr_t)sysconf(_SC_PAGESIZE);
    return ps - 1;
}

/* ---- treap --------------------------------------------------------------------------------- */

static void update(sim_seg *t) {
    size_t m = t->free ? t->size : 0;
    if (t->left && t->left->max_free > m)
        m = t->left->max_free;
    if (t->right && t->right->max_free > m)
        m = t->right->max_free;
    t->max_free = m;
}

static sim_seg *merge(sim_seg *a, sim_seg *b) {
    if (a == NULL)
        return b;
    if (b == NULL)
        return a;
    if (a->prio > b->prio) {
        a->right = merge(a->right, b);
        update(a);
        return a;
    }
    b->left = merge(a, b->left);
    update(b);
    return b;
}

/* Splits t into the nodes below key (*l) and the rest (*r). */
static void split(sim_seg *t, uintptr_t key, sim_seg **l, sim_seg **r) {
    if (t == NULL) {
        *l = *r = NULL;
        return;
    }
    if (t->addr < key) {
        split(t->right, key, &t->right, r);
        *l = t;
    } else {
        split(t->left, key, l, &t->left);
        *r = t;
    }
    update(t);
}

static sim_seg *insert(sim_seg *root, sim_seg *n) {
    sim_seg *l, *r;
    n->prio = next_prio();
    n->left = n->right = NULL;
    update(n);
    split(root, n->addr, &l, &r);
    return merge(merge(l, n), r);
}

static sim_seg *erase(sim_seg *root, uintptr_t key, sim_seg **out) {
    sim_seg *l, *m, *r;
    split(root, key, &l, &m);
    split(m, key + 1, &m, &r);
    *out = m;
    return merge(l, r);
}

static sim_seg *floor_seg(sim_seg *t, uintptr_t key) {
    sim_seg *best = NULL;
    while (t) {
        if (t->addr <= key) {
            best = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return best;
}

static sim_seg *after_seg(sim_seg *t, uintptr_t key) {
    sim_seg *best = NULL;
    while (t) {
        if (t->addr > key) {
            best = t;
            t = t->left;
        } else {
            t = t->right;
        }
    }
    return best;
}

/* Recomputes the augmentation on the path to key after a node there changed. */
static void refresh(sim_seg *t, uintptr_t key) {
    if (t == NULL)
        return;
    if (key < t->addr)
        refresh(t->left, key);
    else if (key > t->addr)
        refresh(t->right, key);
    update(t);
}

static sim_seg *first_fit(sim_seg *t, size_t need) {
    while (t) {
        if (t->left && t->left->max_free >= need)
            t = t->left;
        else if (t->free && t->size >= need)
            return t;
        else if (t->right && t->right->max_free >= need)
            t = t->right;
        else
            return NULL;
    }
    return NULL;
}

/* ---- ranges -------------------------------------------------------------------------------- */

int sim_heap_reserve(sim_heap *h, uintptr_t hint, size_t capacity) {
    size_t size = (capacity + RESERVE_GRANULE - 1) & ~(size_t)(RESERVE_GRANULE - 1);
    void *p = MAP_FAILED;
    /* Address-space limits (ulimit -v) may refuse the full size: take what is granted. */
    while (size >= MIN_RESERVE) {
        p = mmap((void *)hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                 0);
        if (p != MAP_FAILED)
            break;
        size /= 2;
    }
    sim_seg *all = calloc(1, sizeof *all);
    if (p == MAP_FAILED || all == NULL) {
        if (p != MAP_FAILED)
            munmap(p, size);
        free(all);
        h->state = -1;
        return -1;
    }
    h->base = (uintptr_t)p;
    h->size = size;
    h->capacity = capacity < size ? capacity : size;
    h->used = 0;
    all->addr = h->base;
    all->size = size;
    all->free = true;
    h->root = insert(NULL, all);
    h->state = 1;
    return 0;
}

bool sim_heap_contains(const sim_heap *h, uintptr_t p) {
    return h->state == 1 && p >= h->base && p - h->base < h->size;
}

sim_seg *sim_heap_alloc(sim_heap *h, size_t size) {
    if (h->state != 1 || size == 0 || size > h->capacity)
        return NULL;
    size_t need = (size + SIM_ALIGN - 1) & ~(size_t)(SIM_ALIGN - 1);
    if (need > h->capacity - h->used)
        return NULL;
    sim_seg *n = first_fit(h->root, need);
    if (n == NULL)
        return NULL;
    sim_seg *rest = NULL;
    if (n->size > need && (rest = calloc(1, sizeof *rest)) == NULL)
        return NULL;
    uintptr_t lo = n->addr & ~page_mask();
    uintptr_t hi = (n->addr + need + page_mask()) & ~page_mask();
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0) {
        free(rest);
        return NULL;
    }
    if (rest) {
        rest->addr = n->addr + need;
        rest->size = n->size - need;
        rest->free = true;
    }
    n->size = need;
    n->free = false;
    refresh(h->root, n->addr);
    if (rest)
        h->root = insert(h->root, rest);
    h->used += need;
    return n;
}

/* Gives back the pages of [addr, addr+size) that lie wholly inside the free segment f. */
static void decommit(const sim_seg *f, uintptr_t addr, size_t size) {
    uintptr_t lo = addr & ~page_mask(), hi = (addr + size + page_mask()) & ~page_mask();
    uintptr_t flo = (f->addr + page_mask()) & ~page_mask(), fhi = (f->addr + f->size) & ~page_mask();
    if (lo < flo)
        lo = flo;
    if (hi > fhi)
        hi = fhi;
    if (hi > lo) {
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
        mprotect((void *)lo, hi - lo, PROT_NONE);
    }
}

int sim_heap_release(sim_heap *h, sim_seg *s) {
    if (s == NULL || s->free)
        return -1;
    uintptr_t addr = s->addr;
    size_t size = s->size;
    sim_seg *dead;
    h->used -= s->size;
    s->free = true;
    s->pool = NULL;
    sim_seg *next = after_seg(h->root, s->addr);
    if (next && next->free && next->addr == s->addr + s->size) {
        s->size += next->size;
        h->root = erase(h->root, next->addr, &dead);
        free(dead);
    }
    sim_seg *prev = s->addr > h->base ? floor_seg(h->root, s->addr - 1) : NULL;
    if (prev && prev->free && prev->addr + prev->size == s->addr) {
        prev->size += s->size;
        h->root = erase(h->root, s->addr, &dead);
        free(dead);
        s = prev;
    }
    refresh(h->root, s->addr);
    decommit(s, addr, size);
    return 0;
}

sim_seg *sim_heap_find(const sim_heap *h, uintptr_t p) {
    if (!sim_heap_contains(h, p))
        return NULL;
    sim_seg *s = floor_seg(h->root, p);
    return s && !s->free && p - s->addr < s->size ? s : NULL;
}

static void collect(sim_seg *t, sim_seg ***v, size_t *n, size_t *cap) {
    if (t == NULL)
        return;
    collect(t->left, v, n, cap);
    if (!t->free) {
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 64;
            sim_seg **nv = realloc(*v, c * sizeof *nv);
            if (nv == NULL)
                return;
            *v = nv;
            *cap = c;
        }
        (*v)[(*n)++] = t;
    }
    collect(t->right, v, n, cap);
}

void sim_heap_sweep(sim_heap *h, bool (*fn)(sim_seg *s, void *ctx), void *ctx) {
    if (h->state != 1)
        return;
    sim_seg **v = NULL;
    size_t n = 0, cap = 0;
    collect(h->root, &v, &n, &cap);
    uintptr_t *doomed = malloc((n ? n : 1) * sizeof *doomed);
    size_t k = 0;
    for (size_t i = 0; doomed && i < n; i++)
        if (fn(v[i], ctx))
            doomed[k++] = v[i]->addr;
    free(v);
    for (size_t i = 0; i < k; i++) /* looked up again: releasing merges and frees nodes */
        sim_heap_release(h, sim_heap_find(h, doomed[i]));
    free(doomed);
}

/* ---- host regions -------------------------------------------------------------------------- */

sim_seg *sim_regions_find(sim_seg *root, uintptr_t p) {
    sim_seg *s = floor_seg(root, p);
    return s && p - s->addr < s->size ? s : NULL;
}

bool sim_regions_overlap(sim_seg *root, uintptr_t addr, size_t size) {
    sim_seg *s = floor_seg(root, addr + size - 1);
    return s && s->addr + s->size > addr;
}

sim_seg *sim_regions_insert(sim_seg *root, sim_seg *n) {
    return insert(root, n);
}

sim_seg *sim_regions_remove(sim_seg *root, uintptr_t addr, sim_seg **removed) {
    return erase(root, addr, removed);
}
