package io.apptrace.validate;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Measured copy times from one or more files, each either a CSV in the format of {@link
 * MemcpyData} or an apptrace trace ({@link TraceCopies}, told apart by its magic): of a CSV, the
 * rows of one machine; of a trace, every copy with a measured GPU time (a trace is taken on one
 * machine).
 */
public final class MeasurementFiles {
  /**
   * What was selected.
   *
   * @param machines the machines of the CSV files' rows
   * @param traces the file names of the traces (a trace row's {@code machine})
   * @param skipped rows left out, by reason
   */
  public record Selection(List<MemcpyData.Measurement> rows, Map<String, Integer> skipped, List<String> machines,
      List<String> traces) {
    public Selection {
      rows = List.copyOf(rows);
      skipped = Map.copyOf(skipped);
      machines = List.copyOf(machines);
      traces = List.copyOf(traces);
    }

    /** The machines and traces the rows are of, for reports. */
    public String label() {
      List<String> all = new ArrayList<>(machines);
      all.addAll(traces);
      return String.join(", ", all);
    }
  }

  private MeasurementFiles() {}

  /**
   * Reads {@code files}.
   *
   * @param names the machine names whose rows a CSV gives, in order of preference: the first
   *     that a file holds is taken
   * @param whose the machine as the message about a CSV without its rows names it ({@code titan
   *     (or olcf-titan)})
   * @param hint what to do then ({@code choose one with --machine})
   * @throws DataException when a file cannot be read, a CSV holds no rows of the machine, or a
   *     trace holds no copy with a measured GPU time
   */
  public static Selection load(List<Path> files, List<String> names, String whose, String hint)
      throws DataException {
    Objects.requireNonNull(files, "files");
    List<MemcpyData.Measurement> rows = new ArrayList<>();
    Map<String, Integer> skipped = new TreeMap<>();
    Set<String> machines = new LinkedHashSet<>();
    Set<String> traces = new LinkedHashSet<>();
    for (Path f : files) {
      java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.describe(f);
      if (unreadable.isPresent()) {
        throw new DataException(unreadable.get());
      }
      MemcpyData.Data d;
      if (TraceCopies.isTrace(f)) {
        d = TraceCopies.read(f);
        if (d.rows().isEmpty()) {
          throw new DataException(f + ": holds no copy with a measured GPU time ("
              + (d.skipped().isEmpty() ? "no copies" : describe(d.skipped())) + "); a trace taken on the simulated"
              + " device has none: import a profile taken on a real GPU (apptrace import) or capture with CUPTI");
        }
        traces.add(f.getFileName().toString());
        rows.addAll(d.rows());
      } else {
        List<String> header = csvHeader(f);
        d = CopyTimesCsv.isLayout(header) ? CopyTimesCsv.read(f, names.get(0)) : MemcpyData.read(f);
        Optional<String> m = MemcpyData.pick(d, names);
        if (m.isEmpty()) {
          throw new DataException(f + " holds no rows of " + whose + "; its machines: "
              + String.join(", ", MemcpyData.machines(d).keySet()) + " (" + hint + ")");
        }
        machines.add(m.get());
        d.rows().stream().filter(r -> r.machine().equals(m.get())).forEach(rows::add);
      }
      d.skipped().forEach((why, n) -> skipped.merge(why, n, Integer::sum));
    }
    return new Selection(rows, skipped, new ArrayList<>(machines), new ArrayList<>(traces));
  }

  /**
   * The column names of a CSV of copy times (gzipped or not) in either layout; refuses a profile
   * another tool wrote (SQLite, JSON), which must be imported first, and a CSV of neither layout,
   * naming the columns it lacks.
   */
  private static List<String> csvHeader(Path f) throws DataException {
    String first;
    try (java.io.BufferedReader in = CopyTimesCsv.open(f)) {
      first = in.readLine();
    } catch (NoSuchFileException e) {
      throw new DataException(f + ": no such file");
    } catch (java.util.zip.ZipException | java.io.EOFException e) {
      throw new DataException(f + ": a gzip file that ends early or is damaged (" + e.getMessage() + ")");
    } catch (IOException e) {
      throw new DataException(f + ": cannot read it (" + e.getMessage() + ")");
    }
    String start = first == null ? "" : first.stripLeading();
    if (start.startsWith("SQLite format 3") || start.startsWith("{") || start.startsWith("[")) {
      throw new DataException(f + ": a profile (" + (start.startsWith("SQLite") ? "SQLite" : "JSON")
          + "), not a CSV of copy times nor an apptrace trace; import it first: apptrace import " + f
          + " -o OUT.apptrace");
    }
    List<String> header = first == null ? List.of() : List.of(first.strip().split("\\s*,\\s*", -1));
    if (!CopyTimesCsv.isLayout(header) && !header.containsAll(MemcpyData.REQUIRED)) {
      List<String> pearson = MemcpyData.REQUIRED.stream().filter(c -> !header.contains(c)).toList();
      throw new DataException(f + ":1: not a CSV of copy times: no column " + String.join(", ",
          CopyTimesCsv.missing(header)) + " for the plain layout (" + CopyTimesCsv.LAYOUT + "), nor "
          + String.join(", ", pearson) + " for Pearson's (machine,benchmark,...,bytes,...,median_ns, which apptrace"
          + " calibrate writes)");
    }
    return header;
  }

  private static String describe(Map<String, Integer> skipped) {
    List<String> parts = new ArrayList<>();
    skipped.forEach((why, n) -> parts.add(n + " " + why));
    return String.join(", ", parts);
  }
}
