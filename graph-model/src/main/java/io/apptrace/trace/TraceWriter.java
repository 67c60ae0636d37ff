package io.apptrace.trace;

import com.google.protobuf.CodedOutputStream;
import io.apptrace.proto.Batch;
import io.apptrace.proto.TraceHeader;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemLoopException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Appends batches to a trace file as they arrive. Every batch goes to the file in one write, with
 * no buffering in this process, so a file whose writer is killed is readable up to its last
 * complete batch. Thread-safe: batches from several connections are written whole, one after the
 * other.
 */
public final class TraceWriter implements Closeable {
  private final FileChannel channel;
  private final Path path;
  private long bytes;
  private long batches;

  private TraceWriter(FileChannel channel, Path path) {
    this.channel = channel;
    this.path = path;
  }

  /**
   * Creates (or replaces) the file at {@code path} and writes the magic and the header. A
   * symbolic link at {@code path} is refused, never followed.
   *
   * @throws IOException if the file cannot be created or written
   */
  public static TraceWriter create(Path path, TraceHeader header) throws IOException {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(header, "header");
    FileChannel channel;
    try {
      channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS);
    } catch (FileSystemLoopException e) {
      throw new IOException(path + " is a symbolic link; refusing to write a trace through it", e);
    }
    TraceWriter w = new TraceWriter(channel, path);
    byte[] head = header.toByteArray();
    ByteBuffer buf = ByteBuffer.allocate(TraceFormat.MAGIC.length + 5 + head.length);
    buf.put(TraceFormat.MAGIC);
    putVarint(buf, head.length);
    buf.put(head).flip();
    w.writeFully(buf);
    return w;
  }

  /** Appends one serialized {@code Batch} (as the collector receives it from the socket). */
  public synchronized void writeBatch(byte[] data, int offset, int length) throws IOException {
    ByteBuffer len = ByteBuffer.allocate(5);
    putVarint(len, length);
    len.flip();
    ByteBuffer body = ByteBuffer.wrap(data, offset, length);
    ByteBuffer[] both = {len, body};
    long want = len.remaining() + (long) length;
    long done = 0;
    while (done < want) {
      done += channel.write(both);
    }
    bytes += want;
    batches++;
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
