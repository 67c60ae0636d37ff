/* Device code registration and kernel launches.
 *
 * Registration (__cudaRegisterFatBinary, __cudaRegisterFunction, __cudaRegisterVar) tells which
 * host stub is which kernel, and where its cubin is; __cudaGetKernel tells which handle is which
 * stub. At a kernel's first launch its parameter layout is worked out once (see decode_layout)
 * and sent as KernelInfo; every launch then records the raw bytes of its parameters, which the
 * consumer reads as pointers, scalars or structs. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cubin.h"
#include "hook.h"
#include "mangle.h"

/* Registration entry points: declared in crt/host_runtime.h, which is C++ only. */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                             size_t sharedMem, cudaStream_t stream);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);

#define TABLE 16384 /* kernels and symbols per process; a power of two */
enum { LAYOUT_UNKNOWN, LAYOUT_BUSY, LAYOUT_READY };

typedef struct {
    const void *host_fun;
    const void *fatbin;           /* the __fatBinC_Wrapper_t registered with it */
    const char *name;             /* device (mangled) name, copied */
    _Atomic int state;
    int decode;
    uint32_t nparams, params_bytes;
    enc_kernel_param *params;
    char (*type_names)[MANGLE_TYPE_TEXT];
    const char *demangled;
} kernel;

typedef struct {
    const void *host_var;
    const char *name;
    uint64_t bytes;
    bool constant, managed;
    _Atomic uint64_t device_address;
} symbol;

static kernel *_Atomic kernels_by_fun[TABLE];
static struct { _Atomic(const void *) handle; kernel *k; } kernels_by_handle[TABLE];
static symbol *_Atomic symbols[TABLE];
static struct { void **handle; const void *wrapper; } fatbins[1024];
static int nfatbins;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* A bump allocator over mmap'd chunks for everything kept about kernels and symbols (never freed:
 * registrations last as long as the process). Caller holds table_lock. */
static void *arena_alloc(size_t n) {
    static uint8_t *chunk, *end;
    n = (n + 15) & ~(size_t)15;
    if (chunk == NULL || (size_t)(end - chunk) < n) {
        size_t size = n > (1u << 20) ? n : (1u << 20);
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        chunk = m;
        end = chunk + size;
    }
    void *p = chunk;
    chunk += n;
    return p;
}

static char *arena_strdup(const char *s) {
    if (s == NULL) return NULL;
    size_t n = strnlen(s, ENC_MAX_NAME - 1);
    char *d = arena_alloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static size_t slot_of(const void *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 50) & (TABLE - 1);
}

static kernel *kernel_by_fun(const void *fun) {
    for (size_t i = slot_of(fun), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
        kernel *k = atomic_load_explicit(&kernels_by_fun[i], memory_order_acquire);
        if (k == NULL) return NULL;
        if (k->host_fun == fun) return k;
    }
    return NULL;
}

static kernel *kernel_by_handle(const void *handle) {
    for (size_t i = slot_of(handle), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
        const void *h = atomic_load_explicit(&kernels_by_handle[i].handle, memory_order_acquire);
        if (h == NULL) return NULL;
        if (h == handle) return kernels_by_handle[i].k;
    }
    return NULL;
}

static symbol *symbol_by_host(const void *var) {
    for (size_t i = slot_of(var), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
        symbol *s = atomic_load_explicit(&symbols[i], memory_order_acquire);
        if (s == NULL) return NULL;
        if (s->host_var == var) return s;
    }
    return NULL;
}

static const void *fatbin_of(void **handle) {
    for (int i = 0; i < nfatbins; i++) {
        if (fatbins[i].handle == handle) return fatbins[i].wrapper;
    }
    return NULL;
}

/* ---- registration ---- */

APPTRACE_HOOK(__cudaRegisterFatBinary, void **, (void *fatCubin)) {
    REAL_OR(__cudaRegisterFatBinary, NULL);
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API___cudaRegisterFatBinary);
    void **handle = real___cudaRegisterFatBinary(fatCubin);
    pthread_mutex_lock(&table_lock);
    if (nfatbins < (int)(sizeof fatbins / sizeof fatbins[0])) {
        fatbins[nfatbins].handle = handle;
        fatbins[nfatbins].wrapper = fatCubin;
        nfatbins++;
    }
    pthread_mutex_unlock(&table_lock);
    if (traced) {
        at_record_call(&c, 0);
        at_leave(&c);
    }
    return handle;
}

APPTRACE_HOOK(__cudaRegisterFunction, void, (void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                            dim3 *bDim, dim3 *gDim, int *wSize)) {
    REAL_OR(__cudaRegisterFunction, );
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API___cudaRegisterFunction);
    real___cudaRegisterFunction(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid,
                                bDim, gDim, wSize);
    pthread_mutex_lock(&table_lock);
    if (kernel_by_fun(hostFun) == NULL) {
        kernel *k = arena_alloc(sizeof *k);
        if (k != NULL) {
            memset(k, 0, sizeof *k);
            k->host_fun = hostFun;
            k->fatbin = fatbin_of(fatCubinHandle);
            k->name = arena_strdup(deviceFun ? deviceFun : deviceName);
            for (size_t i = slot_of(hostFun), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
                if (atomic_load(&kernels_by_fun[i]) == NULL) {
                    atomic_store_explicit(&kernels_by_fun[i], k, memory_order_release);
                    break;
                }
            }
        }
    }
    pthread_mutex_unlock(&table_lock);
    if (traced) {
        at_record_call(&c, 0);
        at_leave(&c);
    }
}

static void register_symbol(at_call *c, bool traced, const void *host, const char *name, size_t size,
                            int constant, bool managed) {
    symbol *s = NULL;
    pthread_mutex_lock(&table_lock);
    if (symbol_by_host(host) == NULL && (s = arena_alloc(sizeof *s)) != NULL) {
        memset(s, 0, sizeof *s);
        s->host_var = host;
        s->name = arena_strdup(name);
        s->bytes = size;
        s->constant = constant != 0;
        s->managed = managed;
        for (size_t i = slot_of(host), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
            if (atomic_load(&symbols[i]) == NULL) {
                atomic_store_explicit(&symbols[i], s, memory_order_release);
                break;
            }
        }
    }
    pthread_mutex_unlock(&table_lock);
    if (!traced) return;
    if (s != NULL) {
        enc_symbol m = {.host_address = (uint64_t)(uintptr_t)host, .name = s->name, .bytes = size,
                        .constant = s->constant, .managed = managed};
        AT_RECORD(c, 0, enc_symbol_body, &m);
    } else {
        at_record_call(c, 0);
    }
    at_leave(c);
}

APPTRACE_HOOK(__cudaRegisterVar, void, (void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                       const char *deviceName, int ext, size_t size, int constant, int global)) {
    REAL_OR(__cudaRegisterVar, );
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API___cudaRegisterVar);
    real___cudaRegisterVar(fatCubinHandle, hostVar, deviceAddress, deviceName, ext, size, constant, global);
    register_symbol(&c, traced, hostVar, deviceAddress ? deviceAddress : deviceName, size, constant, false);
}

APPTRACE_HOOK(__cudaRegisterManagedVar, void, (void **fatCubinHandle, void **hostVarPtrAddress,
                                              char *deviceAddress, const char *deviceName, int ext, size_t size,
                                              int constant, int global)) {
    REAL_OR(__cudaRegisterManagedVar, );
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API___cudaRegisterManagedVar);
    real___cudaRegisterManagedVar(fatCubinHandle, hostVarPtrAddress, deviceAddress, deviceName, ext, size,
                                  constant, global);
    register_symbol(&c, traced, hostVarPtrAddress, deviceAddress ? deviceAddress : deviceName, size,
                    constant, true);
}

void at_symbol_resolve(const void *host_var, const char **name, uint64_t *device_address) {
    symbol *s = symbol_by_host(host_var);
    *name = s ? s->name : NULL;
    *device_address = 0;
    if (s == NULL) return;
    uint64_t known = atomic_load(&s->device_address);
    if (known == 0) {
        /* Asked once per symbol, only after a copy to it succeeded (so the query cannot fail and
         * disturb the program's cudaGetLastError), and only when no error is pending. */
        static __typeof__(&cudaGetSymbolAddress) get;
        static __typeof__(&cudaPeekAtLastError) peek;
        if (get == NULL) get = (__typeof__(get))at_resolve("cudaGetSymbolAddress");
        if (peek == NULL) peek = (__typeof__(peek))at_resolve("cudaPeekAtLastError");
        void *dev = NULL;
        if (get && peek && peek() == cudaSuccess && get(&dev, host_var) == cudaSuccess && dev != NULL) {
            known = (uint64_t)(uintptr_t)dev;
            atomic_store(&s->device_address, known);
            at_event e;
            if (at_begin_record(&e, at_now_ns())) {
                enc_symbol m = {.host_address = (uint64_t)(uintptr_t)host_var, .name = s->name,
                                .bytes = s->bytes, .constant = s->constant, .managed = s->managed,
                                .device_address = known};
                enc_symbol_body(&e.w, &m);
                at_commit(&e);
            }
        }
    }
    *device_address = known;
}

/* Remembers which kernel a cudaKernel_t handle stands for. */
static void map_handle(cudaError_t r, cudaKernel_t *handle, const void *host_fun) {
    kernel *k = kernel_by_fun(host_fun);
    if (r != cudaSuccess || handle == NULL || *handle == NULL || k == NULL) return;
    pthread_mutex_lock(&table_lock);
    if (kernel_by_handle(*handle) == NULL) {
        for (size_t i = slot_of(*handle), n = 0; n < TABLE; i = (i + 1) & (TABLE - 1), n++) {
            if (atomic_load(&kernels_by_handle[i].handle) == NULL) {
                kernels_by_handle[i].k = k;
                atomic_store_explicit(&kernels_by_handle[i].handle, (const void *)*handle, memory_order_release);
                break;
            }
        }
    }
    pthread_mutex_unlock(&table_lock);
}

APPTRACE_HOOK(__cudaGetKernel, cudaError_t, (cudaKernel_t *handle, const void *hostFun)) {
    REAL(__cudaGetKernel);
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API___cudaGetKernel);
    cudaError_t r = real___cudaGetKernel(handle, hostFun);
    map_handle(r, handle, hostFun);
    if (traced) {
        at_record_call(&c, r);
        at_leave(&c);
    }
    return r;
}

APPTRACE_HOOK(cudaGetKernel, cudaError_t, (cudaKernel_t *kernelPtr, const void *entryFuncAddr)) {
    REAL(cudaGetKernel);
    at_call c;
    bool traced = AT_ENTER(&c, APPTRACE_API_cudaGetKernel);
    cudaError_t r = real_cudaGetKernel(kernelPtr, entryFuncAddr);
    map_handle(r, kernelPtr, entryFuncAddr);
    if (traced) {
        at_record_call(&c, r);
        at_leave(&c);
    }
    return r;
}

/* ---- parameter layout ---- */

/* Parameter offsets and sizes from the runtime (cudaFuncGetParamInfo, CUDA 12.4+). `n` is the
 * count from the signature or cubin, or -1 to probe until the runtime says there are no more; a
 * probe ends in an error, so it runs only when no error is pending and clears its own. Returns
 * the count found, or -1 when the runtime cannot tell. */
static int runtime_layout(const void *fun, int n, uint32_t *offsets, uint32_t *sizes, int max) {
    static __typeof__(&cudaFuncGetParamInfo) info;
    static __typeof__(&cudaPeekAtLastError) peek;
    static __typeof__(&cudaGetLastError) clear;
    if (info == NULL) info = (__typeof__(info))at_resolve("cudaFuncGetParamInfo");
    if (peek == NULL) peek = (__typeof__(peek))at_resolve("cudaPeekAtLastError");
    if (clear == NULL) clear = (__typeof__(clear))at_resolve("cudaGetLastError");
    if (info == NULL || peek == NULL || clear == NULL || peek() != cudaSuccess) return -1;
    int limit = n >= 0 ? n : max;
    int i = 0;
    for (; i < limit && i < max; i++) {
        size_t off = 0, size = 0;
        cudaError_t r = info(fun, (size_t)i, &off, &size);
        if (r != cudaSuccess) {
            clear();
            if (n >= 0 || r != cudaErrorInvalidValue) return -1; /* disagrees, or unsupported */
            break;                                               /* probed past the last one */
        }
        offsets[i] = (uint32_t)off;
        sizes[i] = (uint32_t)size;
    }
    return i;
}

static const char *demangle(const char *name) {
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    static demangle_fn fn;
    if (fn == NULL) fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (fn == NULL || name == NULL || strncmp(name, "_Z", 2) != 0) return NULL;
    int status = 0;
    char *d = fn(name, NULL, NULL, &status);
    if (d == NULL) return NULL;
    char *copy = arena_strdup(d);
    free(d);
    return copy;
}

/* Works out how to read the kernel's arguments: counts and types from the mangled signature,
 * offsets and sizes from the runtime, else the cubin, else the signature alone. */
static void decode_layout(kernel *k) {
    enum { MAX = ENC_MAX_KERNEL_PARAMS };
    static mangle_param sig[MAX];
    static cubin_param cub[MAX];
    static uint32_t offsets[MAX], sizes[MAX];
    int ns = k->name ? mangle_params(k->name, sig, MAX) : -1;
    uint32_t cubin_bytes = 0;
    int nc = (k->fatbin && k->name) ? cubin_kernel_params(k->fatbin, k->name, cub, MAX, &cubin_bytes) : -1;
    int n = nc >= 0 ? nc : ns; /* the cubin is authoritative about the count */
    int nr = runtime_layout(k->host_fun, n, offsets, sizes, MAX);
    if (nr >= 0 && (n < 0 || nr == n)) {
        k->decode = PB_ParamDecode_RUNTIME_PARAM_INFO;
        n = nr;
    } else if (nc >= 0) {
        k->decode = PB_ParamDecode_CUBIN;
        for (int i = 0; i < nc && i < MAX; i++) {
            offsets[i] = cub[i].offset;
            sizes[i] = cub[i].size;
        }
    } else if (ns >= 0) {
        k->decode = PB_ParamDecode_SIGNATURE;
        uint32_t off = 0;
        for (int i = 0; i < ns && i < MAX; i++) {
            uint32_t align = sig[i].size >= 8 ? 8 : (sig[i].size ? sig[i].size : 8);
            off = (off + align - 1) & ~(align - 1);
            offsets[i] = sig[i].size ? off : 0;
            sizes[i] = sig[i].size;
            off = sig[i].size ? off + sig[i].size : off;
        }
    } else {
        k->decode = PB_ParamDecode_NONE;
        n = 0;
    }
    if (n > MAX) n = MAX;
    bool typed = ns == n;
    pthread_mutex_lock(&table_lock);
    k->params = arena_alloc(sizeof(enc_kernel_param) * (size_t)(n ? n : 1));
    k->type_names = arena_alloc(sizeof(*k->type_names) * (size_t)(n ? n : 1));
    pthread_mutex_unlock(&table_lock);
    if (k->params == NULL || k->type_names == NULL) {
        k->decode = PB_ParamDecode_NONE;
        k->nparams = 0;
        return;
    }
    uint32_t recorded = 0;
    for (int i = 0; i < n; i++) {
        enc_kernel_param *p = &k->params[i];
        p->index = (uint32_t)i;
        p->offset = offsets[i];
        p->size = sizes[i];
        p->type = typed ? sig[i].kind : PB_ParamType_OPAQUE;
        if (typed) {
            memcpy(k->type_names[i], sig[i].text, MANGLE_TYPE_TEXT);
            p->type_name = k->type_names[i];
        }
        uint32_t take = sizes[i];
        if (recorded + take > ENC_MAX_LAUNCH_ARGS) take = ENC_MAX_LAUNCH_ARGS - recorded;
        p->recorded_offset = recorded;
        p->recorded_size = take;
        recorded += take;
        if (offsets[i] + sizes[i] > k->params_bytes) k->params_bytes = offsets[i] + sizes[i];
    }
    if (cubin_bytes > k->params_bytes) k->params_bytes = cubin_bytes;
    k->nparams = (uint32_t)n;
    pthread_mutex_lock(&table_lock);
    k->demangled = demangle(k->name);
    pthread_mutex_unlock(&table_lock);
}

/* First launch of a kernel: decode its layout once and send KernelInfo before the launch. */
static void prepare(kernel *k) {
    int expected = LAYOUT_UNKNOWN;
    if (atomic_compare_exchange_strong(&k->state, &expected, LAYOUT_BUSY)) {
        static pthread_mutex_t decode_lock = PTHREAD_MUTEX_INITIALIZER;
        pthread_mutex_lock(&decode_lock); /* decode_layout's scratch arrays are shared */
        decode_layout(k);
        pthread_mutex_unlock(&decode_lock);
        at_event e;
        if (at_begin_record(&e, at_now_ns())) {
            enc_kernel_info m = {.kernel_id = (uint64_t)(uintptr_t)k->host_fun, .mangled_name = k->name,
                                 .demangled_name = k->demangled, .params = k->params,
                                 .nparams = k->nparams, .decode = k->decode, .params_bytes = k->params_bytes};
            enc_kernel_info_body(&e.w, &m);
            at_commit(&e);
        }
        atomic_store(&k->state, LAYOUT_READY);
    } else {
        while (atomic_load(&k->state) != LAYOUT_READY) __asm__ __volatile__("pause");
    }
}

/* The kernel's id and decode, and its argument bytes from `args` (one pointer per parameter). */
static void fill_args(enc_launch *m, kernel *k, void **args, uint8_t *blob) {
    m->args = blob;
    m->decode = PB_ParamDecode_NONE;
    if (k == NULL) return;
    if (atomic_load_explicit(&k->state, memory_order_acquire) != LAYOUT_READY) prepare(k);
    m->kernel_id = (uint64_t)(uintptr_t)k->host_fun;
    m->decode = k->decode;
    if (args == NULL) return;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const enc_kernel_param *p = &k->params[i];
        if (p->recorded_size > 0 && args[i] != NULL) memcpy(blob + p->recorded_offset, args[i], p->recorded_size);
        if (p->recorded_size < p->size) m->args_truncated = true;
        m->args_len = p->recorded_offset + p->recorded_size;
    }
}

void at_launch_args(enc_launch *m, const void *fun, void **args, uint8_t *blob) {
    kernel *k = kernel_by_fun(fun);
    if (k == NULL) k = kernel_by_handle(fun); /* a cudaKernel_t, as captured launches keep it */
    m->kernel_id = (uint64_t)(uintptr_t)fun;
    fill_args(m, k, args, blob);
}

static void record_launch(at_call *c, cudaError_t r, kernel *k, const void *id, dim3 g, dim3 b,
                          void **args, size_t shm, cudaStream_t s, bool cooperative) {
    uint8_t blob[ENC_MAX_LAUNCH_ARGS];
    enc_launch m = {.kernel_id = (uint64_t)(uintptr_t)id,
                    .grid_x = g.x, .grid_y = g.y, .grid_z = g.z,
                    .block_x = b.x, .block_y = b.y, .block_z = b.z,
                    .shared_mem_bytes = shm, .stream = at_stream(s),
                    .device = at_tls.device, .cooperative = cooperative,
                    .capture_id = at_capture_id(at_stream(s), r)};
    fill_args(&m, k, args, blob);
    AT_RECORD(c, r, enc_launch_body, &m);
    at_leave(c);
}

typedef cudaError_t (*handle_launch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*fun_launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*ex_launch_fn)(const cudaLaunchConfig_t *, const void *, void **);

static cudaError_t launch_handle(handle_launch_fn real, int api, void *ra, cudaKernel_t kernel_handle,
                                 dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(kernel_handle, g, b, args, shm, s);
    cudaError_t r = real(kernel_handle, g, b, args, shm, s);
    record_launch(&c, r, kernel_by_handle(kernel_handle), kernel_handle, g, b, args, shm, s, false);
    return r;
}

/* The call site of a launch. `k<<<g, b>>>(args)` compiles to __cudaPushCallConfiguration at the
 * line of the launch, then a call to a stub nvcc generates, which pops the configuration and
 * launches: the launch's own return address is in the stub, the push's is the user's line. These
 * two hooks only note addresses (no event); Pop hands its push's site to the launch that follows. */
APPTRACE_HOOK(__cudaPushCallConfiguration, unsigned, (dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                      struct CUstream_st *stream)) {
    REAL_OR(__cudaPushCallConfiguration, 1u);
    int d = at_tls.push_depth++;
    if (d >= 0 && d < (int)(sizeof at_tls.push_sites / sizeof at_tls.push_sites[0]))
        at_tls.push_sites[d] = __builtin_return_address(0);
    return real___cudaPushCallConfiguration(gridDim, blockDim, sharedMem, stream);
}

APPTRACE_HOOK(__cudaPopCallConfiguration, cudaError_t, (dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                                        void *stream)) {
    REAL(__cudaPopCallConfiguration);
    if (at_tls.push_depth > 0) {
        int d = --at_tls.push_depth;
        at_tls.launch_site =
            d < (int)(sizeof at_tls.push_sites / sizeof at_tls.push_sites[0]) ? at_tls.push_sites[d] : NULL;
    }
    return real___cudaPopCallConfiguration(gridDim, blockDim, sharedMem, stream);
}

/* The site to record for a launch whose own return address is `ra`. */
static void *launch_site(void *ra) {
    void *site = at_tls.launch_site;
    at_tls.launch_site = NULL;
    return site != NULL ? site : ra;
}

APPTRACE_HOOK(__cudaLaunchKernel, cudaError_t, (cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                               size_t sharedMem, cudaStream_t stream)) {
    REAL(__cudaLaunchKernel);
    return launch_handle(real___cudaLaunchKernel, APPTRACE_API___cudaLaunchKernel,
                         launch_site(__builtin_return_address(0)), kernel, gridDim, blockDim, args, sharedMem, stream);
}

APPTRACE_HOOK(__cudaLaunchKernel_ptsz, cudaError_t, (cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem, cudaStream_t stream)) {
    REAL(__cudaLaunchKernel_ptsz);
    return launch_handle(real___cudaLaunchKernel_ptsz, APPTRACE_API___cudaLaunchKernel_ptsz,
                         launch_site(__builtin_return_address(0)), kernel, gridDim, blockDim, args, sharedMem, stream);
}

static cudaError_t launch_fun(fun_launch_fn real, int api, void *ra, const void *fun, dim3 g, dim3 b,
                              void **args, size_t shm, cudaStream_t s, bool cooperative) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(fun, g, b, args, shm, s);
    cudaError_t r = real(fun, g, b, args, shm, s);
    kernel *k = kernel_by_fun(fun);
    if (k == NULL) k = kernel_by_handle(fun); /* a cudaKernel_t passed as the function */
    record_launch(&c, r, k, fun, g, b, args, shm, s, cooperative);
    return r;
}

#define LAUNCH_FUN_HOOK(name, cooperative)                                                       \
    APPTRACE_HOOK(name, cudaError_t, (const void *func, dim3 gridDim, dim3 blockDim, void **args, \
                                      size_t sharedMem, cudaStream_t stream)) {                  \
        REAL(name);                                                                              \
        return launch_fun(real_##name, APPTRACE_API_##name, launch_site(__builtin_return_address(0)), \
                          func,                                                                  \
                          gridDim, blockDim, args, sharedMem, stream, cooperative);              \
    }
LAUNCH_FUN_HOOK(cudaLaunchKernel, false)
LAUNCH_FUN_HOOK(cudaLaunchKernel_ptsz, false)
LAUNCH_FUN_HOOK(cudaLaunchCooperativeKernel, true)
LAUNCH_FUN_HOOK(cudaLaunchCooperativeKernel_ptsz, true)

static cudaError_t launch_ex(ex_launch_fn real, int api, void *ra, const cudaLaunchConfig_t *config,
                             const void *fun, void **args) {
    at_call c;
    if (!at_enter_(&c, api, ra)) return real(config, fun, args);
    cudaError_t r = real(config, fun, args);
    kernel *k = kernel_by_fun(fun);
    if (k == NULL) k = kernel_by_handle(fun);
    dim3 zero = {0, 0, 0};
    bool coop = false;
    if (config != NULL) {
        for (unsigned i = 0; i < config->numAttrs; i++) {
            if (config->attrs[i].id == cudaLaunchAttributeCooperative && config->attrs[i].val.cooperative)
                coop = true;
        }
    }
    record_launch(&c, r, k, fun, config ? config->gridDim : zero, config ? config->blockDim : zero, args,
                  config ? config->dynamicSmemBytes : 0, config ? config->stream : 0, coop);
    return r;
}

APPTRACE_HOOK(cudaLaunchKernelExC, cudaError_t, (const cudaLaunchConfig_t *config, const void *func, void **args)) {
    REAL(cudaLaunchKernelExC);
    return launch_ex(real_cudaLaunchKernelExC, APPTRACE_API_cudaLaunchKernelExC,
                     launch_site(__builtin_return_address(0)), config, func, args);
}

APPTRACE_HOOK(cudaLaunchKernelExC_ptsz, cudaError_t, (const cudaLaunchConfig_t *config, const void *func, void **args)) {
    REAL(cudaLaunchKernelExC_ptsz);
    return launch_ex(real_cudaLaunchKernelExC_ptsz, APPTRACE_API_cudaLaunchKernelExC_ptsz,
                     launch_site(__builtin_return_address(0)), config, func, args);
}
