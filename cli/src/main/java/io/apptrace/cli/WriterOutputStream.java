package io.apptrace.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * UTF-8 bytes onto a command's output writer: an export written to {@code -} goes where the
 * command prints (the terminal, a pipe, or a test's buffer). Closing flushes the writer but does
 * not close it.
 */
final class WriterOutputStream extends OutputStream {
  private final PrintWriter out;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  private final ByteBuffer in = ByteBuffer.allocate(1 << 16);
  private final CharBuffer chars = CharBuffer.allocate(1 << 16);

  WriterOutputStream(PrintWriter out) {
    this.out = out;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      int n = Math.min(len, in.remaining());
      in.put(b, off, n);
      off += n;
      len -= n;
      decode(false);
    }
  }

  private void decode(boolean end) throws IOException {
    in.flip();
    while (true) {
      var r = decoder.decode(in, chars, end);
      drain();
      if (r.isUnderflow()) {
        break;
      }
    }
    in.compact();
    if (out.checkError()) {
      throw new IOException("the output is closed or full");
    }
  }

  private void drain() {
    chars.flip();
    out.append(chars);
    chars.clear();
  }

  @Override
  public void flush() {
    out.flush();
  }

  private boolean closed;

  @Override
  public void close() throws IOException {
    if (closed) { // a writer that closes what it was given (Jackson's generator), then its caller
      return;
    }
    closed = true;
    decode(true);
    decoder.flush(chars);
    drain();
    out.flush();
  }
}
