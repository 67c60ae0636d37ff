/* A pointer-keyed hash map with open addressing and linear probing: the handle tables (streams,
 * events, pools), kernels by host stub and variables by host shadow. Handles are validated by
 * looking them up here, so a bad handle is never dereferenced. */
#include "sim.h"

#include <stdlib.h>

#define EMPTY ((uintptr_t)0)
#define TOMB ((uintptr_t)1)

static size_t slot_of(uintptr_t key, size_t cap) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    return (size_t)(h >> 20) & (cap - 1);
}

void *sim_ptrmap_get(const sim_ptrmap *m, const void *key) {
    uintptr_t k = (uintptr_t)key;
    if (m->cap == 0 || k <= TOMB)
        return NULL;
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k)
            return m->vals[i];
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

static int grow(sim_ptrmap *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    if (m->count * 4 < m->cap) /* mostly tombstones: rehash at the same size */
        cap = m->cap;
    uintptr_t *keys = calloc(cap, sizeof *keys);
    void **vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] <= TOMB)
            continue;
        size_t j = slot_of(m->keys[i], cap);
        while (keys[j] != EMPTY)
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    m->used = m->count;
    return 0;
}

int sim_ptrmap_put(sim_ptrmap *m, const void *key, void *val) {
    uintptr_t k = (uintptr_t)key;
    if (k <= TOMB)
        return -1;
    if ((m->used + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return -1;
    size_t tomb = (size_t)-1;
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            m->vals[i] = val;
            return 0;
        }
        if (m->keys[i] == TOMB && tomb == (size_t)-1)
            tomb = i;
        if (m->keys[i] == EMPTY) {
            if (tomb != (size_t)-1) {
                i = tomb;
            } else {
                m->used++;
            }
            m->keys[i] = k;
            m->vals[i] = val;
            m->count++;
            return 0;
        }
    }
}

void *sim_ptrmap_remove(sim_ptrmap *m, const void *key) {
    uintptr_t k = (uintptr_t)key;
    if (m->cap == 0 || k <= TOMB)
        return NULL;
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            void *v = m->vals[i];
            m->keys[i] = TOMB;
            m->vals[i] = NULL;
            m->count--;
            return v;
        }
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

void sim_ptrmap_foreach(sim_ptrmap *m, bool (*fn)(void *key, void *val, void *ctx), void *ctx) {
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] > TOMB && fn((void *)m->keys[i], m->vals[i], ctx)) {
            m->keys[i] = TOMB; /* removing while iterating is safe: nothing moves */
            m->vals[i] = NULL;
            m->count--;
        }
    }
}
