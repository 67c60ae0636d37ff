package io.apptrace.validate;

import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

/**
 * Measured copy times in the plain layout (docs/CLI.md, "validate transfers"): a header naming at
 * least {@code bytes}, {@code kind} and {@code time_ns}, in any order, and optionally
 * {@code memory}, {@code numa}, {@code gpu}, {@code src_gpu}, {@code dst_gpu}, {@code timed} and
 * {@code machine};
 * one row a copy. {@code kind} is a transfer kind ({@code pinned_h2d}, {@code d2d}, ...) or a
 * direction ({@code h2d}, {@code d2h}, {@code d2d}, {@code p2p}) whose host memory {@code memory}
 * gives ({@code pinned} when it is empty). {@code timed} says how {@code time_ns} was taken
 * ({@code gpu}, {@code event} or {@code wall}, docs/COST-MODEL.md "Timing kinds"; {@code gpu}, a
 * profiler's time of the copy, when it is empty or absent). The rows belong to {@code machine}, or,
 * without that column, to the node they are compared with. Plain or gzipped.
 */
public final class CopyTimesCsv {
  /** The columns every file of this layout has. */
  public static final List<String> REQUIRED = List.of("bytes", "kind", "time_ns");
  /** The header line, as docs/CLI.md shows it. */
  public static final String LAYOUT = "bytes,kind,time_ns[,memory,numa,gpu,src_gpu,dst_gpu,timed,machine]";

  private CopyTimesCsv() {}

  /** Whether a header line is of this layout: it names every required column. */
  static boolean isLayout(List<String> header) {
    return header.containsAll(REQUIRED);
  }

  /** The columns of {@link #REQUIRED} a header lacks. */
  static List<String> missing(List<String> header) {
    return REQUIRED.stream().filter(c -> !header.contains(c)).toList();
  }

  /** Opens a CSV, decompressing it when it is gzipped. */
  static BufferedReader open(Path csv) throws IOException {
    InputStream in = Files.newInputStream(csv);
    try {
      in = new java.io.BufferedInputStream(in);
      in.mark(2);
      int a = in.read();
      int b = in.read();
      in.reset();
      if (a == 0x1f && b == 0x8b) {
        in = new GZIPInputStream(in, 1 << 16);
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }

  /**
   * Reads a file of this layout; rows without a {@code machine} belong to {@code machine}.
   *
   * @throws DataException naming the file, line and column of the first problem
   */
  static MemcpyData.Data read(Path csv, String machine) throws DataException {
    List<MemcpyData.Measurement> rows = new ArrayList<>();
    Map<String, Integer> skipped = new TreeMap<>();
    try (BufferedReader in = open(csv)) {
      String header = in.readLine();
      List<String> names = header == null ? List.of() : List.of(header.strip().split("\\s*,\\s*", -1));
      if (!isLayout(names)) {
        throw new DataException(csv + ":1: no column " + String.join(", ", missing(names)) + " (" + LAYOUT + ")");
      }
      Map<String, Integer> col = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        col.put(names.get(i), i);
      }
      String line;
      int lineNo = 1;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",", -1);
        if (f.length < names.size()) {
          throw new DataException(csv + ":" + lineNo + ": " + f.length + " fields, the header has " + names.size());
        }
        Field field = new Field(csv, lineNo, f, col);
        TransferKind kind = kind(field);
        double ns = field.number("time_ns");
        if (!(ns > 0)) {
          skipped.merge("rows without a positive time_ns", 1, Integer::sum);
          continue;
        }
        int gpu = field.intOr("gpu", 0);
        int src = field.intOr("src_gpu", gpu);
        int dst = field.intOr("dst_gpu", -1);
        if (kind.way() == TransferKind.Way.P2P && dst < 0) {
          throw field.error("dst_gpu", "is not given: a GPU-to-GPU copy (" + kind.key() + ") needs its destination");
        }
        dst = dst < 0 ? src : dst;
        String m = col.containsKey("machine") && !f[col.get("machine")].isBlank() ? f[col.get("machine")].strip()
            : machine;
        rows.add(new MemcpyData.Measurement(m, kind.key(), kind, field.intOr("numa", -1), src, dst,
            (long) field.number("bytes"), ns * 1e-9, timing(field)));
      }
    } catch (java.util.zip.ZipException | java.io.EOFException e) {
      throw new DataException(csv + ": a gzip file that ends early or is damaged (" + e.getMessage() + ")");
    } catch (IOException e) {
      throw new DataException(csv + ": cannot read it (" + e.getMessage() + ")");
    }
    return new MemcpyData.Data(rows, skipped);
  }

  private static Timing timing(Field f) throws DataException {
    if (!f.has("timed") || f.text("timed").isBlank()) {
      return Timing.GPU;
    }
    String t = f.text("timed");
    return Timing.of(t).orElseThrow(() -> f.error("timed", "'" + t + "' is no way of timing: give gpu (a profiler's"
        + " time of the copy), event (CUDA events around a synchronous call) or wall (the host clock around it)"));
  }

  private static TransferKind kind(Field f) throws DataException {
    String k = f.text("kind");
    Optional<TransferKind> exact = TransferKind.of(k);
    if (exact.isPresent()) {
      return exact.get();
    }
    String memory = f.has("memory") && !f.text("memory").isBlank() ? f.text("memory") : "pinned";
    return TransferKind.of(k, memory).orElseThrow(() -> f.error("kind", "'" + k + "' with memory '" + memory
        + "' is no transfer kind: give a kind (pinned_h2d, pageable_d2h, d2d, peer, ...) or a direction (h2d, d2h,"
        + " d2d, p2p) with memory pinned, pageable or write-combined"));
  }

  /** One row's fields by column name, with errors that say where. */
  private record Field(Path csv, int line, String[] f, Map<String, Integer> col) {
    boolean has(String name) {
      return col.containsKey(name);
    }

    String text(String name) {
      return f[col.get(name)].strip();
    }

    DataException error(String name, String what) {
      return new DataException(csv + ":" + line + ": " + name + " " + what);
    }

    double number(String name) throws DataException {
      try {
        return Double.parseDouble(text(name));
      } catch (NumberFormatException e) {
        throw error(name, "\"" + text(name) + "\" is not a number");
      }
    }

    int intOr(String name, int dflt) throws DataException {
      if (!has(name) || text(name).isBlank()) {
        return dflt;
      }
      try {
        return Integer.parseInt(text(name));
      } catch (NumberFormatException e) {
        throw error(name, "\"" + text(name) + "\" is not a whole number");
      }
    }
  }
}
