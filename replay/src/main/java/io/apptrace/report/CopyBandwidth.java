package io.apptrace.report;

import io.apptrace.cost.TransferModel;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.TransferKind;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The trace's copies on one node as bandwidth against size, per transfer kind: each copy's bytes
 * over its projected duration (so a copy that shared its links shows it), the same over its
 * measured duration where the trace measured it, and the transfer model's curve for the kind alone
 * on the node ({@link TransferModel#estimate}, GPU time, at the endpoints of the kind's first copy),
 * from 1 byte to twice the largest copy.
 */
public record CopyBandwidth(String node, List<Series> series) {
  /** Points a series keeps at most, evenly spread over its copies (the page stays small). */
  static final int MAX_POINTS = 1_500;

  /**
   * One kind's copies and curve.
   *
   * @param projected (bytes, bytes per second) of each copy as projected
   * @param measured (bytes, bytes per second) of each copy as measured; empty when the trace has no GPU times
   * @param curve (bytes, bytes per second) of the model alone on the node, by size
   */
  public record Series(String kind, int copies, List<double[]> projected, List<double[]> measured,
      List<double[]> curve) {
    public Series {
      projected = List.copyOf(projected);
      measured = List.copyOf(measured);
      curve = List.copyOf(curve);
    }
  }

  public CopyBandwidth {
    series = List.copyOf(series);
  }

  /** The copies of {@code r} (those that moved bytes over links: not host-to-host copies). */
  public static CopyBandwidth of(ReplayResult r) throws NodeFileException {
    ReplayProgram p = r.program();
    Map<TransferKind, List<Integer>> byKind = new TreeMap<>();
    for (ReplayProgram.Op op : p.ops()) {
      if (op.kind() == ReplayProgram.Kind.COPY && op.transfer() != null && op.bytes() > 0
          && !Double.isNaN(r.ops().get(op.id()).endNs())) {
        byKind.computeIfAbsent(op.transfer(), k -> new ArrayList<>()).add(op.id());
      }
    }
    TransferModel model = new TransferModel(r.node());
    List<Series> out = new ArrayList<>();
    for (Map.Entry<TransferKind, List<Integer>> e : byKind.entrySet()) {
      List<Integer> ops = e.getValue();
      List<double[]> projected = new ArrayList<>();
      List<double[]> measured = new ArrayList<>();
      long largest = 1;
      int step = Math.max(1, (ops.size() + MAX_POINTS - 1) / MAX_POINTS);
      for (int k = 0; k < ops.size(); k++) {
        ReplayProgram.Op op = p.ops().get(ops.get(k));
        largest = Math.max(largest, op.bytes());
        if (k % step != 0) {
          continue;
        }
        double ns = r.ops().get(op.id()).durationNs();
        if (ns > 0) {
          projected.add(new double[] {op.bytes(), op.bytes() / (ns * 1e-9)});
        }
        if (op.measured() && op.measuredDurationNs() > 0) {
          measured.add(new double[] {op.bytes(), op.bytes() / (op.measuredDurationNs() * 1e-9)});
        }
      }
      out.add(new Series(e.getKey().key(), ops.size(), projected, measured, curve(model, r, p.ops().get(ops.get(0)),
          largest)));
    }
    return new CopyBandwidth(r.node().name(), out);
  }

  private static List<double[]> curve(TransferModel model, ReplayResult r, ReplayProgram.Op first, long largest)
      throws NodeFileException {
    int numa = first.numa() >= 0 && r.node().cpuOfNuma(first.numa()).isPresent() ? first.numa() : -1;
    TransferModel.Endpoints where = new TransferModel.Endpoints(numa, r.gpu(first.id()), r.peerGpu(first.id()));
    List<double[]> out = new ArrayList<>();
    for (long bytes = 1; bytes <= 2 * largest && bytes > 0; bytes *= 2) {
      double s = model.estimate(first.transfer(), bytes, where, r.options().setting()).seconds();
      if (s > 0) {
        out.add(new double[] {bytes, bytes / s});
      }
    }
    return out;
  }
}
