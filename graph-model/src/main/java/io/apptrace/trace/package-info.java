/**
 * apptrace trace files: the format ({@link io.apptrace.trace.TraceFormat}), a writer that appends
 * batches as they arrive, and a pull-style reader that reads a file cut short up to its last
 * complete event and says where and why it stopped.
 */
package io.apptrace.trace;
