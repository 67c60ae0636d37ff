/* Kernel parameter layouts from the device code nvcc embeds in a program.
 *
 * A CUDA program registers its device code with __cudaRegisterFatBinary(wrapper), where wrapper
 * is a __fatBinC_Wrapper_t (fatbinary_section.h) pointing at a fat binary: a header (magic
 * 0xBA55ED50) followed by entries, some of them ELF cubins (possibly compressed). A cubin's
 * section ".nv.info.<kernel>" holds EIATTR records; EIATTR_KPARAM_INFO gives each parameter's
 * ordinal, offset and size, EIATTR_PARAM_CBANK the total parameter-buffer size. This is what the
 * simulated runtime's cudaFuncGetParamInfo answers with, and the interposer's third way of
 * decoding kernel arguments (for extern "C" kernels, which have no mangled signature).
 *
 * Everything here reads memory the program owns and never writes it; it does no allocation on
 * the heap except for decompressing a compressed cubin (malloc'd, freed before returning), and it
 * checks every offset against the sizes it was given, so a damaged fat binary yields -1, not a
 * crash.
 */
#ifndef APPTRACE_CUBIN_H
#define APPTRACE_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#define CUBIN_MAX_PARAMS 1024

typedef struct {
    uint32_t ordinal; /* parameter index, from 0 */
    uint32_t offset;  /* byte offset in the parameter buffer */
    uint32_t size;    /* bytes */
} cubin_param;

/* Finds kernel `name` (as registered: the mangled name for C++ kernels) in the fat binary behind
 * `fatbin_wrapper` (the pointer __cudaRegisterFatBinary receives) and fills `out` with up to `max`
 * parameters, sorted by ordinal. Returns the number of parameters (which may exceed `max`; only
 * `max` are written), or -1 when the kernel is not found or the fat binary cannot be read.
 * When `params_bytes` is not NULL it receives the total parameter-buffer size (0 if unknown).
 * Thread-safe; safe to call from any thread at any time after registration. */
int cubin_kernel_params(const void *fatbin_wrapper, const char *name, cubin_param *out, int max,
                        uint32_t *params_bytes);

/* More questions the simulated runtime asks of the fat binary: what it needs for
 * cudaFuncGetAttributes, and the initial values of __device__, __constant__ and __managed__
 * variables. Same rules: read-only, bounds-checked, thread-safe. */
typedef struct {
    const char *name;      /* the kernel asked for */
    int num_params;        /* parameters (EIATTR_KPARAM_INFO records) */
    uint32_t params_bytes; /* parameter buffer size */
    uint32_t num_regs;     /* EIATTR_REGCOUNT, 0 if absent */
    uint32_t max_threads;  /* from __launch_bounds__ / reqntid, 0 if absent */
    uint32_t shared_bytes; /* static shared memory (.nv.shared.<kernel>) */
    uint32_t local_bytes;  /* per-thread stack frame (EIATTR_FRAME_SIZE) */
    uint32_t const_bytes;  /* user constant bank (.nv.constant3) of the module */
    uint32_t arch;         /* SM version of the cubin used, e.g. 75; 0 if unknown */
} cubin_kernel_attrs;

/* Fills `out` for kernel `name`. Returns 0, or -1 when the kernel is not in a readable cubin. */
int cubin_kernel_attributes(const void *fatbin_wrapper, const char *name, cubin_kernel_attrs *out);

/* Copies the initial value of device variable `name` (its ELF symbol) into dst[0..size): returns
 * 1 when the image holds initial data, 0 when the variable is zero-initialized (dst is zeroed),
 * -1 when no readable cubin defines it (dst untouched). */
int cubin_symbol_init(const void *fatbin_wrapper, const char *name, void *dst, size_t size);


/* The same lookup on one ELF cubin image in memory (`image`, `size` bytes). */
int cubin_elf_kernel_params(const void *image, size_t size, const char *name, cubin_param *out,
                            int max, uint32_t *params_bytes);

#endif
