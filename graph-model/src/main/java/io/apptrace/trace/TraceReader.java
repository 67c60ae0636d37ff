package io.apptrace.trace;

import io.apptrace.proto.Event;
import io.apptrace.proto.TraceHeader;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a trace file event by event ({@link #hasNext()} / {@link #next()}), or all at once
 * ({@link #readAll(Path)}).
 *
 * <p>A file cut short (the writer was killed, the disk filled) or damaged is read up to its last
 * complete event; {@link #truncation()} then says at which byte offset reading stopped and why.
 * No length field is trusted before it is checked against the file's size.
 */
public final class TraceReader implements Closeable {
  private final Path path;
  private final InputStream in;
  private final long fileSize;
  private final TraceHeader header;
  private final ArrayDeque<TraceRecord> pending = new ArrayDeque<>();
  private long offset;
  private boolean finished;
  private Truncation truncation;
  private byte[] buffer = new byte[64 * 1024];

  private TraceReader(Path path, InputStream in, long fileSize) throws IOException, TraceException {
    this.path = path;
    this.in = in;
    this.fileSize = fileSize;
    this.header = readHeader();
  }

  /**
   * Opens a trace file and reads its header.
   *
   * @throws TraceException if the file is not an apptrace trace, or was written by a newer
   *     apptrace (the message names both schema versions)
   * @throws IOException if the file cannot be read
   */
  public static TraceReader open(Path path) throws IOException, TraceException {
    Objects.requireNonNull(path, "path");
    long size = Files.size(path);
    InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
    try {
      return new TraceReader(path, in, size);
    } catch (IOException | TraceException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** A whole trace in memory: for small traces and tests. */
  public record Trace(TraceHeader header, List<TraceRecord> records, Optional<Truncation> truncation) {
    public Trace {
      records = List.copyOf(records);
    }
  }

  /** Reads every event of a file. See {@link #open(Path)} for the exceptions. */
  public static Trace readAll(Path path) throws IOException, TraceException {
    try (TraceReader r = open(path)) {
      List<TraceRecord> all = new ArrayList<>();
      while (r.hasNext()) {
        all.add(r.next());
      }
      return new Trace(r.header(), all, r.truncation());
    }
  }

  public TraceHeader header() {
    return header;
  }

  public Path path() {
    return path;
  }

  /** Whether another event can be read; false at the end of the file or at damage. */
  public boolean hasNext() throws IOException {
    while (pending.isEmpty() && !finished) {
      readBatch();
    }
    return !pending.isEmpty();
  }

  /** The next event. */
  public TraceRecord next() throws IOException {
    if (!hasNext()) {
      throw new NoSuchElementException("no more events in " + path);
    }
    return pending.poll();
  }

  /** Where and why reading stopped early; empty when the file was read to its end. */
  public Optional<Truncation> truncation() {
    return Optional.ofNullable(truncation);
  }

  /** Bytes of the file consumed so far. */
  public long bytesRead() {
    return offset;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  private TraceHeader readHeader() throws IOException, TraceException {
    byte[] magic = new byte[TraceFormat.MAGIC.length];
    int n = in.readNBytes(magic, 0, magic.length);
    offset += n;
    if (n < magic.length || !Arrays.equals(magic, TraceFormat.MAGIC)) {
      throw new TraceException(path + " is not an apptrace trace (it does not start with"
          + " \"APPTRACE\")" + importHint(magic, n));
    }
    long len;
    try {
      len = readVarint();
    } catch (EOFException e) {
      throw new TraceException(path + " is cut short inside its header; it holds no events");
    }
    if (len < 0) {
      throw new TraceException(path + " has a damaged header (its length at byte " + TraceFormat.MAGIC.length
          + " is longer than a varint); it holds no readable events");
    }
    if (len > TraceFormat.MAX_HEADER_BYTES || len > fileSize - offset) {
      throw new TraceException(path + " has a damaged header (length " + len + " at byte "
          + (offset - 1) + "); it holds no readable events");
    }
    byte[] head = in.readNBytes((int) len);
    offset += head.length;
    TraceHeader h;
    try {
      h = TraceHeader.parseFrom(head);
    } catch (IOException e) {
      throw new TraceException(path + " has a damaged header; it holds no readable events", e);
    }
    if (h.getSchemaVersion() > TraceFormat.SCHEMA_VERSION) {
      throw new TraceException(path + " was written with trace schema version "
          + h.getSchemaVersion() + ", and this apptrace reads versions up to "
          + TraceFormat.SCHEMA_VERSION + "; use a newer apptrace to read it");
    }
    return h;
  }

  private static String importHint(byte[] magic, int n) {
    String start = new String(magic, 0, Math.max(n, 0), java.nio.charset.StandardCharsets.ISO_8859_1);
    if (start.startsWith("SQLite f")) {
      return "; it is an SQLite file: convert it with 'apptrace import'";
    }
    if (start.startsWith("{") || start.startsWith("[") || (n >= 2 && (magic[0] & 0xff) == 0x1f
        && (magic[1] & 0xff) == 0x8b)) {
      return "; for a profiler's JSON or gzip file, use 'apptrace import'";
    }
    return "";
  }

  /**
   * One batch as it lies in the file: {@code data[0, length)}, which starts at {@code offset};
   * {@code complete} is false for a batch the file cuts short (only its first bytes are there).
   */
  record RawBatch(long start, long offset, byte[] data, int length, boolean complete) {}

  /**
   * Reads the next batch's bytes; null at the end of the file or at damage (then
   * {@link #truncation()} says where, if it was not the clean end). The array is reused.
   */
  RawBatch nextRaw() throws IOException {
    RawBatch b = nextRaw(buffer);
    if (b != null) {
      buffer = b.data();
    }
    return b;
  }

  /**
   * {@link #nextRaw()} into {@code into} when the batch fits there, else into a new array (the
   * batch's {@code data()} says which).
   */
  RawBatch nextRaw(byte[] into) throws IOException {
    if (finished) {
      return null;
    }
    long start = offset;
    long len;
    try {
      len = readVarint();
    } catch (EOFException e) {
      finished = true;
      if (offset > start) {
        truncation = new Truncation(start, "cut short inside a record length");
      }
      return null;
    }
    long available = fileSize - offset;
    if (len < 0) {
      finished = true;
      truncation = new Truncation(start, "damaged record length");
      return null;
    }
    if (len > TraceFormat.MAX_BATCH_BYTES) {
      finished = true;
      truncation = new Truncation(start, "damaged record (length " + len + ")");
      return null;
    }
    boolean complete = len <= available;
    int want = (int) Math.min(len, available);
    byte[] data = into.length >= want ? into : new byte[Math.max(want, into.length * 2)];
    long at = offset;
    int got = in.readNBytes(data, 0, want);
    offset += got;
    return new RawBatch(start, at, data, got, complete && got == len);
  }

  /** Notes where a batch's readable part ends, when it is damaged or cut short. */
  void stopAt(RawBatch b, BatchParser.Result r) {
    if (r.problem() != null) {
      finished = true;
      truncation = new Truncation(b.offset() + r.goodBytes(), b.complete() ? "damaged record" : "cut short");
    }
  }

  private void readBatch() throws IOException {
    RawBatch b = nextRaw();
    if (b == null) {
      return;
    }
    BatchParser.Result r = BatchParser.parse(b.data(), b.length(), b.complete());
    for (Event e : r.events()) {
      pending.add(new TraceRecord(r.pid(), r.tid(), r.seq(), e));
    }
    stopAt(b, r);
  }

  /** A varint; -1 for one longer than ten bytes (damage). */
  private long readVarint() throws IOException {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException();
      }
      offset++;
      result |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    return -1;
  }


}
