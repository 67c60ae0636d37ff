package io.apptrace.validate;

import io.apptrace.node.Timing;
import io.apptrace.node.TransferKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Measured cudaMemcpy times in the format of Pearson's thesis data (github.com/cwpearson/ms-thesis,
 * flattened into one CSV, {@code memcpy_summary.csv}: docs/REFERENCES.md; columns machine, benchmark, src_mem,
 * dst_mem, peer, numa, src_numa, dst_numa, gpu, src_gpu, dst_gpu, bytes, ..., median_ns, ...):
 * one row a measured size of one benchmark, by machine, NUMA node and GPUs. {@code apptrace
 * calibrate} writes the same format, with three benchmarks of its own: device-to-device copies and
 * managed-memory prefetches both ways.
 */
public final class MemcpyData {
  /**
   * One measurement.
   *
   * @param numa the NUMA node of the host memory (or of the staging buffer of a GPU-to-GPU copy
   *     without peer access); -1 where the benchmark has none
   * @param srcGpu the GPU (for host transfers, the one GPU)
   * @param dstGpu the destination GPU of a GPU-to-GPU copy (else srcGpu)
   * @param timed how the time was taken: the model is compared in that view (docs/COST-MODEL.md,
   *     "Timing kinds")
   */
  public record Measurement(String machine, String benchmark, TransferKind kind, int numa, int srcGpu,
      int dstGpu, long bytes, double medianSeconds, Timing timed) {}

  /** What was read, and the rows left out with why. */
  public record Data(List<Measurement> rows, Map<String, Integer> skipped) {}

  private static final Map<String, TransferKind> BENCHMARKS = Map.ofEntries(
      Map.entry("NUMA_Memcpy_PinnedToGPU", TransferKind.PINNED_H2D),
      Map.entry("NUMA_Memcpy_GPUToPinned", TransferKind.PINNED_D2H),
      Map.entry("NUMA_Memcpy_HostToGPU", TransferKind.PAGEABLE_H2D),
      Map.entry("NUMA_Memcpy_GPUToHost", TransferKind.PAGEABLE_D2H),
      Map.entry("NUMA_Memcpy_WCToGPU", TransferKind.WRITE_COMBINED_H2D),
      Map.entry("NUMA_Memcpy_GPUToWC", TransferKind.WRITE_COMBINED_D2H),
      Map.entry("CUDA_Memcpy_GPUToGPU", TransferKind.PEER),
      Map.entry("NUMA_Memcpy_GPUToGPU", TransferKind.STAGED_P2P),
      // not in Pearson's summary; apptrace calibrate writes them (docs/CALIBRATE.md)
      Map.entry("CUDA_Memcpy_DeviceToDevice", TransferKind.D2D),
      Map.entry("NUMAUM_Prefetch_HostToGPU", TransferKind.PREFETCH_H2D),
      Map.entry("NUMAUM_Prefetch_GPUToHost", TransferKind.PREFETCH_D2H));

  /** The columns a file of this layout must have. */
  static final List<String> REQUIRED = List.of("machine", "benchmark", "numa", "gpu", "src_gpu", "dst_gpu", "bytes",
      "median_ns");

  private MemcpyData() {}

  /**
   * Reads a file.
   *
   * @throws DataException naming the file, line and column when it is not in this format
   */
  public static Data read(Path csv) throws DataException {
    List<Measurement> rows = new ArrayList<>();
    Map<String, Integer> skipped = new TreeMap<>();
    try (BufferedReader in = CopyTimesCsv.open(csv)) {
      String header = in.readLine();
      if (header == null) {
        throw new DataException(csv + ": empty; expected a header line starting with 'machine,benchmark,'");
      }
      Map<String, Integer> col = new HashMap<>();
      String[] names = header.strip().split(",", -1);
      for (int i = 0; i < names.length; i++) {
        col.put(names[i], i);
      }
      for (String need : REQUIRED) {
        if (!col.containsKey(need)) {
          throw new DataException(csv + ":1: no column '" + need + "'; this is not a CSV in the layout of"
              + " Pearson's thesis data (docs/CLI.md, validate transfers, lists its columns)");
        }
      }
      String line;
      int lineNo = 1;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.split(",", -1);
        if (f.length < names.length) {
          throw new DataException(csv + ":" + lineNo + ": " + f.length + " fields, the header has " + names.length);
        }
        String benchmark = f[col.get("benchmark")];
        TransferKind kind = BENCHMARKS.get(benchmark);
        if (kind == null) {
          skipped.merge(benchmark + " (not a transfer kind the model prices)", 1, Integer::sum);
          continue;
        }
        long bytes = longField(csv, lineNo, "bytes", f[col.get("bytes")]);
        double median = doubleField(csv, lineNo, "median_ns", f[col.get("median_ns")]);
        if (!(median > 0)) {
          skipped.merge("rows without a positive median_ns", 1, Integer::sum);
          continue;
        }
        int numa = intOr(csv, lineNo, "numa", f[col.get("numa")], -1);
        int gpu = intOr(csv, lineNo, "gpu", f[col.get("gpu")], -1);
        int src = intOr(csv, lineNo, "src_gpu", f[col.get("src_gpu")], gpu);
        int dst = intOr(csv, lineNo, "dst_gpu", f[col.get("dst_gpu")], src);
        if (src < 0) {
          throw new DataException(csv + ":" + lineNo + ": neither gpu nor src_gpu is given");
        }
        // synchronous cudaMemcpy calls timed with CUDA events (Pearson 2018, Algorithm 4.3; apptrace calibrate alike)
        rows.add(new Measurement(f[col.get("machine")], benchmark, kind, numa, src, dst, bytes, median * 1e-9,
            Timing.EVENT));
      }
    } catch (NoSuchFileException e) {
      throw new DataException(csv + ": no such file");
    } catch (IOException e) {
      throw new DataException(csv + ": cannot read it (" + e.getMessage() + ")");
    }
    return new Data(rows, skipped);
  }

  private static long longField(Path csv, int line, String name, String v) throws DataException {
    try {
      return Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw new DataException(csv + ":" + line + ": " + name + " \"" + v + "\" is not a whole number");
    }
  }

  private static double doubleField(Path csv, int line, String name, String v) throws DataException {
    try {
      return Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new DataException(csv + ":" + line + ": " + name + " \"" + v + "\" is not a number");
    }
  }

  private static int intOr(Path csv, int line, String name, String v, int dflt) throws DataException {
    if (v.isBlank()) {
      return dflt;
    }
    return (int) longField(csv, line, name, v);
  }

  /** The machines a data set holds, with their row counts. */
  public static Map<String, Integer> machines(Data d) {
    Map<String, Integer> m = new TreeMap<>();
    d.rows().forEach(r -> m.merge(r.machine(), 1, Integer::sum));
    return m;
  }

  /** The first machine name among {@code candidates} that the data holds. */
  public static Optional<String> pick(Data d, List<String> candidates) {
    Map<String, Integer> m = machines(d);
    return candidates.stream().filter(m::containsKey).findFirst();
  }
}
