package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Utf8Writer writes the bytes OutputStreamWriter writes, however the text is cut into calls. */
class Utf8WriterTest {
  /** ASCII, 2- and 3-byte characters, pairs of surrogates, and surrogates without their pair. */
  private static final String TEXT = "<node id=\"n0\">é ü ß ∑ → 中文 😀 𝄞 \uD800 x \uDC00 y \uD83D\uD83D\uDE00 end";

  @Test
  void sameBytesAsOutputStreamWriterWhateverTheCalls() throws IOException {
    StringBuilder sb = new StringBuilder();
    Random r = new Random(16);
    while (sb.length() < 200_000) {
      sb.append(TEXT, 0, 1 + r.nextInt(TEXT.length()));
    }
    String text = sb.toString();
    byte[] expected = encoded(text);
    for (int buffer : new int[] {16, 17, 1 << 16}) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      write(new Utf8Writer(out, buffer), text, r);
      assertThat(out.toByteArray()).as("buffer %d", buffer).isEqualTo(expected);
    }
  }

  /** A high surrogate left at the end is written as OutputStreamWriter writes it on close. */
  @Test
  void aHighSurrogateAtTheEnd() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Writer w = new Utf8Writer(out, 64)) {
      w.write("a\uD83D");
    }
    assertThat(out.toByteArray()).isEqualTo(encoded("a\uD83D")).isEqualTo(new byte[] {'a', '?'});
  }

  private static byte[] encoded(String text) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Writer o = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
      o.write(text);
    }
    return out.toByteArray();
  }

  /** Writes text in calls of every kind and random lengths. */
  private static void write(Writer w, String text, Random r) throws IOException {
    char[] chars = text.toCharArray();
    int i = 0;
    while (i < text.length()) {
      int len = Math.min(text.length() - i, r.nextInt(40));
      switch (r.nextInt(3)) {
        case 0 -> {
          w.write(text.charAt(i));
          len = 1;
        }
        case 1 -> w.write(text, i, len);
        default -> w.write(chars, i, len);
      }
      i += len;
    }
    w.close();
  }
}
