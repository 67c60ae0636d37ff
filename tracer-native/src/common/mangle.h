/* The parameter types of a kernel, from its Itanium-mangled name (_Z10vector_addPfPKfS1_i).
 *
 * This is the interposer's second way of decoding kernel arguments, and where pointer and
 * const-ness come from in every way: the runtime and the cubin give sizes and offsets, only the
 * signature says `const float *`. It handles the grammar nvcc kernels use: nested and template
 * names, template parameters, substitutions, qualifiers, pointers, builtin types, vector types,
 * function pointers and std:: abbreviations. Anything else (expressions in template arguments,
 * pointers to members of unknown size, ...) makes the parse fail, and the caller falls back.
 * It reads only the string, writes only `out`, allocates nothing.
 */
#ifndef APPTRACE_MANGLE_H
#define APPTRACE_MANGLE_H

#include <stdint.h>

/* Same numbers as apptrace.proto's ParamType. */
enum mangle_kind {
    MANGLE_POINTER = 1,
    MANGLE_CONST_POINTER = 2,
    MANGLE_SCALAR = 3,
    MANGLE_AGGREGATE = 4,
};

#define MANGLE_TYPE_TEXT 80

typedef struct {
    uint8_t kind;                     /* enum mangle_kind */
    uint32_t size;                    /* bytes; 0 when the signature cannot tell (classes) */
    char text[MANGLE_TYPE_TEXT];      /* "float const*", "int", "Params", cut to fit */
} mangle_param;

/* Parses the parameters of mangled function name `name`. Writes up to `max` entries to `out`
 * and returns the number of parameters (0 for f(void)), or -1 when `name` is not a mangled
 * function name this parser understands. */
int mangle_params(const char *name, mangle_param *out, int max);

#endif
