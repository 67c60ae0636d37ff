/**
 * Trace statistics ({@code apptrace stats}): API calls, kernel launches, bytes copied by direction
 * and memory kind, allocations, wall time and losses, per thread, per process and in total.
 */
package io.apptrace.stats;
