package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests as {@code sha256sum} prints them: what ties a node file to the data it was fitted to. */
public final class Sha256 {
  private Sha256() {}

  /** The digest of {@code bytes}, 64 lower-case hexadecimal digits. */
  public static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(digest().digest(bytes));
  }

  /** The digest of a file's bytes, read in blocks. */
  public static String hex(Path file) throws IOException {
    MessageDigest d = digest();
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        d.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(d.digest());
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
