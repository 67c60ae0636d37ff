package io.apptrace.capture;

import java.io.IOException;
import java.time.Instant;

/**
 * Writing the trace failed (a full disk, a file-size limit): from then on the collector receives
 * and counts batches without writing them, and the traced programs run on.
 *
 * @param sinceNs when, on CLOCK_MONOTONIC (the traced events' clock; the JVM's nanoTime)
 * @param at when, on the wall clock
 * @param reason the system's message ("No space left on device")
 */
public record WriteFailure(long sinceNs, Instant at, String reason) {
  static WriteFailure of(IOException e) {
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return new WriteFailure(System.nanoTime(), Instant.now(), why);
  }
}
