/* A minimal protocol-buffers wire-format writer for the records of apptrace.proto.
 *
 * Why not a generated encoder: the interposer must not allocate, must not add a runtime
 * dependency to the traced program, and encodes on the hot path of every intercepted call. The
 * field numbers used with these functions are those of proto/src/main/proto/apptrace/apptrace.proto; the
 * encoders are tested message type by message type against the Java decoder
 * (tests/native/test_encode.c writes one of each, EncoderConformanceTest decodes them).
 *
 * Bounds: only writes of variable size (strings, bytes, nested messages) check the room left,
 * and they require PB_SLACK bytes beyond their own; scalar writes do not check. No message has
 * enough scalar fields to fill PB_SLACK (at most 15 bytes each), so a scalar can only follow a
 * checked write (or pbw_init with at least PB_SLACK bytes) that left the slack. Writers into
 * smaller buffers (a Batch head) write a few scalars only, within their buffer.
 *
 * Conventions: proto3 semantics, so zero values are not written (a reader sees the default).
 * Nested messages reserve a fixed 3-byte length (a padded varint, which every protobuf parser
 * accepts), so a message is written in one pass and closed by patching its length; a nested
 * message is therefore at most 2 MiB - 1 bytes. Writing past the end sets `overflow` and writes
 * nothing more; the caller checks it once, at the end.
 */
#ifndef APPTRACE_PBWIRE_H
#define APPTRACE_PBWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint8_t *p;
    uint8_t *end;
    bool overflow;
} pbw;

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };
#define PB_NESTED_LEN_BYTES 3
#define PB_SLACK 1024
#define PB_NESTED_MAX ((1u << 21) - 1)

static inline void pbw_init(pbw *w, uint8_t *buf, size_t cap) {
    w->p = buf;
    w->end = buf + cap;
    w->overflow = false;
}

static inline bool pbw_room(pbw *w, size_t n) {
    if (w->overflow || (size_t)(w->end - w->p) < n) {
        w->overflow = true;
        return false;
    }
    return true;
}

/* Raw varint, no tag. Callers have checked room for 10 bytes. */
static inline void pbw_raw_varint(pbw *w, uint64_t v) {
    while (v >= 0x80) {
        *w->p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *w->p++ = (uint8_t)v;
}

static inline void pbw_tag(pbw *w, uint32_t field, uint32_t wire) {
    pbw_raw_varint(w, ((uint64_t)field << 3) | wire);
}

/* uint32/uint64/enum/bool field; zero is not written. Unchecked: see "Bounds" above. */
static inline void pbw_u64(pbw *w, uint32_t field, uint64_t v) {
    if (v == 0 || w->overflow) return;
    pbw_tag(w, field, PB_VARINT);
    pbw_raw_varint(w, v);
}

/* An optional (explicit-presence) uint32/uint64 field: written even when zero. */
static inline void pbw_u64_present(pbw *w, uint32_t field, uint64_t v) {
    if (w->overflow) return;
    pbw_tag(w, field, PB_VARINT);
    pbw_raw_varint(w, v);
}

/* int32 field: negative values take ten bytes, as protobuf's int32 encoding requires. */
static inline void pbw_i32(pbw *w, uint32_t field, int32_t v) {
    pbw_u64(w, field, (uint64_t)(int64_t)v);
}

/* sint32 field (zigzag): -1 takes one byte. */
static inline void pbw_s32(pbw *w, uint32_t field, int32_t v) {
    pbw_u64(w, field, (uint32_t)((v << 1) ^ (v >> 31)));
}

/* fixed64 field: addresses, handles and timestamps, written without a loop. */
static inline void pbw_f64(pbw *w, uint32_t field, uint64_t v) {
    if (v == 0 || w->overflow) return;
    pbw_tag(w, field, PB_I64);
    memcpy(w->p, &v, 8); /* little-endian, as the wire format requires (x86-64) */
    w->p += 8;
}

static inline void pbw_bool(pbw *w, uint32_t field, bool v) {
    pbw_u64(w, field, v ? 1 : 0);
}

static inline void pbw_bytes(pbw *w, uint32_t field, const void *data, size_t n) {
    if (n == 0 || !pbw_room(w, n + 15 + PB_SLACK)) return;
    pbw_tag(w, field, PB_LEN);
    pbw_raw_varint(w, n);
    memcpy(w->p, data, n);
    w->p += n;
}

/* A NUL-terminated string, cut at `max` bytes (at a UTF-8 character boundary). */
static inline void pbw_str(pbw *w, uint32_t field, const char *s, size_t max) {
    if (s == NULL) return;
    size_t n = strnlen(s, max);
    if (n == max) {
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--; /* not inside a UTF-8 sequence */
    }
    pbw_bytes(w, field, s, n);
}

/* Opens a nested message; returns where its length goes, or NULL on overflow. */
static inline uint8_t *pbw_begin(pbw *w, uint32_t field) {
    if (!pbw_room(w, 5 + PB_NESTED_LEN_BYTES + PB_SLACK)) return NULL;
    pbw_tag(w, field, PB_LEN);
    uint8_t *len = w->p;
    w->p += PB_NESTED_LEN_BYTES;
    return len;
}

/* Closes a nested message opened by pbw_begin. */
static inline void pbw_end(pbw *w, uint8_t *len) {
    if (len == NULL || w->overflow) return;
    size_t n = (size_t)(w->p - (len + PB_NESTED_LEN_BYTES));
    if (n > PB_NESTED_MAX) {
        w->overflow = true;
        return;
    }
    len[0] = (uint8_t)(n | 0x80);
    len[1] = (uint8_t)((n >> 7) | 0x80);
    len[2] = (uint8_t)(n >> 14);
}

#endif
