package io.apptrace.capture;

import com.google.protobuf.CodedOutputStream;
import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import io.apptrace.trace.BatchWalk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

/**
 * Recovers what a traced process wrote but never sent: it reads the process's shared buffer
 * region (tracer-native {@code record.h}) once the process's connection has closed, and writes
 * each buffer's complete, unsent events as one batch. A process killed by SIGKILL loses no event
 * it completed.
 *
 * <p>The region is the process's memory, read after the process is gone: every length in it is
 * checked against the region's own bounds, and a buffer's events are kept up to the first that
 * does not parse. A batch the collector already received (the process died between sending it
 * and marking it sent) is recognized by its thread, sequence number and event count, and skipped.
 */
final class SharedBuffers {
  private static final byte[] MAGIC = "APPTRBUF".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;
  private static final int HEAD_BYTES = 40;
  // at_buf: tid at 8 (u32), seq at 16 (u64), len at 24 (u32), sent at 28 (u32)
  private static final int BUF_HEAD_BYTES = 32;
  private static final int MAX_SLOTS = 1 << 16;
  private static final int MAX_DATA_BYTES = 16 << 20;

  /** Where recovered batches go; false when a batch could not be written. */
  interface Sink {
    boolean write(byte[] batch, int length);
  }

  /** What a drain found: events recovered, and of those, events the sink could not write. */
  record Recovered(long events, long lost) {
    static final Recovered NONE = new Recovered(0, 0);
  }

  private SharedBuffers() {}

  /** The region's head, checked: where its buffers are. */
  private record Layout(int pid, int headBytes, int slotBytes, int used, int dataOffset, int dataBytes) {
    static Optional<Layout> read(int fd) {
      try (Memory head = new Memory(HEAD_BYTES)) {
        if (!SharedBuffers.read(fd, head, HEAD_BYTES, 0)) {
          return Optional.empty();
        }
        Layout l = new Layout(head.getInt(12), head.getInt(16), head.getInt(20), head.getInt(36),
            head.getInt(28), head.getInt(32));
        int slots = head.getInt(24);
        boolean valid = Arrays.equals(head.getByteArray(0, MAGIC.length), MAGIC) && head.getInt(8) == VERSION
            && slots >= 0 && slots <= MAX_SLOTS && l.used >= 0 && l.used <= slots
            && l.dataBytes > 0 && l.dataBytes <= MAX_DATA_BYTES && l.dataOffset >= BUF_HEAD_BYTES
            && (long) l.dataOffset + l.dataBytes <= l.slotBytes && l.headBytes >= HEAD_BYTES;
        return valid ? Optional.of(l) : Optional.empty();
      }
    }
  }

  /**
   * Hands the unsent events of the region behind {@code fd} to {@code sink}, one batch per buffer.
   *
   * @param received for each thread id, the sequence number and event count of the last batch
   *     received from it on the connection
   */
  static Recovered drain(int fd, Map<Integer, long[]> received, Sink sink) throws IOException {
    Optional<Layout> layout = Layout.read(fd);
    if (layout.isEmpty()) {
      return Recovered.NONE;
    }
    Layout l = layout.get();
    long events = 0;
    long lost = 0;
    try (Memory bufHead = new Memory(BUF_HEAD_BYTES); Memory data = new Memory(l.dataBytes)) {
      for (int slot = 0; slot < l.used; slot++) {
        long at = l.headBytes + (long) slot * l.slotBytes;
        if (!read(fd, bufHead, BUF_HEAD_BYTES, at)) {
          continue;
        }
        int tid = bufHead.getInt(8);
        long seq = bufHead.getLong(16);
        int len = bufHead.getInt(24);
        int sent = bufHead.getInt(28);
        if (sent < 0 || len <= sent || len > l.dataBytes || !read(fd, data, len - sent, at + l.dataOffset + sent)) {
          continue;
        }
        byte[] bytes = data.getByteArray(0, len - sent);
        BatchScan scan = new BatchScan();
        int complete = BatchWalk.walk(bytes, bytes.length, scan);
        long[] last = received.get(tid);
        if (scan.events == 0 || last != null && last[0] == seq && last[1] == scan.events) {
          continue; // nothing complete, or the batch the collector already has
        }
        byte[] b = batch(l.pid, tid, seq, bytes, complete);
        if (!sink.write(b, b.length)) {
          lost += scan.events;
        }
        events += scan.events;
      }
    }
    return new Recovered(events, lost);
  }

  /** A Batch: the header fields, then the events as they were in the buffer. */
  private static byte[] batch(int pid, int tid, long seq, byte[] events, int length) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(length + 24);
    CodedOutputStream head = CodedOutputStream.newInstance(out);
    head.writeUInt32(1, pid);
    head.writeUInt32(2, tid);
    head.writeUInt64(3, seq);
    head.flush();
    out.write(events, 0, length);
    return out.toByteArray();
  }

  private static boolean read(int fd, Memory into, long count, long offset) {
    long done = 0;
    try {
      while (done < count) {
        long n = LibC.INSTANCE.pread(fd, into.share(done), count - done, offset + done);
        if (n <= 0) {
          return false;
        }
        done += n;
      }
      return true;
    } catch (LastErrorException e) {
      return false;
    }
  }
}
