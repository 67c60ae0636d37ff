/* __device__, __constant__ and __managed__ variables, and the symbol API.
 *
 * A variable is known by the address of its host shadow (what the program passes as `symbol`).
 * Its device memory is allocated on first use on each device, outside what cudaFree accepts,
 * and filled with the initial value from the cubin (the host shadow of a device variable holds
 * no initializer). Managed variables get managed memory at registration, because the host code
 * reads them through a pointer set then (`*mvar` in nvcc's output); the managed address is a key
 * of the variable too, since that is what `mvar` as a symbol evaluates to in host code. */
#include "cubin.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const void *host_var;
    char *name;
    size_t size;
    void *module;
    void *managed; /* managed variables: their memory */
    void *dev[SIM_MAX_DEVICES];
} sim_var;

static sim_ptrmap vars; /* host shadow (and managed address) -> variable */

static void init_value(sim_var *v, void *dst) {
    if (cubin_symbol_init(sim_module_wrapper(v->module), v->name, dst, v->size) < 0)
        memcpy(dst, v->host_var, v->size); /* no readable cubin: the shadow's bytes, zeros */
}

static sim_var *new_var(void **handle, const void *host_var, const char *name, size_t size) {
    sim_var *v = calloc(1, sizeof *v);
    if (v == NULL || host_var == NULL || name == NULL || (v->name = strdup(name)) == NULL) {
        free(v);
        return NULL;
    }
    v->host_var = host_var;
    v->size = size;
    v->module = sim_module_of(handle);
    return v;
}

SIM_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                               const char *deviceName, int ext, size_t size, int constant,
                               int global) {
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    pthread_mutex_lock(&sim_reg_lock);
    sim_var *v = new_var(fatCubinHandle, hostVar, deviceName, size);
    if (v && sim_ptrmap_put(&vars, hostVar, v) != 0) {
        free(v->name);
        free(v);
    }
    pthread_mutex_unlock(&sim_reg_lock);
}

SIM_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                      char *deviceAddress, const char *deviceName, int ext,
                                      size_t size, int constant, int global) {
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    pthread_mutex_lock(&sim_reg_lock);
    sim_var *v = new_var(fatCubinHandle, hostVarPtrAddress, deviceName, size);
    if (v) {
        pthread_mutex_lock(&sim_mem_lock);
        v->managed = sim_mem_alloc(0, size ? size : 1, SIM_MEM_MANAGED, SIM_FLAG_MODULE_VAR);
        pthread_mutex_unlock(&sim_mem_lock);
    }
    if (v && v->managed && sim_ptrmap_put(&vars, hostVarPtrAddress, v) == 0 &&
        sim_ptrmap_put(&vars, v->managed, v) == 0) {
        if (cubin_symbol_init(sim_module_wrapper(v->module), v->name, v->managed, size) < 0)
            memset(v->managed, 0, size);
        *hostVarPtrAddress = v->managed;
    } else if (v) {
        sim_ptrmap_remove(&vars, hostVarPtrAddress); /* the memory is kept: a few bytes */
        free(v->name);
        free(v);
    }
    pthread_mutex_unlock(&sim_reg_lock);
}

static bool of_module(void *key, void *val, void *ctx) {
    sim_var *v = val;
    if (v->module != ctx)
        return false;
    if (key == v->host_var) { /* the last key of the variable: managed keys go first */
        free(v->name);
        free(v);
    }
    return true;
}

static bool managed_key_of_module(void *key, void *val, void *ctx) {
    sim_var *v = val;
    return v->module == ctx && key != v->host_var;
}

/* The records go; their memory stays, as work still queued at exit may write to it. */
void sim_symbols_unregister(void *module) {
    sim_ptrmap_foreach(&vars, managed_key_of_module, module);
    sim_ptrmap_foreach(&vars, of_module, module);
}

static bool forget_device(void *key, void *val, void *ctx) {
    sim_var *v = val;
    if (key == v->host_var)
        v->dev[*(int *)ctx] = NULL;
    return false;
}

void sim_symbols_reset_device(int device) {
    sim_ptrmap_foreach(&vars, forget_device, &device);
}

cudaError_t sim_symbol_lookup(const void *symbol, sim_symbol *out) {
    cudaError_t e = cudaSuccess;
    int d = sim_current_device;
    pthread_mutex_lock(&sim_reg_lock);
    sim_var *v = symbol ? sim_ptrmap_get(&vars, symbol) : NULL;
    if (v == NULL) {
        e = cudaErrorInvalidSymbol;
    } else if (v->managed) {
        out->device_ptr = v->managed;
    } else {
        if (v->dev[d] == NULL) {
            pthread_mutex_lock(&sim_mem_lock);
            v->dev[d] = sim_mem_alloc(d, v->size ? v->size : 1, SIM_MEM_MODULE, 0);
            pthread_mutex_unlock(&sim_mem_lock);
            if (v->dev[d])
                init_value(v, v->dev[d]);
        }
        out->device_ptr = v->dev[d];
        if (out->device_ptr == NULL)
            e = cudaErrorMemoryAllocation;
    }
    if (v) {
        out->size = v->size;
        out->managed = v->managed != NULL;
    }
    pthread_mutex_unlock(&sim_reg_lock);
    return e;
}

SIM_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    SIM_ENTER();
    sim_symbol s;
    if (devPtr == NULL)
        return sim_result(cudaErrorInvalidValue);
    cudaError_t e = sim_symbol_lookup(symbol, &s);
    if (e == cudaSuccess)
        *devPtr = s.device_ptr;
    return sim_result(e);
}

SIM_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    SIM_ENTER();
    sim_symbol s;
    if (size == NULL)
        return sim_result(cudaErrorInvalidValue);
    cudaError_t e = sim_symbol_lookup(symbol, &s);
    if (e == cudaSuccess)
        *size = s.size;
    return sim_result(e);
}

/* ---- copies -------------------------------------------------------------------------------- */

cudaError_t sim_symbol_xfer(const void *symbol, void *other, size_t count, size_t offset,
                            enum cudaMemcpyKind kind, bool to_symbol, sim_xfer *x) {
    sim_symbol s;
    cudaError_t e = sim_symbol_lookup(symbol, &s);
    if (e != cudaSuccess)
        return e;
    if (offset > s.size || count > s.size - offset)
        return cudaErrorInvalidValue;
    bool host_side_ok = to_symbol ? kind == cudaMemcpyHostToDevice : kind == cudaMemcpyDeviceToHost;
    if (!host_side_ok && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    uint8_t *dev = (uint8_t *)s.device_ptr + offset;
    sim_xfer r = {to_symbol ? dev : other, to_symbol ? other : dev, count, count, count, count,
                  count, 1, 1, 0, 0};
    *x = r;
    return cudaSuccess;
}

static cudaError_t symbol_copy(const void *symbol, void *other, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream,
                               bool ptds, bool sync) {
    sim_xfer x;
    cudaError_t e = sim_symbol_xfer(symbol, other, count, offset, kind, to_symbol, &x);
    return e == cudaSuccess ? sim_copy(x, kind, stream, ptds, sync) : e;
}

SIM_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                       size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(
        symbol_copy(symbol, (void *)src, count, offset, kind, true, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(symbol_copy(symbol, (void *)src, count, offset, kind, true, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind,
                                            cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(
        symbol_copy(symbol, (void *)src, count, offset, kind, true, stream, false, false));
}

SIM_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
                                                 size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(
        symbol_copy(symbol, (void *)src, count, offset, kind, true, stream, true, false));
}

SIM_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(symbol_copy(symbol, dst, count, offset, kind, false, NULL, false, true));
}

SIM_API cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind) {
    SIM_ENTER();
    return sim_result(symbol_copy(symbol, dst, count, offset, kind, false, NULL, true, true));
}

SIM_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(symbol_copy(symbol, dst, count, offset, kind, false, stream, false, false));
}

SIM_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream) {
    SIM_ENTER();
    return sim_result(symbol_copy(symbol, dst, count, offset, kind, false, stream, true, false));
}
