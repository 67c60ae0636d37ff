/* NCCL's reductions (ncclRedOp_t) over its data types (ncclDataType_t): sum, product, maximum,
 * minimum and average, element by element. Contributions are combined in rank order, so every
 * rank gets the same bits. ncclFloat16 and ncclBfloat16 are computed in float and rounded to
 * nearest even; integer averages divide with truncation, as NCCL does. */
#include <string.h>

#include "simnccl.h"

size_t simnccl_type_size(int type) {
    static const unsigned char size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    return type >= 0 && type < (int)sizeof size ? size[type] : 0;
}

bool simnccl_op_valid(int op) {
    return op >= ncclSum && op <= ncclAvg;
}

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal: normalize */
        exp = 113;
        while (!(man & 0x400)) {
            man <<= 1;
            exp--;
        }
        bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) return sign | 0x7c00 | (man ? 0x200 : 0);
    int e = (int)exp - 112;
    if (e >= 0x1f) return sign | 0x7c00;
    if (e <= 0) {
        if (e < -10) return sign;
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++;
    return sign | (uint16_t)half;
}

static float bf16_to_float(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

#define COMBINE(a, b, op) \
    ((op) == ncclProd ? (a) * (b) : (op) == ncclMax ? ((a) > (b) ? (a) : (b)) : (op) == ncclMin ? ((a) < (b) ? (a) : (b)) : (a) + (b))

#define REDUCE_AS(T)                                                     \
    do {                                                                 \
        T *d = dst;                                                      \
        const T *s = src;                                                \
        for (size_t i = 0; i < n; i++) d[i] = first ? s[i] : (T)COMBINE(d[i], s[i], op); \
    } while (0)

#define REDUCE_16(to_float, from_float)                                  \
    do {                                                                 \
        uint16_t *d = dst;                                               \
        const uint16_t *s = src;                                         \
        for (size_t i = 0; i < n; i++) {                                 \
            if (first) {                                                 \
                d[i] = s[i];                                             \
            } else {                                                     \
                float a = to_float(d[i]), b = to_float(s[i]);            \
                d[i] = from_float(COMBINE(a, b, op));                    \
            }                                                            \
        }                                                                \
    } while (0)

void simnccl_reduce(void *dst, const void *src, size_t n, int type, int op, bool first) {
    switch (type) {
    case ncclInt8: REDUCE_AS(int8_t); break;
    case ncclUint8: REDUCE_AS(uint8_t); break;
    case ncclInt32: REDUCE_AS(int32_t); break;
    case ncclUint32: REDUCE_AS(uint32_t); break;
    case ncclInt64: REDUCE_AS(int64_t); break;
    case ncclUint64: REDUCE_AS(uint64_t); break;
    case ncclFloat16: REDUCE_16(half_to_float, float_to_half); break;
    case ncclFloat32: REDUCE_AS(float); break;
    case ncclFloat64: REDUCE_AS(double); break;
    case ncclBfloat16: REDUCE_16(bf16_to_float, float_to_bf16); break;
    default: break;
    }
}

#define DIVIDE_AS(T)                                          \
    do {                                                      \
        T *d = dst;                                           \
        for (size_t i = 0; i < n; i++) d[i] = (T)(d[i] / (T)nranks); \
    } while (0)

#define DIVIDE_16(to_float, from_float)                                               \
    do {                                                                              \
        uint16_t *d = dst;                                                            \
        for (size_t i = 0; i < n; i++) d[i] = from_float(to_float(d[i]) / (float)nranks); \
    } while (0)

void simnccl_average(void *dst, size_t n, int type, int nranks) {
    switch (type) {
    case ncclInt8: DIVIDE_AS(int8_t); break;
    case ncclUint8: DIVIDE_AS(uint8_t); break;
    case ncclInt32: DIVIDE_AS(int32_t); break;
    case ncclUint32: DIVIDE_AS(uint32_t); break;
    case ncclInt64: DIVIDE_AS(int64_t); break;
    case ncclUint64: DIVIDE_AS(uint64_t); break;
    case ncclFloat16: DIVIDE_16(half_to_float, float_to_half); break;
    case ncclFloat32: DIVIDE_AS(float); break;
    case ncclFloat64: DIVIDE_AS(double); break;
    case ncclBfloat16: DIVIDE_16(bf16_to_float, float_to_bf16); break;
    default: break;
    }
}
