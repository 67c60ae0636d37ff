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
 * API calls), per stream (its operations) and per copy engine (its copies), and a counter track
 * per link direction (its utilization, 0 to 1); when the trace has measured GPU times, a
 * "measured" process beside them with the measured calls and operations. Times are microseconds
 * from the first call.
 */
public final class ChromeTrace {
  private static final int MEASURED_PID = 999;

  private ChromeTrace() {}

  public static void write(List<ReplayResult> results, OutputStream out) throws IOException {
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("displayTimeUnit", "ns");
      g.writeArrayFieldStart("traceEvents");
      for (int n = 0; n < results.size(); n++) {
        projected(g, n + 1, results.get(n));
      }
      if (!results.isEmpty() && results.get(0).program().measuredMakespanNs() >= 0) {
        measured(g, results.get(0).program());
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  private static void meta(JsonGenerator g, int pid, int tid, String what, String name, int sort) throws IOException {
    g.writeStartObject();
    g.writeStringField("ph", "M");
    g.writeNumberField("pid", pid);
    if (tid >= 0) {
      g.writeNumberField("tid", tid);
    }
    g.writeStringField("name", what);
    g.writeObjectFieldStart("args");
    g.writeStringField("name", name);
    g.writeEndObject();
    g.writeEndObject();
    g.writeStartObject();
    g.writeStringField("ph", "M");
    g.writeNumberField("pid", pid);
    if (tid >= 0) {
      g.writeNumberField("tid", tid);
    }
    g.writeStringField("name", tid >= 0 ? "thread_sort_index" : "process_sort_index");
    g.writeObjectFieldStart("args");
    g.writeNumberField("sort_index", sort);
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void slice(JsonGenerator g, int pid, int tid, String name, double startNs, double endNs,
      Map<String, Object> args) throws IOException {
    if (Double.isNaN(startNs) || Double.isNaN(endNs)) {
      return;
    }
    g.writeStartObject();
    g.writeStringField("ph", "X");
    g.writeNumberField("pid", pid);
    g.writeNumberField("tid", tid);
    g.writeStringField("name", name);
    g.writeNumberField("ts", startNs / 1e3);
    g.writeNumberField("dur", Math.max(0, endNs - startNs) / 1e3);
    if (!args.isEmpty()) {
      g.writeObjectFieldStart("args");
      for (Map.Entry<String, Object> a : args.entrySet()) {
        if (a.getValue() instanceof Number num) {
          g.writeNumberField(a.getKey(), num.doubleValue());
        } else {
          g.writeStringField(a.getKey(), String.valueOf(a.getValue()));
        }
      }
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private static String streamName(ReplayProgram p, int s) {
    CallLog.Stream st = p.streams().get(s);
    String kind = st.legacy() ? "legacy default stream" : st.perThread() ? "per-thread default stream"
        : st.blocking() ? "stream" : "non-blocking stream";
    return kind + " 0x" + Long.toHexString(st.handle()) + " (device " + st.device() + ", pid " + st.pid() + ")";
  }

  private static void projected(JsonGenerator g, int pid, ReplayResult r) throws IOException {
    ReplayProgram p = r.program();
    meta(g, pid, -1, "process_name", "projected on " + r.node().name(), pid);
    for (int t = 0; t < p.threads().size(); t++) {
      ReplayProgram.HostThread th = p.threads().get(t);
      meta(g, pid, 1 + t, "thread_name", "host thread " + th.tid() + " (pid " + th.pid() + ")", 1 + t);
    }
    for (int s = 0; s < p.streams().size(); s++) {
      meta(g, pid, 1000 + s, "thread_name", streamName(p, s), 1000 + s);
    }
    Map<String, Integer> engines = new LinkedHashMap<>();
    for (ReplayResult.OpTimes t : r.ops()) {
      if (t.engine().contains(" copy") && !engines.containsKey(t.engine())) {
        engines.put(t.engine(), 2000 + engines.size());
      }
    }
    for (Map.Entry<String, Integer> e : engines.entrySet()) {
      meta(g, pid, e.getValue(), "thread_name", e.getKey(), e.getValue());
    }
    for (int t = 0; t < p.threads().size(); t++) {
      List<ReplayProgram.Call> calls = p.threads().get(t).calls();
      for (ReplayResult.CallTimes c : r.calls().get(t)) {
        ReplayProgram.Call call = calls.get(c.index());
        slice(g, pid, 1 + t, call.name(), c.startNs(), c.endNs(), Map.of());
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
        slice(g, pid, 1000 + op.stream(), op.name(), t.startNs(), t.endNs(), args);
      }
      Integer engine = engines.get(t.engine());
      if (engine != null) {
        slice(g, pid, engine, op.name(), t.startNs(), t.endNs(), args);
      }
    }
    for (ReplayResult.LinkUse u : r.linkUse()) {
      for (double[] pt : u.points()) {
        g.writeStartObject();
        g.writeStringField("ph", "C");
        g.writeNumberField("pid", pid);
        g.writeStringField("name", "link " + u.name());
        g.writeNumberField("ts", pt[0] / 1e3);
        g.writeObjectFieldStart("args");
        g.writeNumberField("utilization", pt[1]);
        g.writeEndObject();
        g.writeEndObject();
      }
    }
  }

  private static void measured(JsonGenerator g, ReplayProgram p) throws IOException {
    long first = p.firstEntryNs();
    meta(g, MEASURED_PID, -1, "process_name", "measured", MEASURED_PID);
    for (int t = 0; t < p.threads().size(); t++) {
      ReplayProgram.HostThread th = p.threads().get(t);
      meta(g, MEASURED_PID, 1 + t, "thread_name", "host thread " + th.tid() + " (pid " + th.pid() + ")", 1 + t);
      for (ReplayProgram.Call c : th.calls()) {
        slice(g, MEASURED_PID, 1 + t, c.name(), c.entryNs() - first, c.entryNs() + c.durationNs() - first, Map.of());
      }
    }
    for (int s = 0; s < p.streams().size(); s++) {
      meta(g, MEASURED_PID, 1000 + s, "thread_name", streamName(p, s), 1000 + s);
    }
    for (ReplayProgram.Op op : p.ops()) {
      if (op.measured() && op.stream() >= 0) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("op", op.id());
        slice(g, MEASURED_PID, 1000 + op.stream(), op.name(), op.measuredStartNs() - first,
            op.measuredEndNs() - first, args);
      }
    }
  }
}
