package io.apptrace.trace;

import java.util.Objects;

/**
 * Where and why a reader stopped before the end of a file: the file was cut short (a crash, a
 * full disk) or a record is damaged. Everything before {@code byteOffset} was read.
 *
 * @param byteOffset offset in the file of the first byte not read
 * @param reason what was found there, for the user
 */
public record Truncation(long byteOffset, String reason) {
  public Truncation {
    Objects.requireNonNull(reason, "reason");
    if (byteOffset < 0) {
      throw new IllegalArgumentException("byteOffset < 0: " + byteOffset);
    }
  }
}
