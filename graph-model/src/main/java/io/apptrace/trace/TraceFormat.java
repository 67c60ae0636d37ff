package io.apptrace.trace;

import io.apptrace.proto.SchemaVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The layout of a trace file: the 8-byte magic {@code APPTRACE}, a length-delimited
 * {@code TraceHeader}, then length-delimited {@code Batch} records until the end of the file
 * (docs/TRACE-FORMAT.md). Lengths are protobuf varints.
 */
public final class TraceFormat {
  /** The first bytes of every trace file. */
  static final byte[] MAGIC = "APPTRACE".getBytes(StandardCharsets.US_ASCII);

  /** The schema version this build writes and the newest it reads. */
  public static final int SCHEMA_VERSION = SchemaVersion.SCHEMA_VERSION_CURRENT_VALUE;

  /** The file name extension of trace files. */
  public static final String EXTENSION = ".apptrace";

  /**
   * The largest batch a reader accepts, bytes. A length field above it is damage, not data: the
   * reader stops there instead of allocating what the field claims.
   */
  static final int MAX_BATCH_BYTES = 64 << 20;

  /** The largest header a reader accepts, bytes. */
  static final int MAX_HEADER_BYTES = 1 << 20;

  private TraceFormat() {}

  /**
   * Whether {@code file} starts with the magic {@code APPTRACE}: a trace (perhaps damaged after
   * it), not some other file.
   *
   * @throws IOException when the file cannot be read
   */
  public static boolean startsWithMagic(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
    }
  }
}
