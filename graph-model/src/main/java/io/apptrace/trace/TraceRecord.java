package io.apptrace.trace;

import io.apptrace.proto.Event;
import java.util.Objects;

/**
 * One event of a trace with the process and thread it came from.
 *
 * @param pid the process id
 * @param tid the kernel thread id (0 for records the collector wrote)
 * @param batchSeq the per-thread sequence number of the batch the event arrived in
 * @param event the event
 */
public record TraceRecord(int pid, int tid, long batchSeq, Event event) {
  public TraceRecord {
    Objects.requireNonNull(event, "event");
  }
}
