/* What every hook needs: the runtime's declarations, the API numbers, the recorder, and macros
 * that keep each hook a thin shim (call the original, hand the data to the recorder).
 *
 * A hook named APPTRACE_HOOK(name, ...) at the start of a line is hand-written; tools/gen_api.py
 * finds those and generates a plain pass-through hook (recording name, times, result and call
 * site) for every other runtime function into src/generated/generic_hooks.c. */
#ifndef APPTRACE_HOOK_H
#define APPTRACE_HOOK_H

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include "api_ids.h"
#include "encode.h"
#include "init.h"
#include "record.h"

#define APPTRACE_EXPORT __attribute__((visibility("default")))
#define APPTRACE_HOOK(name, ret, params) APPTRACE_EXPORT ret name params

/* real_<name>: the next definition of `name` (the runtime's), resolved once. A hook whose
 * original cannot be found returns `fallback` (an error the program can handle). */
#define REAL_OR(name, fallback)                                                   \
    static __typeof__(&name) real_##name;                                         \
    if (AT_UNLIKELY(real_##name == NULL)) {                                       \
        real_##name = (__typeof__(&name))at_resolve(#name);                       \
        if (real_##name == NULL) return fallback;                                 \
    }
#define REAL(name) REAL_OR(name, cudaErrorSharedObjectSymbolNotFound)

/* Records the call with body `enc(&e.w, msg)`; a no-op when the event cannot be written. */
#define AT_RECORD(c, result, enc, msg)                                            \
    do {                                                                          \
        at_event e_;                                                              \
        if (at_begin(&e_, (c), (int)(result))) {                                  \
            enc(&e_.w, (msg));                                                    \
            at_commit(&e_);                                                       \
        }                                                                         \
    } while (0)

/* Records a call that has no body (name, times, result, call site). */
void at_record_call(const at_call *c, int result);

#define APPTRACE_GENERIC_HOOK(name, params, args)                                 \
    APPTRACE_EXPORT cudaError_t name params {                                     \
        REAL(name);                                                               \
        at_call c;                                                                \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name args;          \
        cudaError_t r = real_##name args;                                         \
        at_record_call(&c, r);                                                    \
        at_leave(&c);                                                             \
        return r;                                                                 \
    }

#define APPTRACE_GENERIC_HOOK_RET(ret, name, params, args)                        \
    APPTRACE_EXPORT ret name params {                                             \
        static __typeof__(&name) real_##name;                                     \
        if (AT_UNLIKELY(real_##name == NULL)) {                                   \
            real_##name = (__typeof__(&name))at_resolve(#name);                   \
        }                                                                         \
        at_call c;                                                                \
        if (!AT_ENTER(&c, APPTRACE_API_##name)) return real_##name args;          \
        ret r = real_##name args;                                                 \
        at_record_call(&c, 0);                                                    \
        at_leave(&c);                                                             \
        return r;                                                                 \
    }

/* Shared by the hooks of several files. */
uint64_t at_stream(cudaStream_t s);
void at_symbol_resolve(const void *symbol, const char **name, uint64_t *device_address);
int at_memory_kind_of_host_flags(unsigned int flags);
/* cudaMemoryType of a pointer and its device, asked of the runtime without touching the program's
 * view of cudaGetLastError (hooks_copy.c); false when it cannot be asked. */
bool at_pointer_type(const void *p, int *type, int *device);
/* The capture a stream is part of, asked after a call on it succeeded (0: none, or not known). */
uint64_t at_capture_id(uint64_t stream, cudaError_t r);
/* A copy's kinds and devices as the copy hooks record them. */
void at_copy_kinds(enc_copy *m, enum cudaMemcpyKind kind, const void *dst, const void *src);
/* A launch record of kernel `fun` (a host stub or a cudaKernel_t) with arguments `args`, whose
 * bytes go to `blob` (ENC_MAX_LAUNCH_ARGS of room). */
void at_launch_args(enc_launch *m, const void *fun, void **args, uint8_t *blob);

#endif
