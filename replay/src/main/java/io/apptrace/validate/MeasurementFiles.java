package io.apptrace.validate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        notAProfile(f);
        d = MemcpyData.read(f);
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
   * Refuses a profile another tool wrote (SQLite, gzip, JSON): it must be imported first, and
   * would otherwise be reported as a CSV without its columns.
   */
  private static void notAProfile(Path f) throws DataException {
    byte[] head;
    try (InputStream in = Files.newInputStream(f)) {
      head = in.readNBytes(16);
    } catch (NoSuchFileException e) {
      throw new DataException(f + ": no such file");
    } catch (IOException e) {
      throw new DataException(f + ": cannot read it (" + e.getMessage() + ")");
    }
    String start = new String(head, StandardCharsets.ISO_8859_1);
    boolean gzip = head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
    if (gzip || start.startsWith("SQLite format 3") || start.stripLeading().startsWith("{")) {
      throw new DataException(f + ": a profile (" + (gzip ? "gzip" : start.startsWith("SQLite") ? "SQLite" : "JSON")
          + "), not a CSV of copy times nor an apptrace trace; import it first: apptrace import " + f
          + " -o OUT.apptrace");
    }
  }

  private static String describe(Map<String, Integer> skipped) {
    List<String> parts = new ArrayList<>();
    skipped.forEach((why, n) -> parts.add(n + " " + why));
    return String.join(", ", parts);
  }
}
