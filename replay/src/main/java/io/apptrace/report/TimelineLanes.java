package io.apptrace.report;

import io.apptrace.graph.CallLog;
import io.apptrace.replay.ProjectedRanges;
import io.apptrace.replay.ReplayProgram;
import io.apptrace.replay.ReplayResult;
import io.apptrace.replay.TransferTracks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One timeline of the report as lanes: host threads (their calls), NVTX ranges, streams (their
 * operations), copy engines, transfers (overlapping ones on separate lanes, {@link TransferTracks})
 * and links (their utilization, 0 to 1, over time). A timeline with more slices than a page can
 * draw has each lane's slices closer than {@link #MAX_SLICES}-th of its span merged into one, which
 * says how many it holds.
 */
public record TimelineLanes(String title, double spanNs, List<Lane> lanes) {
  /** Slices a timeline draws at most before merging neighbours. */
  static final int MAX_SLICES = 20_000;

  /** What a lane shows. */
  public enum Group {
    HOST_THREADS("host threads"), RANGES("NVTX ranges"), STREAMS("streams"), COPY_ENGINES("copy engines"),
    TRANSFERS("transfers"), LINKS("links");

    private final String label;

    Group(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * A slice: an operation, a call or a range.
   *
   * @param style its class: {@code kernel}, {@code memset}, {@code copy}, {@code call}, {@code range}
   * @param count how many slices it stands for (more than 1 once neighbours are merged)
   */
  public record Slice(double startNs, double endNs, String label, String style, int count) {}

  /**
   * A lane. A link's lane has {@code points} (time ns, utilization) and no slices.
   */
  public record Lane(Group group, String name, List<Slice> slices, List<double[]> points) {
    public Lane {
      slices = List.copyOf(slices);
      points = List.copyOf(points);
    }
  }

  public TimelineLanes {
    lanes = List.copyOf(lanes);
  }

  /** The number of slices drawn. */
  public int slices() {
    return lanes.stream().mapToInt(l -> l.slices().size()).sum();
  }

  /** A node's projected timeline. */
  public static TimelineLanes projected(ReplayResult r) {
    ReplayProgram p = r.program();
    Map<String, List<Slice>> lanes = new LinkedHashMap<>();
    List<Lane> out = new ArrayList<>();
    for (int t = 0; t < p.threads().size(); t++) {
      List<Slice> calls = new ArrayList<>();
      List<ReplayProgram.Call> list = p.threads().get(t).calls();
      for (ReplayResult.CallTimes c : r.calls().get(t)) {
        add(calls, c.startNs(), c.endNs(), list.get(c.index()).name(), "call");
      }
      out.add(new Lane(Group.HOST_THREADS, thread(p, t), calls, List.of()));
    }
    ranges(out, p, ProjectedRanges.projected(r));
    List<List<Slice>> streams = new ArrayList<>();
    p.streams().forEach(s -> streams.add(new ArrayList<>()));
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      String label = label(op);
      if (op.stream() >= 0) {
        add(streams.get(op.stream()), t.startNs(), t.endNs(), label, style(op));
      }
      if (t.engine().contains(" copy")) {
        add(lanes.computeIfAbsent(t.engine(), k -> new ArrayList<>()), t.startNs(), t.endNs(), label, style(op));
      }
    }
    streams(out, p, streams);
    lanes.forEach((k, v) -> out.add(new Lane(Group.COPY_ENGINES, k, v, List.of())));
    List<TransferTracks.Slice> transfers = TransferTracks.of(r);
    List<List<Slice>> tracks = new ArrayList<>();
    for (TransferTracks.Slice s : transfers) {
      while (tracks.size() <= s.track()) {
        tracks.add(new ArrayList<>());
      }
      add(tracks.get(s.track()), s.startNs(), s.endNs(), label(p.ops().get(s.op())) + " over "
          + String.join(", ", r.route(s.op())), "copy");
    }
    for (int k = 0; k < tracks.size(); k++) {
      out.add(new Lane(Group.TRANSFERS, k == 0 ? "transfers" : "transfers #" + (k + 1), tracks.get(k), List.of()));
    }
    for (ReplayResult.LinkUse u : r.linkUse()) {
      out.add(new Lane(Group.LINKS, u.name(), List.of(), u.points()));
    }
    return coarse(new TimelineLanes("projected on " + r.node().name(), r.makespanNs(), out));
  }

  /** The trace's measured timeline, or null when it measured nothing on a GPU. */
  public static TimelineLanes measured(ReplayProgram p) {
    long span = p.measuredMakespanNs();
    if (span < 0) {
      return null;
    }
    long first = p.firstEntryNs();
    List<Lane> out = new ArrayList<>();
    for (int t = 0; t < p.threads().size(); t++) {
      List<Slice> calls = new ArrayList<>();
      for (ReplayProgram.Call c : p.threads().get(t).calls()) {
        add(calls, c.entryNs() - first, c.entryNs() - first + c.durationNs(), c.name(), "call");
      }
      out.add(new Lane(Group.HOST_THREADS, thread(p, t), calls, List.of()));
    }
    ranges(out, p, ProjectedRanges.measured(p));
    List<List<Slice>> streams = new ArrayList<>();
    p.streams().forEach(s -> streams.add(new ArrayList<>()));
    for (ReplayProgram.Op op : p.ops()) {
      if (op.measured() && op.stream() >= 0) {
        add(streams.get(op.stream()), op.measuredStartNs() - first, op.measuredEndNs() - first, label(op), style(op));
      }
    }
    streams(out, p, streams);
    return coarse(new TimelineLanes("measured (the trace)", span, out));
  }

  private static String thread(ReplayProgram p, int t) {
    return "thread " + p.threads().get(t).tid() + " (pid " + p.threads().get(t).pid() + ")";
  }

  private static void ranges(List<Lane> out, ReplayProgram p, List<ProjectedRanges.Slice> ranges) {
    Map<Integer, List<Slice>> byThread = new java.util.TreeMap<>();
    for (ProjectedRanges.Slice s : ranges) {
      String name = s.domain() == null || s.domain().isEmpty() ? s.name() : s.domain() + ":" + s.name();
      add(byThread.computeIfAbsent(s.thread(), k -> new ArrayList<>()), s.startNs(), s.endNs(), name, "range");
    }
    byThread.forEach((t, v) -> out.add(new Lane(Group.RANGES, "ranges, " + thread(p, t), v, List.of())));
  }

  private static void streams(List<Lane> out, ReplayProgram p, List<List<Slice>> streams) {
    for (int s = 0; s < streams.size(); s++) {
      if (!streams.get(s).isEmpty()) {
        CallLog.Stream st = p.streams().get(s);
        String name = (st.legacy() ? "default stream" : "stream 0x" + Long.toHexString(st.handle())) + " (gpu "
            + st.device() + ")";
        out.add(new Lane(Group.STREAMS, name, streams.get(s), List.of()));
      }
    }
  }

  private static void add(List<Slice> lane, double start, double end, String label, String style) {
    if (!Double.isNaN(start) && !Double.isNaN(end)) {
      lane.add(new Slice(start, Math.max(start, end), label, style, 1));
    }
  }

  private static String label(ReplayProgram.Op op) {
    return op.transfer() != null ? op.name() + " " + op.transfer().key() + " " + io.apptrace.node.Units.size(op.bytes())
        : op.name();
  }

  private static String style(ReplayProgram.Op op) {
    return switch (op.kind()) {
      case KERNEL -> "kernel";
      case MEMSET -> "memset";
      case COPY -> "copy";
      case COLLECTIVE -> "communication";
    };
  }

  /** This timeline, with neighbouring slices merged where it has more than {@link #MAX_SLICES}. */
  static TimelineLanes coarse(TimelineLanes t) {
    if (t.slices() <= MAX_SLICES) {
      return t;
    }
    double gap = t.spanNs() / MAX_SLICES * Math.max(1, t.lanes().size());
    List<Lane> out = new ArrayList<>();
    for (Lane l : t.lanes()) {
      List<Slice> merged = new ArrayList<>();
      Slice cur = null;
      for (Slice s : l.slices()) {
        if (cur != null && s.startNs() - cur.endNs() < gap && s.startNs() - cur.startNs() < gap) {
          cur = new Slice(cur.startNs(), Math.max(cur.endNs(), s.endNs()), null, cur.style().equals(s.style())
              ? cur.style() : "mixed", cur.count() + s.count());
        } else {
          if (cur != null) {
            merged.add(named(cur));
          }
          cur = s;
        }
      }
      if (cur != null) {
        merged.add(named(cur));
      }
      out.add(new Lane(l.group(), l.name(), merged, l.points()));
    }
    return new TimelineLanes(t.title(), t.spanNs(), out);
  }

  private static Slice named(Slice s) {
    return s.count() == 1 || s.label() != null ? s
        : new Slice(s.startNs(), s.endNs(), s.count() + " slices merged (zoom in the --timeline file)", s.style(),
            s.count());
  }
}
