/* Versions, the profiler switches, driver entry points and the export table, channel
 * descriptors, and the deprecated shared-memory bank settings. */
#include "sim.h"

#include <stddef.h>

#define SIM_CUDA_VERSION 13000

SIM_API cudaError_t cudaDriverGetVersion(int *driverVersion) {
    SIM_ENTER();
    if (driverVersion == NULL)
        return sim_result(cudaErrorInvalidValue);
    *driverVersion = SIM_CUDA_VERSION;
    return cudaSuccess;
}

SIM_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    SIM_ENTER();
    if (runtimeVersion == NULL)
        return sim_result(cudaErrorInvalidValue);
    *runtimeVersion = SIM_CUDA_VERSION;
    return cudaSuccess;
}

/* There is no profiler to start: accepted and ignored. */
SIM_API cudaError_t cudaProfilerStart(void) {
    SIM_ENTER();
    return cudaSuccess;
}

SIM_API cudaError_t cudaProfilerStop(void) {
    SIM_ENTER();
    return cudaSuccess;
}

/* There is no driver API behind this runtime: every driver symbol is reported as not found. */
static cudaError_t no_entry_point(void **funcPtr, enum cudaDriverEntryPointQueryResult *status) {
    if (funcPtr)
        *funcPtr = NULL;
    if (status)
        *status = cudaDriverEntryPointSymbolNotFound;
    return cudaErrorNotSupported;
}

SIM_API cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                            unsigned long long flags,
                                            enum cudaDriverEntryPointQueryResult *driverStatus) {
    SIM_ENTER();
    (void)symbol, (void)flags;
    return sim_result(no_entry_point(funcPtr, driverStatus));
}

SIM_API cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                 unsigned long long flags,
                                                 enum cudaDriverEntryPointQueryResult *status) {
    SIM_ENTER();
    (void)symbol, (void)flags;
    return sim_result(no_entry_point(funcPtr, status));
}

SIM_API cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus) {
    SIM_ENTER();
    (void)symbol, (void)cudaVersion, (void)flags;
    return sim_result(no_entry_point(funcPtr, driverStatus));
}

SIM_API cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *driverStatus) {
    SIM_ENTER();
    (void)symbol, (void)cudaVersion, (void)flags;
    return sim_result(no_entry_point(funcPtr, driverStatus));
}

/* Private tables of NVIDIA's libraries: none exist here. */
SIM_API cudaError_t cudaGetExportTable(const void **ppExportTable,
                                       const cudaUUID_t *pExportTableId) {
    SIM_ENTER();
    (void)pExportTableId;
    if (ppExportTable)
        *ppExportTable = NULL;
    return sim_result(cudaErrorNotSupported);
}

SIM_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                           enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

SIM_API cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig) {
    SIM_ENTER();
    if (pConfig == NULL)
        return sim_result(cudaErrorInvalidValue);
    *pConfig = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}

SIM_API cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    SIM_ENTER();
    if (config < cudaSharedMemBankSizeDefault || config > cudaSharedMemBankSizeEightByte)
        return sim_result(cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Nothing persists in a simulated L2. */
SIM_API cudaError_t cudaCtxResetPersistingL2Cache(void) {
    SIM_ENTER();
    return cudaSuccess;
}
