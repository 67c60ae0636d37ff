/* The one function the generic stubs share. Kept apart from sim.h because stubs.c must not see
 * the CUDA headers: its stubs are declared with a generic signature. */
#ifndef APPTRACE_SIM_UNSUPPORTED_H
#define APPTRACE_SIM_UNSUPPORTED_H

/* Says once per function (unless APPTRACE_SIM_QUIET=1) that `name` is not supported, sets the
 * thread's last error and returns cudaErrorNotSupported. */
int sim_unsupported(const char *name, _Atomic int *warned);

#endif
