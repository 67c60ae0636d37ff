package io.apptrace.cli;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * A file an export writes (graph's --graphml, --dot and --json, replay's --timeline and --ops-csv):
 * whole or not at all, and gzip-compressed when its name ends in {@code .gz}. The export streams
 * into {@code OUT.partial} (created anew, never through a symbolic link), through buffers; once it
 * is complete (with the gzip trailer) it is moved over OUT. An export that fails, even one whose
 * writer swallowed the error, removes {@code OUT.partial} and leaves OUT as it was. OUT itself must
 * not be a symbolic link: apptrace never writes through one.
 */
final class ExportFile {
  /** Bytes buffered before each write to the file, and before each call of the compressor. */
  static final int BUFFER = 1 << 16;
  /** zlib's fastest level: see docs/BENCHMARKS.md ("Exports") for what it costs and saves. */
  static final int GZIP_LEVEL = Deflater.BEST_SPEED;

  /** Writes an export to a stream. */
  interface Body {
    void to(OutputStream out) throws IOException;
  }

  /** Writes an export as text (UTF-8). */
  interface Text {
    void to(Writer out) throws IOException;
  }

  private ExportFile() {}

  /** Whether OUT is written gzip-compressed: its name ends in {@code .gz} (in any case). */
  static boolean gzip(Path out) {
    return out.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".gz");
  }

  /**
   * How many of a command's exports go to standard output ({@code -}); more than one is bad usage,
   * as is one beside {@code alsoStdout} (another document the command prints there, when not null).
   */
  static boolean oneToStdout(String alsoStdout, Path... outs) {
    long n = java.util.Arrays.stream(outs).filter(ExportFile::stdout).count();
    if (n > 1) {
      throw new UserException("only one export can go to standard output (-); give the others file names",
          ExitCodes.BAD_USAGE);
    }
    if (n == 1 && alsoStdout != null) {
      throw new UserException(alsoStdout + " prints on standard output, where the export to - goes too; give the"
          + " export a file name", ExitCodes.BAD_USAGE);
    }
    return n == 1;
  }

  /** Whether OUT is {@code -}: standard output. */
  static boolean stdout(Path out) {
    return out != null && out.toString().equals("-");
  }

  /**
   * Refuses OUT before any work is done: anything but a regular file or a new path in an existing
   * folder ({@link io.apptrace.trace.OutputFiles}); {@code -} (standard output) is fine.
   *
   * @throws UserException naming OUT and why
   */
  static void check(Path out) {
    if (out == null || stdout(out)) {
      return;
    }
    io.apptrace.trace.OutputFiles.problem(out).ifPresent(why -> {
      throw new UserException("cannot write " + out + ": " + why);
    });
  }

  /**
   * As {@link #check}, for an option whose output cannot go to standard output (a binary trace,
   * or a command that prints its own report there): {@code -} is bad usage saying why.
   */
  static void checkFile(Path out, String option, String whyNotStdout) {
    if (stdout(out)) {
      throw new UserException(option + " -: " + whyNotStdout + "; give a file name", ExitCodes.BAD_USAGE);
    }
    check(out);
  }

  /** {@link #write(Path, Body, java.io.PrintWriter)} to a file only (no {@code -}). */
  static void write(Path out, Body body) {
    write(out, body, null);
  }

  /** {@link #writeText(Path, Text, java.io.PrintWriter)} to a file only (no {@code -}). */
  static void writeText(Path out, Text body) {
    writeText(out, body, null);
  }

  /** {@link #write(Path, Body, java.io.PrintWriter)} for text, in UTF-8. */
  static void writeText(Path out, Text body, java.io.PrintWriter stdout) {
    if (out == null) {
      return;
    }
    if (stdout(out) && stdout != null) {
      try {
        body.to(stdout);
        stdout.flush();
      } catch (IOException e) {
        throw new UserException("cannot write to standard output (" + e.getMessage() + ")");
      }
      return;
    }
    write(out, s -> {
      Writer w = new Utf8Writer(s, BUFFER);
      body.to(w);
      w.flush();
    }, stdout);
  }

  /**
   * Writes OUT whole, or leaves it as it was; {@code -} writes to {@code stdout} (never gzipped).
   *
   * @throws UserException when OUT cannot be written, naming it and why
   */
  static void write(Path out, Body body, java.io.PrintWriter stdout) {
    if (out == null) {
      return;
    }
    if (stdout(out) && stdout != null) {
      try (OutputStream s = new WriterOutputStream(stdout)) {
        body.to(s);
      } catch (IOException e) {
        throw new UserException("cannot write to standard output (" + e.getMessage() + ")");
      }
      return;
    }
    check(out);
    Path partial = out.resolveSibling(out.getFileName() + ".partial");
    LatchedOutputStream file = null;
    boolean done = false;
    try {
      file = new LatchedOutputStream(Files.newOutputStream(partial, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
      try (LatchedOutputStream f = file; OutputStream s = stack(f, gzip(out))) {
        body.to(s);
      }
      if (file.failure().isPresent()) {
        throw file.failure().get();
      }
      Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      done = true;
    } catch (IOException e) {
      throw cannotWrite(out, file == null ? e : file.failure().orElse(e));
    } catch (RuntimeException e) { // an exporter that wraps the I/O error it met (JGraphT's GraphML)
      if (file != null && file.failure().isPresent()) {
        throw cannotWrite(out, file.failure().get());
      }
      throw e;
    } finally {
      if (!done) {
        removeQuietly(partial);
      }
    }
  }

  private static OutputStream stack(OutputStream file, boolean gzip) throws IOException {
    if (!gzip) {
      return new BufferedOutputStream(file, BUFFER);
    }
    return new BufferedOutputStream(new Gzip(file), BUFFER);
  }

  /** gzip at {@link #GZIP_LEVEL}; closing releases the compressor and the file even if it fails. */
  private static final class Gzip extends GZIPOutputStream {
    Gzip(OutputStream out) throws IOException {
      super(out, BUFFER);
      def.setLevel(GZIP_LEVEL);
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } finally {
        def.end();
        out.close();
      }
    }
  }

  private static UserException cannotWrite(Path out, IOException e) {
    String why = e instanceof NoSuchFileException ? "its folder does not exist"
        : e instanceof AccessDeniedException ? "permission denied"
        : e instanceof FileSystemException f && f.getReason() != null ? f.getReason()
        : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return new UserException("cannot write " + out + " (" + why + "); choose another path");
  }

  private static void removeQuietly(Path partial) {
    try {
      Files.deleteIfExists(partial);
    } catch (IOException e) {
      // the export's own error is the one to report
    }
  }
}
