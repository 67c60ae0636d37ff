package io.apptrace.validate;

import io.apptrace.cost.CopyTransfer;
import io.apptrace.cost.TimingConversion;
import io.apptrace.graph.CallLog;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.node.TransferKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What traces holding both a copy's GPU time and the duration of the call that issued it say about
 * the two (docs/COST-MODEL.md, "Timing kinds"): the figures {@link TimingConversion}'s rule is made
 * of. Per trace and direction, its small copies (at most {@link #SMALL_BYTES}) from or to pageable
 * memory, whose call blocks until the copy is done: the median GPU time, and the median of the
 * call's duration minus it (its host-side part). Over the traces, the median of their medians, so
 * that a trace with thousands of copies counts as much as one with a few.
 */
public final class TimingEvidence {
  /** The largest copy counted as small. */
  public static final long SMALL_BYTES = 4096;

  /**
   * One trace's small pageable copies of one direction.
   *
   * @param way host to device or device to host
   * @param medianGpuSeconds the median of their GPU times
   * @param medianHostSeconds the median of their calls' durations minus their GPU times
   */
  public record Trace(String name, TransferKind.Way way, int copies, double medianGpuSeconds,
      double medianHostSeconds) {}

  /**
   * The figures.
   *
   * @param gpuH2dSeconds the median over traces of host-to-device copies' median GPU time
   * @param gpuD2hSeconds the same for device to host
   * @param hostSeconds the median over traces of host-to-device calls' median host-side part (a
   *     device-to-host call in an application's trace also waits for the work queued before it,
   *     so those calls do not count)
   */
  public record Result(List<Trace> traces, double gpuH2dSeconds, double gpuD2hSeconds, double hostSeconds) {
    public Result {
      traces = List.copyOf(traces);
    }
  }

  private TimingEvidence() {}

  /**
   * Reads apptrace traces (captured, or imported from nvprof, Nsight Systems or Kineto).
   *
   * @throws DataException naming a file that is not a readable trace, or when no trace has a small
   *     pageable copy of each direction
   */
  public static Result of(List<Path> files) throws DataException {
    List<Trace> traces = new ArrayList<>();
    for (Path f : files) {
      traces.addAll(of(f.getFileName().toString(), TraceCopies.graph(f, true)));
    }
    return summarize(traces);
  }

  /** The medians over traces. */
  static Result summarize(List<Trace> traces) throws DataException {
    double[] gpuH2d = traces.stream().filter(t -> t.way() == TransferKind.Way.H2D)
        .mapToDouble(Trace::medianGpuSeconds).sorted().toArray();
    double[] gpuD2h = traces.stream().filter(t -> t.way() == TransferKind.Way.D2H)
        .mapToDouble(Trace::medianGpuSeconds).sorted().toArray();
    double[] host = traces.stream().filter(t -> t.way() == TransferKind.Way.H2D)
        .mapToDouble(Trace::medianHostSeconds).sorted().toArray();
    if (gpuH2d.length == 0 || gpuD2h.length == 0) {
      throw new DataException("no trace has small copies (" + SMALL_BYTES + " B or less) from "
          + (gpuH2d.length == 0 ? "" : "the GPU to ") + "pageable memory" + (gpuH2d.length == 0 ? " to the GPU" : "")
          + " with a measured GPU time and call duration; give traces imported from a profile (nvprof, Nsight Systems,"
          + " Kineto) that have them");
    }
    return new Result(traces, ReferenceLatency.median(gpuH2d), ReferenceLatency.median(gpuD2h),
        ReferenceLatency.median(host));
  }

  /** A trace's small pageable copies, by direction (none of a direction it lacks). */
  static List<Trace> of(String name, Dvdg g) {
    Objects.requireNonNull(g, "g");
    CallLog log = g.calls().orElseThrow(() -> new IllegalArgumentException("the graph was built without its calls"));
    Map<Integer, Long> callNs = new HashMap<>();
    for (int c = 0; c < log.size(); c++) {
      if (log.type(c) == CallLog.Type.OP) {
        callNs.put(log.a(c), log.durationNs(c));
      }
    }
    OperationTable ops = g.operations();
    List<Trace> out = new ArrayList<>();
    for (TransferKind kind : List.of(TransferKind.PAGEABLE_H2D, TransferKind.PAGEABLE_D2H)) {
      List<Double> gpu = new ArrayList<>();
      List<Double> host = new ArrayList<>();
      for (int op = 0; op < ops.size(); op++) {
        long[] t = ops.gpuTimes(op);
        Long call = callNs.get(op);
        if (ops.kind(op) != OpKind.COPY || ops.bytes(op) > SMALL_BYTES || t == null || t[0] < 0 || t[1] <= t[0]
            || call == null || call <= 0 || CopyTransfer.of(g, op).kind() != kind) {
          continue;
        }
        gpu.add((t[1] - t[0]) * 1e-9);
        host.add((call - (t[1] - t[0])) * 1e-9);
      }
      if (!gpu.isEmpty()) {
        out.add(new Trace(name, kind.way(), gpu.size(), median(gpu), median(host)));
      }
    }
    return out;
  }

  private static double median(List<Double> v) {
    return ReferenceLatency.median(v.stream().mapToDouble(Double::doubleValue).sorted().toArray());
  }
}
