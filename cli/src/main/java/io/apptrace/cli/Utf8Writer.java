package io.apptrace.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;

/**
 * A buffered UTF-8 writer without locks: exporters write a character or a short string at a time
 * (JGraphT's GraphML serializer writes its indentation one space per call), and a
 * {@link java.io.BufferedWriter} over an {@link java.io.OutputStreamWriter} takes a lock and goes
 * through a charset encoder for each. Characters are encoded as OutputStreamWriter encodes them:
 * a surrogate without its pair becomes {@code ?}. For one thread.
 */
final class Utf8Writer extends Writer {
  private final OutputStream out;
  private final byte[] buf;
  private int n;
  /** A high surrogate written last, waiting for its low one; 0 when none. */
  private char high;

  Utf8Writer(OutputStream out, int bufferBytes) {
    this.out = out;
    this.buf = new byte[Math.max(bufferBytes, 16)];
  }

  @Override
  public void write(int c) throws IOException {
    if (n > buf.length - 4) {
      drain();
    }
    put((char) c);
  }

  @Override
  public void write(char[] cbuf, int off, int len) throws IOException {
    for (int i = off, end = off + len; i < end; i++) {
      if (n > buf.length - 4) {
        drain();
      }
      put(cbuf[i]);
    }
  }

  @Override
  public void write(String s, int off, int len) throws IOException {
    for (int i = off, end = off + len; i < end; i++) {
      if (n > buf.length - 4) {
        drain();
      }
      put(s.charAt(i));
    }
  }

  @Override
  public void flush() throws IOException {
    drain();
    out.flush();
  }

  @Override
  public void close() throws IOException {
    if (high != 0) {
      high = 0;
      write('?');
    }
    flush();
    out.close();
  }

  /** Encodes c; the buffer has room for four bytes. */
  private void put(char c) {
    if (high != 0) {
      char h = high;
      high = 0;
      if (Character.isLowSurrogate(c)) {
        int cp = Character.toCodePoint(h, c);
        buf[n++] = (byte) (0xf0 | (cp >> 18));
        buf[n++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        buf[n++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        buf[n++] = (byte) (0x80 | (cp & 0x3f));
        return;
      }
      buf[n++] = '?'; // with c's own three bytes at most, within the four bytes of room
    }
    if (c < 0x80) {
      buf[n++] = (byte) c;
    } else if (c < 0x800) {
      buf[n++] = (byte) (0xc0 | (c >> 6));
      buf[n++] = (byte) (0x80 | (c & 0x3f));
    } else if (Character.isHighSurrogate(c)) {
      high = c;
    } else if (Character.isLowSurrogate(c)) {
      buf[n++] = '?';
    } else {
      buf[n++] = (byte) (0xe0 | (c >> 12));
      buf[n++] = (byte) (0x80 | ((c >> 6) & 0x3f));
      buf[n++] = (byte) (0x80 | (c & 0x3f));
    }
  }

  private void drain() throws IOException {
    if (n > 0) {
      out.write(buf, 0, n);
      n = 0;
    }
  }
}
