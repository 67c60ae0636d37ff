package io.apptrace.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/** Reads a gzip file whole: a stream that is cut short or damaged fails, as gunzip would. */
final class Gzip {
  private Gzip() {}

  static byte[] decompress(Path file) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readAllBytes();
    }
  }
}
