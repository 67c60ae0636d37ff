/* Every name the CUDA 13 runtime exports, so that programs linked against it load here even with
 * LD_BIND_NOW. Each is a weak stub that returns cudaErrorNotSupported; the functions this
 * simulator implements are strong definitions in the other files and replace the stubs at link
 * time. The functions that do not return cudaError_t are all implemented elsewhere and get no
 * stub (SIM_OWN_<name> below), so no caller can ever receive an error code in place of a pointer,
 * a struct or a char. */
#include "sim_unsupported.h"

#include <stdatomic.h>

/* The X-macro list: CUDART_EXPORT(name) for each exported name. */
#define SIM_OWN___cudaGetProcAddress SIM_PROBE
#define SIM_OWN___cudaInitModule SIM_PROBE
#define SIM_OWN___cudaPushCallConfiguration SIM_PROBE
#define SIM_OWN___cudaRegisterFatBinary SIM_PROBE
#define SIM_OWN___cudaRegisterFatBinaryEnd SIM_PROBE
#define SIM_OWN___cudaRegisterFunction SIM_PROBE
#define SIM_OWN___cudaRegisterHostVar SIM_PROBE
#define SIM_OWN___cudaRegisterManagedVar SIM_PROBE
#define SIM_OWN___cudaRegisterUnifiedTable SIM_PROBE
#define SIM_OWN___cudaRegisterVar SIM_PROBE
#define SIM_OWN___cudaUnregisterFatBinary SIM_PROBE
#define SIM_OWN_cudaCreateChannelDesc SIM_PROBE
#define SIM_OWN_cudaGetErrorName SIM_PROBE
#define SIM_OWN_cudaGetErrorString SIM_PROBE

/* SIM_IS_OWN(name) is 1 when SIM_OWN_<name> is defined above, else 0 (the "probe" idiom). */
#define SIM_PROBE ~, 1
#define SIM_SECOND(a, b, ...) b
#define SIM_IS_PROBE(...) SIM_SECOND(__VA_ARGS__, 0, 0)
#define SIM_CAT(a, b) a##b
#define SIM_STUB_SELECT(own, name) SIM_CAT(SIM_STUB_, own)(name)

#define SIM_STUB_1(name) /* implemented with its own signature */
#define SIM_STUB_0(name)                                                                           \
    static _Atomic int name##_warned_;                                                             \
    __attribute__((weak, visibility("default"))) int name(void);                                   \
    __attribute__((weak, visibility("default"))) int name(void) {                                  \
        return sim_unsupported(#name, &name##_warned_);                                            \
    }

#define CUDART_EXPORT(name) SIM_STUB_SELECT(SIM_IS_PROBE(SIM_OWN_##name), name)
#include "cudart_exports.h"
