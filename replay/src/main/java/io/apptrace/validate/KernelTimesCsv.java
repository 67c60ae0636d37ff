package io.apptrace.validate;

import io.apptrace.trace.InputFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Measured kernel times in the layout of NeuSight's kernel data ({@code neusight-kernels/kernels.csv.gz}, docs/REFERENCES.md)
 * (docs/CLI.md, "validate kernels"): a header naming {@code op}, {@code shape}, {@code gpu} and
 * {@code time_us} in any order, and optionally {@code flops} (or {@code flops_derived}), {@code
 * bytes_min} (or {@code bytes}), {@code kernel_name}, {@code grid} and {@code block}; one row per
 * operation, shape and GPU. Plain or gzipped; fields may be quoted ({@code "a, b"}, {@code ""} for a
 * quote).
 */
public final class KernelTimesCsv {
  /** The columns every file of this layout has. */
  public static final List<String> REQUIRED = List.of("op", "shape", "gpu", "time_us");

  private KernelTimesCsv() {}

  /**
   * One row. Absent values: NaN for numbers, null for text.
   *
   * @param line the row's line in the file, for errors
   */
  public record Row(String op, String shape, String gpu, double timeUs, double flops, double bytes, String kernelName,
      String grid, String block, int line) {}

  /**
   * Reads a whole file.
   *
   * @throws DataException one line naming the file (and line) and what is wrong: a missing
   *     required column, a field that is not a number, a time that is not more than zero
   */
  public static List<Row> read(Path file) throws DataException {
    java.util.Optional<String> unreadable = InputFiles.describe(file);
    if (unreadable.isPresent()) {
      throw new DataException(unreadable.get());
    }
    try (BufferedReader in = CopyTimesCsv.open(file)) {
      String head = in.readLine();
      if (head == null) {
        throw new DataException(file + ": empty; a kernel-times CSV starts with a header line naming "
            + String.join(", ", REQUIRED));
      }
      List<String> header = fields(stripBom(head)).stream().map(String::strip).toList();
      for (String c : REQUIRED) {
        if (!header.contains(c)) {
          throw new DataException(file + ": no column '" + c + "' (a kernel-times CSV has the columns "
              + String.join(", ", REQUIRED) + "; this one has " + String.join(", ", header) + ")");
        }
      }
      int op = header.indexOf("op");
      int shape = header.indexOf("shape");
      int gpu = header.indexOf("gpu");
      int time = header.indexOf("time_us");
      int flops = either(header, "flops", "flops_derived");
      int bytes = either(header, "bytes_min", "bytes");
      int name = header.indexOf("kernel_name");
      int grid = header.indexOf("grid");
      int block = header.indexOf("block");
      Map<String, String> interned = new HashMap<>();
      List<Row> rows = new ArrayList<>();
      String l;
      int n = 1;
      while ((l = in.readLine()) != null) {
        n++;
        if (l.isBlank()) {
          continue;
        }
        List<String> f = fields(l);
        if (f.size() != header.size()) {
          throw new DataException(file + ":" + n + ": " + f.size() + " fields where the header has " + header.size());
        }
        double t = number(file, n, "time_us", f.get(time));
        if (!(t > 0)) {
          throw new DataException(file + ":" + n + ": time_us " + f.get(time) + " is not more than zero");
        }
        rows.add(new Row(intern(interned, f.get(op)), f.get(shape), intern(interned, f.get(gpu)), t,
            flops < 0 ? Double.NaN : number(file, n, header.get(flops), f.get(flops)),
            bytes < 0 ? Double.NaN : number(file, n, header.get(bytes), f.get(bytes)),
            text(interned, f, name), text(interned, f, grid), text(interned, f, block), n));
      }
      return rows;
    } catch (IOException e) {
      throw new DataException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  private static int either(List<String> header, String a, String b) {
    int i = header.indexOf(a);
    return i >= 0 ? i : header.indexOf(b);
  }

  private static String stripBom(String s) {
    return s.startsWith("\uFEFF") ? s.substring(1) : s;
  }

  private static String text(Map<String, String> interned, List<String> f, int i) {
    if (i < 0 || f.get(i).isBlank()) {
      return null;
    }
    return intern(interned, f.get(i));
  }

  private static String intern(Map<String, String> interned, String s) {
    String v = interned.putIfAbsent(s, s);
    return v == null ? s : v;
  }

  /** A number; an empty field is NaN (unknown). */
  private static double number(Path file, int line, String column, String s) throws DataException {
    if (s.isBlank()) {
      return Double.NaN;
    }
    try {
      double v = Double.parseDouble(s.strip());
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new DataException(file + ":" + line + ": " + column + " '" + s + "' is not a number");
    }
  }

  /** The fields of one CSV line: commas outside quotes separate; {@code ""} inside quotes is a quote. */
  static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cur.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(cur.toString());
        cur.setLength(0);
      } else if (c != '\r') {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out;
  }
}
