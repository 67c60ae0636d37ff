/* The timing model: how long each operation lasts on the simulated device, and which engine it
 * occupies. A copy of n bytes takes latency + n / bandwidth for its kind (config [timing]); a
 * memset n / device memory bandwidth (plus memset_latency_ns); a kernel a constant. Kernels,
 * memsets and device-to-device copies share the one compute engine; host-device copies use the
 * copy engines: with asyncEngineCount 1 one engine for both directions, with 2 or more one per
 * direction, with 0 the compute engine (no copy/compute overlap). */
#include "sim.h"



static uint64_t to_ns(double ns) {
    return ns <= 0 ? 0 : (uint64_t)(ns + 0.5); /* rounded; libm is not linked */
}

uint64_t sim_xfer_duration(int device, enum sim_xfer_kind kind, size_t bytes) {
    (void)device;
    const sim_link *l = &sim_cfg.timing.xfer[kind];
    return to_ns(l->latency_ns + (double)bytes * 1e9 / l->bandwidth_bytes_per_s);
}

double sim_device_memory_bandwidth(int device) {
    const sim_device_config *d = &sim_cfg.dev[device];
    if (d->memory_bandwidth_bytes_per_s > 0)
        return d->memory_bandwidth_bytes_per_s;
    /* double data rate: two transfers per memory clock over the whole bus */
    return (double)d->memory_clock_rate_khz * 1e3 * 2.0 * (double)d->prop.memoryBusWidth / 8.0;
}

uint64_t sim_memset_duration(int device, size_t bytes) {
    return to_ns(sim_cfg.timing.memset_latency_ns +
                 (double)bytes * 1e9 / sim_device_memory_bandwidth(device));
}

uint64_t sim_kernel_duration(void) {
    return to_ns(sim_cfg.timing.kernel_duration_ns);
}

int sim_copy_engine(int device, enum sim_xfer_kind kind, bool source_side) {
    int engines = sim_cfg.dev[device].prop.asyncEngineCount;
    bool outbound;
    switch (kind) {
    case SIM_H2D_PINNED:
    case SIM_H2D_PAGEABLE:
        outbound = false;
        break;
    case SIM_D2H_PINNED:
    case SIM_D2H_PAGEABLE:
        outbound = true;
        break;
    case SIM_PEER:
        outbound = source_side;
        break;
    case SIM_D2D:
        return SIM_ENGINE_COMPUTE;
    default:
        return -1; /* host to host: no device engine */
    }
    if (engines == 0)
        return SIM_ENGINE_COMPUTE;
    return outbound && engines >= 2 ? SIM_ENGINE_COPY_OUT : SIM_ENGINE_COPY_IN;
}
