package io.apptrace.replay;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.apptrace.graph.CallLog;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --timeline}: the projected timelines as Chrome trace / Perfetto JSON (open it at
 * ui.perfetto.dev or chrome://tracing). One process per node, with a track per host thread (its
 * API calls), per thread with NVTX ranges (the ranges, {@link ProjectedRanges}), per stream (its
 * operations), per copy engine (its copies) and per transfer track (copies while their bytes
 * cross links, overlapping ones on separate tracks: {@link TransferTracks}), a flow arrow from each
 * call to the operation it issued, and a counter track per link direction and host memory (its
 * utilization, 0 to 1); when the trace has measured GPU times, a "measured" process beside them
 * with the measured calls, ranges and operations. Times are microseconds from the first call,
 * written to the nanosecond and no further, utilizations to four decimals (a one-million-operation
 * timeline stays under 200 MB as {@code --timeline x.json.gz} writes it: {@code ChromeTraceSizeTest}).
 */
public final class ChromeTrace {
  private static final int MEASURED_PID = 999;
  static final int RANGES_TID = 500;
  static final int STREAM_TID = 1000;
  static final int ENGINE_TID = 2000;
  static final int TRANSFER_TID = 3000;

  private final JsonGenerator g;
  /** Flow ids, unique in the file. */
  private long flows;

  private ChromeTrace(JsonGenerator g) {
    this.g = g;
  }

  public static void write(List<ReplayResult> results, OutputStream out) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      ChromeTrace t = new ChromeTrace(g);
      g.writeStartObject();
      g.writeStringField("displayTimeUnit", "ns");
      g.writeArrayFieldStart("traceEvents");
      for (int n = 0; n < results.size(); n++) {
        t.projected(n + 1, results.get(n));
      }
      if (!results.isEmpty() && results.get(0).program().measuredMakespanNs() >= 0) {
        t.measured(results.get(0).program());
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  /** Microseconds from nanoseconds, to the nanosecond: {@code 1234.5}, {@code 0.001}, {@code 12}. */
  static String micros(double ns) {
    long n = Math.round(ns);
    String sign = n < 0 ? "-" : "";
    n = Math.abs(n);
    long whole = n / 1000;
    int frac = (int) (n % 1000);
    if (frac == 0) {
      return sign + whole;
    }
    String f = Integer.toString(1000 + frac).substring(1);
    int end = f.length();
    while (f.charAt(end - 1) == '0') {
      end--;
    }
    return sign + whole + "." + f.substring(0, end);
  }

  /** A fraction to four decimals, as short as it goes: {@code 0}, {@code 0.5}, {@code 0.3333}, {@code 1}. */
  static String fraction(double f) {
    long n = Math.round(f * 10_000);
    if (n % 10_000 == 0) {
      return Long.toString(n / 10_000);
    }
    String d = Long.toString(10_000 + Math.abs(n) % 10_000).substring(1);
    int end = d.length();
    while (d.charAt(end - 1) == '0') {
      end--;
    }
    return (n < 0 ? "-" : "") + Math.abs(n) / 10_000 + "." + d.substring(0, end);
  }

  private void meta(int pid, int tid, String what, String name, int sort) throws IOException {
    for (int k = 0; k < 2; k++) {
      g.writeStartObject();
      g.writeStringField("ph", "M");
      g.writeNumberField("pid", pid);
      if (tid >= 0) {
        g.writeNumberField("tid", tid);
      }
      g.writeStringField("name", k == 0 ? what : tid >= 0 ? "thread_sort_index" : "process_sort_index");
      g.writeObjectFieldStart("args");
      if (k == 0) {
        g.writeStringField("name", name);
      } else {
        g.writeNumberField("sort_index", sort);
      }
      g.writeEndObject();
      g.writeEndObject();
    }
  }

  private boolean slice(int pid, int tid, String name, double startNs, double endNs, Map<String, Object> args)
      throws IOException {
    if (Double.isNaN(startNs) || Double.isNaN(endNs)) {
      return false;
    }
    g.writeStartObject();
    g.writeStringField("ph", "X");
    g.writeNumberField("pid", pid);
    g.writeNumberField("tid", tid);
    g.writeStringField("name", name);
    g.writeFieldName("ts");
    g.writeNumber(micros(startNs));
    g.writeFieldName("dur");
    g.writeNumber(micros(Math.max(0, endNs - startNs)));
    if (!args.isEmpty()) {
      g.writeObjectFieldStart("args");
      for (Map.Entry<String, Object> a : args.entrySet()) {
        if (a.getValue() instanceof Integer i) {
          g.writeNumberField(a.getKey(), i);
        } else if (a.getValue() instanceof Long l) {
          g.writeNumberField(a.getKey(), l);
        } else {
          g.writeStringField(a.getKey(), String.valueOf(a.getValue()));
        }
      }
      g.writeEndObject();
    }
    g.writeEndObject();
    return true;
  }

  /**
   * A flow arrow (the Trace Event Format's flow events, "s" and "f"): from the slice of
   * {@code fromTid} that encloses {@code fromNs} to the slice of {@code toTid} that encloses
   * {@code toNs}.
   */
  private void flow(int pid, int fromTid, double fromNs, int toTid, double toNs) throws IOException {
    if (Double.isNaN(fromNs) || Double.isNaN(toNs)) {
      return;
    }
    long id = ++flows;
    for (int k = 0; k < 2; k++) {
      g.writeStartObject();
      g.writeStringField("ph", k == 0 ? "s" : "f");
      if (k == 1) {
        g.writeStringField("bp", "e");
      }
      g.writeStringField("name", "issue");
      g.writeStringField("cat", "issue");
      g.writeNumberField("id", id);
      g.writeNumberField("pid", pid);
      g.writeNumberField("tid", k == 0 ? fromTid : toTid);
      g.writeFieldName("ts");
      g.writeNumber(micros(k == 0 ? fromNs : toNs));
      g.writeEndObject();
    }
  }

  private static String streamName(ReplayProgram p, int s) {
    CallLog.Stream st = p.streams().get(s);
    String kind = st.legacy() ? "legacy default stream" : st.perThread() ? "per-thread default stream"
        : st.blocking() ? "stream" : "non-blocking stream";
    return kind + " 0x" + Long.toHexString(st.handle()) + " (device " + st.device() + ", pid " + st.pid() + ")";
  }

  private static String threadName(ReplayProgram.HostThread th) {
    return "host thread " + th.tid() + " (pid " + th.pid() + ")";
  }

  /** Tracks of the threads, their ranges and the streams, as both processes have them. */
  private void programTracks(int pid, ReplayProgram p) throws IOException {
    boolean[] ranged = new boolean[p.threads().size()];
    for (CallLog.Range r : p.ranges()) {
      if (r.thread() >= 0 && r.thread() < ranged.length) {
        ranged[r.thread()] = true;
      }
    }
    for (int t = 0; t < p.threads().size(); t++) {
      meta(pid, 1 + t, "thread_name", threadName(p.threads().get(t)), 2 * t + 1);
      if (ranged[t]) {
        meta(pid, RANGES_TID + t, "thread_name", "NVTX ranges, " + threadName(p.threads().get(t)), 2 * t);
      }
    }
    for (int s = 0; s < p.streams().size(); s++) {
      meta(pid, STREAM_TID + s, "thread_name", streamName(p, s), STREAM_TID + s);
    }
  }

  private void ranges(int pid, List<ProjectedRanges.Slice> ranges) throws IOException {
    for (ProjectedRanges.Slice r : ranges) {
      String name = r.domain() == null || r.domain().isEmpty() ? r.name() : r.domain() + ":" + r.name();
      slice(pid, RANGES_TID + r.thread(), name, r.startNs(), r.endNs(), Map.of());
    }
  }

  private void projected(int pid, ReplayResult r) throws IOException {
    ReplayProgram p = r.program();
    meta(pid, -1, "process_name", "projected on " + r.node().name(), pid);
    programTracks(pid, p);
    Map<String, Integer> engines = new LinkedHashMap<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      if (t.engine().contains(" copy") && !engines.containsKey(t.engine())) {
        engines.put(t.engine(), ENGINE_TID + engines.size());
      }
    }
    for (Map.Entry<String, Integer> e : engines.entrySet()) {
      meta(pid, e.getValue(), "thread_name", e.getKey(), e.getValue());
    }
    List<TransferTracks.Slice> transfers = TransferTracks.of(r);
    for (int k = 0; k < TransferTracks.count(transfers); k++) {
      meta(pid, TRANSFER_TID + k, "thread_name", k == 0 ? "transfers" : "transfers #" + (k + 1), TRANSFER_TID + k);
    }
    ranges(pid, ProjectedRanges.projected(r));
    for (int t = 0; t < p.threads().size(); t++) {
      List<ReplayProgram.Call> calls = p.threads().get(t).calls();
      for (ReplayResult.CallTimes c : r.calls().get(t)) {
        ReplayProgram.Call call = calls.get(c.index());
        slice(pid, 1 + t, call.name(), c.startNs(), c.endNs(), Map.of());
        int op = call.issuedOp();
        if (op >= 0) {
          ReplayResult.OpTimes o = r.ops().get(op);
          int to = p.ops().get(op).stream() >= 0 ? STREAM_TID + p.ops().get(op).stream()
              : engines.getOrDefault(o.engine(), -1);
          if (to >= 0 && !Double.isNaN(o.endNs())) {
            flow(pid, 1 + t, c.startNs(), to, o.startNs());
          }
        }
      }
    }
    for (ReplayResult.OpTimes t : r.ops()) {
      ReplayProgram.Op op = p.ops().get(t.op());
      Map<String, Object> args = new LinkedHashMap<>();
      args.put("op", t.op());
      if (op.bytes() > 0) {
        args.put("bytes", op.bytes());
      }
      if (op.transfer() != null) {
        args.put("kind", op.transfer().key());
      }
      args.put("engine", t.engine());
      if (op.stream() >= 0) {
        slice(pid, STREAM_TID + op.stream(), op.name(), t.startNs(), t.endNs(), args);
      }
      Integer engine = engines.get(t.engine());
      if (engine != null) {
        slice(pid, engine, op.name(), t.startNs(), t.endNs(), Map.of("op", t.op()));
      }
    }
    for (TransferTracks.Slice s : transfers) {
      slice(pid, TRANSFER_TID + s.track(), p.ops().get(s.op()).name(), s.startNs(), s.endNs(),
          Map.of("op", s.op(), "route", String.join(" ", r.route(s.op()))));
    }
    for (ReplayResult.LinkUse u : r.linkUse()) {
      for (double[] pt : u.points()) {
        g.writeStartObject();
        g.writeStringField("ph", "C");
        g.writeNumberField("pid", pid);
        g.writeStringField("name", "link " + u.name());
        g.writeFieldName("ts");
        g.writeNumber(micros(pt[0]));
        g.writeObjectFieldStart("args");
        g.writeFieldName("utilization");
        g.writeNumber(fraction(pt[1]));
        g.writeEndObject();
        g.writeEndObject();
      }
    }
  }

  private void measured(ReplayProgram p) throws IOException {
    long first = p.firstEntryNs();
    meta(MEASURED_PID, -1, "process_name", "measured", MEASURED_PID);
    programTracks(MEASURED_PID, p);
    ranges(MEASURED_PID, ProjectedRanges.measured(p));
    for (int t = 0; t < p.threads().size(); t++) {
      for (ReplayProgram.Call c : p.threads().get(t).calls()) {
        double entry = c.entryNs() - first;
        slice(MEASURED_PID, 1 + t, c.name(), entry, entry + c.durationNs(), Map.of());
        int op = c.issuedOp();
        if (op >= 0 && p.ops().get(op).measured() && p.ops().get(op).stream() >= 0) {
          flow(MEASURED_PID, 1 + t, entry, STREAM_TID + p.ops().get(op).stream(), p.ops().get(op).measuredStartNs() - first);
        }
      }
    }
    for (ReplayProgram.Op op : p.ops()) {
      if (op.measured() && op.stream() >= 0) {
        slice(MEASURED_PID, STREAM_TID + op.stream(), op.name(), op.measuredStartNs() - first,
            op.measuredEndNs() - first, Map.of("op", op.id()));
      }
    }
  }
}
