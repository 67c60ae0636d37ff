package io.apptrace.trace;

import com.google.protobuf.CodedOutputStream;
import io.apptrace.proto.Batch;
import io.apptrace.proto.TraceHeader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Appends batches to a trace file as they arrive. Every batch goes to the file in one write, with
 * no buffering in this process, so a file whose writer is killed is readable up to its last
 * complete batch. A write that fails (a full disk) leaves no partial batch behind: the file is cut
 * back to the last complete one. Thread-safe: batches from several connections are written whole,
 * one after the other.
 */
public final class TraceWriter implements Closeable {
  /** How many of the last batches {@link #removeLastBatch()} can take back. */
  private static final int REMOVABLE = 4096;

  private final FileChannel channel;
  private final Path path;
  private long bytes;
  private long batches;
  /** File size after the last complete batch. */
  private long end;
  /** Where the last batches start (at most REMOVABLE of them). */
  private final ArrayDeque<Long> starts = new ArrayDeque<>();

  private TraceWriter(FileChannel channel, Path path) {
    this.channel = channel;
    this.path = path;
  }

  /**
   * Creates (or replaces) the file at {@code path} and writes the magic and the header. A
   * symbolic link, a device, FIFO or socket at {@code path} is refused (OutputFiles).
   *
   * @throws IOException if the file cannot be created or written
   */
  public static TraceWriter create(Path path, TraceHeader header) throws IOException {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(header, "header");
    // a FIFO would block the open, a device would take the trace: only a regular file or a new path
    java.util.Optional<String> unwritable = OutputFiles.problem(path);
    if (unwritable.isPresent()) {
      throw new IOException(unwritable.get());
    }
    FileChannel channel;
    try {
      channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE,
              StandardOpenOption.READ,
              LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      if (Files.isSymbolicLink(path)) { // O_NOFOLLOW's ELOOP, whatever exception the JDK makes of it
        throw new IOException("it is a symbolic link, which apptrace never writes through", e);
      }
      throw e;
    }
    TraceWriter w = new TraceWriter(channel, path);
    byte[] head = header.toByteArray();
    ByteBuffer buf = ByteBuffer.allocate(TraceFormat.MAGIC.length + 5 + head.length);
    buf.put(TraceFormat.MAGIC);
    putVarint(buf, head.length);
    buf.put(head).flip();
    try {
      w.writeFully(buf);
      w.end = channel.size();
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    return w;
  }

  /**
   * Appends one serialized {@code Batch} (as the collector receives it from the socket).
   *
   * @throws IOException if the write fails; the file then ends with the batch before
   */
  public synchronized void writeBatch(byte[] data, int offset, int length) throws IOException {
    ByteBuffer len = ByteBuffer.allocate(5);
    putVarint(len, length);
    len.flip();
    ByteBuffer body = ByteBuffer.wrap(data, offset, length);
    ByteBuffer[] both = {len, body};
    long want = len.remaining() + (long) length;
    long done = 0;
    try {
      while (done < want) {
        done += channel.write(both);
      }
    } catch (IOException e) {
      cutBackTo(end, e);
      throw e;
    }
    if (starts.size() == REMOVABLE) {
      starts.removeFirst();
    }
    starts.addLast(end);
    end += want;
    bytes += want;
    batches++;
  }

  /**
   * Takes the last batch back out of the file (to make room on a full disk for the records that
   * say so). At most the last 4,096 batches can be taken back.
   *
   * @return the batch's bytes, or empty when there is none to take back
   * @throws IOException if the file cannot be read or cut
   */
  public synchronized Optional<byte[]> removeLastBatch() throws IOException {
    if (starts.isEmpty()) {
      return Optional.empty();
    }
    long start = starts.removeLast();
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(end - start));
    while (buf.hasRemaining() && channel.read(buf, start + buf.position()) > 0) {
      // read until full
    }
    cutBackTo(start, null);
    bytes -= buf.capacity();
    batches--;
    byte[] all = buf.array();
    int prefix = 0;
    while (prefix < all.length && (all[prefix] & 0x80) != 0) {
      prefix++;
    }
    return Optional.of(Arrays.copyOfRange(all, Math.min(prefix + 1, all.length), all.length));
  }

  private void cutBackTo(long size, IOException cause) throws IOException {
    try {
      channel.truncate(size);
      channel.position(size);
      end = size;
    } catch (IOException e) {
      if (cause == null) {
        throw e;
      }
      cause.addSuppressed(e);
    }
  }

  /** Appends one batch. */
  public void writeBatch(Batch batch) throws IOException {
    byte[] data = batch.toByteArray();
    writeBatch(data, 0, data.length);
  }

  /** Bytes written after the header. */
  public synchronized long bytesWritten() {
    return bytes;
  }

  /** The file's size: the header and every complete batch (known here, without asking the file system). */
  public synchronized long size() {
    return end;
  }

  /** Batches written. */
  public synchronized long batchesWritten() {
    return batches;
  }

  public Path path() {
    return path;
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }

  private void writeFully(ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      channel.write(buf);
    }
  }

  private static void putVarint(ByteBuffer buf, int value) {
    byte[] tmp = new byte[5];
    CodedOutputStream out = CodedOutputStream.newInstance(tmp);
    try {
      out.writeUInt32NoTag(value);
      buf.put(tmp, 0, out.getTotalBytesWritten());
    } catch (IOException e) {
      throw new IllegalStateException("a varint always fits in 5 bytes", e);
    }
  }
}
