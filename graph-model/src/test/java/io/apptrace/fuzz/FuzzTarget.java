package io.apptrace.fuzz;

import java.util.List;
import java.util.Random;

/**
 * Something that reads files from users, fuzzed: valid inputs to start from, how to damage them,
 * and how to run one input. {@link #run} returns normally for every documented outcome (the file
 * was read, or refused with the reader's own one-line error) and throws anything else: that is a
 * crash. See docs/RELIABILITY.md.
 */
public interface FuzzTarget extends AutoCloseable {
  /** The name the benchmark harness takes ({@code tools/fuzz NAME COUNT}). */
  String name();

  /** Valid inputs (the seed corpus). */
  List<byte[]> seeds() throws Exception;

  /** One damaged input made from the seeds; the same {@code random} state gives the same input. */
  byte[] mutate(List<byte[]> seeds, Random random) throws Exception;

  /**
   * Reads one input.
   *
   * @return what happened, one word ("read", "truncated", "refused"), counted by the harness
   * @throws Throwable a crash: anything but the reader's documented errors
   */
  String run(byte[] input) throws Throwable;

  @Override
  default void close() throws Exception {}

  /** Fails unless a user-facing message is a single non-empty line. */
  static void oneLine(String message, Throwable from) {
    if (message == null || message.isBlank() || message.contains("\n")) {
      throw new AssertionError("the message is not one line: " + message, from);
    }
  }
}
