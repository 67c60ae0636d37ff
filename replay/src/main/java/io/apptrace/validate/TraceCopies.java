package io.apptrace.validate;

import io.apptrace.cost.CopyTransfer;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.node.Timing;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The copies of an apptrace trace (captured, or imported from a profile taken on a real GPU) as
 * measurements: every copy with a measured GPU time is one data point, with its size, transfer
 * kind (from its direction and the memory kinds at its ends, as the replay prices it: {@link
 * CopyTransfer}), its GPUs and its host memory's NUMA node when the trace knows it (else the
 * GPU's local one). Its time is the GPU time {@code end - start} (Abdelhafez et al. 2019, sec.
 * VI-C: model error is computed from GPU time).
 */
public final class TraceCopies {
  /** What a trace copy's {@code benchmark} field says: it is one copy, not a benchmark's median. */
  public static final String BENCHMARK = "trace copy";

  private TraceCopies() {}

  /**
   * Whether {@code file} is an apptrace trace (it starts with the magic {@code APPTRACE}).
   *
   * @throws DataException when it cannot be read
   */
  public static boolean isTrace(Path file) throws DataException {
    try {
      return TraceFormat.startsWithMagic(file);
    } catch (NoSuchFileException e) {
      throw new DataException(file + ": no such file");
    } catch (IOException e) {
      throw new DataException(file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * A trace's graph, with its call log when {@code withCalls}.
   *
   * @throws DataException naming the file when it is not a readable trace
   */
  static Dvdg graph(Path trace, boolean withCalls) throws DataException {
    if (!Files.isRegularFile(trace)) {
      throw new DataException(trace + ": no such file");
    }
    try {
      return DvdgBuilder.build(trace, withCalls);
    } catch (TraceException e) {
      throw new DataException(e.getMessage());
    } catch (IOException e) {
      throw new DataException(trace + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * Reads a trace's copies. Every row's {@code machine} is the trace's file name.
   *
   * @throws DataException naming the file when it is not a readable trace
   */
  public static MemcpyData.Data read(Path trace) throws DataException {
    Dvdg g = graph(trace, false);
    String machine = trace.getFileName().toString();
    List<MemcpyData.Measurement> rows = new ArrayList<>();
    Map<String, Integer> skipped = new TreeMap<>();
    OperationTable ops = g.operations();
    for (int op = 0; op < ops.size(); op++) {
      if (ops.kind(op) != OpKind.COPY) {
        continue;
      }
      CopyTransfer copy = CopyTransfer.of(g, op);
      long[] gpu = ops.gpuTimes(op);
      if (copy.kind() == null) {
        skipped.merge("host-to-host copies (not a transfer kind the model prices)", 1, Integer::sum);
      } else if (gpu == null || gpu[0] < 0 || gpu[1] <= gpu[0]) {
        skipped.merge("copies without a measured GPU time", 1, Integer::sum);
      } else if (copy.device() < 0) {
        skipped.merge("copies on no known GPU", 1, Integer::sum);
      } else {
        int dst = copy.peerDevice() >= 0 ? copy.peerDevice() : copy.device();
        rows.add(new MemcpyData.Measurement(machine, BENCHMARK, copy.kind(), copy.numa(), copy.device(), dst,
            ops.bytes(op), (gpu[1] - gpu[0]) * 1e-9, Timing.GPU));
      }
    }
    return new MemcpyData.Data(rows, skipped);
  }
}
