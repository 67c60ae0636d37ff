package io.apptrace.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * An output stream that remembers its first failure, and fails every write after it at once:
 * some exporters write through a {@link java.io.PrintWriter}, which swallows I/O errors. A file
 * they failed to write must not pass for a complete one, and they must not go on producing the
 * rest of a large export into a full disk, one failed system call per line. So the first failure
 * is thrown as it came, and the writes after it throw an {@link UncheckedIOException}, which a
 * PrintWriter does not swallow. Closing still closes the file.
 */
final class LatchedOutputStream extends FilterOutputStream {
  private IOException failure;

  LatchedOutputStream(OutputStream out) {
    super(out);
  }

  @Override
  public void write(int b) throws IOException {
    failFast();
    try {
      out.write(b);
    } catch (IOException e) {
      throw latch(e);
    }
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    failFast();
    try {
      out.write(b, off, len);
    } catch (IOException e) {
      throw latch(e);
    }
  }

  @Override
  public void flush() throws IOException {
    failFast();
    try {
      out.flush();
    } catch (IOException e) {
      throw latch(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      out.close();
    } catch (IOException e) {
      if (failure == null) {
        throw latch(e);
      }
    }
  }

  /** The first write, flush or close that failed, if any did. */
  Optional<IOException> failure() {
    return Optional.ofNullable(failure);
  }

  private void failFast() {
    if (failure != null) {
      throw new UncheckedIOException("the export already failed", failure);
    }
  }

  private IOException latch(IOException e) {
    if (failure == null) {
      failure = e;
    }
    return e;
  }
}
