/* Process-level configuration and lifetime hooks shared by the interposer's files. */
#ifndef APPTRACE_INIT_H
#define APPTRACE_INIT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    uint64_t malloc_threshold; /* APPTRACE_MALLOC_THRESHOLD, bytes (default 4096) */
    bool simulated;            /* APPTRACE_SIM=1: running on the simulated runtime */
    bool cupti_enabled;
    const char *cupti_status;  /* why CUPTI is on or off, for ProcessStart */
} at_config;

extern at_config at_cfg;

/* Records ProcessEnd (once) and sends every buffer; later events are sent one by one. */
void at_process_end(int exit_code, int signal);
/* Whether an address (a call site) lies in the CUDA runtime, driver or CUPTI. */
bool at_in_runtime(uint64_t address);
/* Whether the caller runs in another process than the one traced here: a vfork child, which
 * shares this memory until it execs or exits (one system call). */
bool at_is_other_process(void);
/* Installs apptrace's handler for the fatal signals (signals.c). */
void at_signals_install(void);
/* In a child after fork: sends the parent's device records again (no CUDA call). */
void at_devices_after_fork_child(void);
/* Re-reads the modules map (after dlopen) and sends it. */
void at_send_modules(void);

/* CUPTI (cupti.c): decides whether the CUPTI path can run and starts it; off without a driver. */
void at_cupti_init(void);
void at_cupti_after_start(void);
/* Delivers the GPU activity records CUPTI still holds: at exit, and at a synchronizing call when
 * the last delivery is more than 100 ms old. */
void at_cupti_flush(void);
void at_cupti_flush_if_due(void);

#endif
