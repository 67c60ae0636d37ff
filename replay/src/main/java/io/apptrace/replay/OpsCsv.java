package io.apptrace.replay;

import java.io.IOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code --ops-csv}: one row per operation and node with its projected times (docs/REPLAY.md):
 * {@code op_id,kind,name,thread,stream,bytes,start_ns,end_ns,duration_ns,engine,transfer,issue_ns,
 * measured_start_ns,measured_end_ns,priced,node,slack_ns}. Times are nanoseconds from the first
 * call; a measured time is from the trace's first call too, empty when not measured; {@code
 * slack_ns} is how much later the operation could end before the makespan grows ({@link Slack}).
 */
public final class OpsCsv {
  public static final String HEADER = "op_id,kind,name,thread,stream,bytes,start_ns,end_ns,duration_ns,engine,"
      + "transfer,issue_ns,measured_start_ns,measured_end_ns,priced,node,slack_ns";

  private OpsCsv() {}

  public static void write(List<ReplayResult> results, Writer out) throws IOException {
    out.write(HEADER);
    out.write('\n');
    for (ReplayResult r : results) {
      ReplayProgram p = r.program();
      int[] thread = threads(p);
      long first = p.firstEntryNs();
      StringBuilder line = new StringBuilder(160);
      for (ReplayResult.OpTimes t : r.ops()) {
        ReplayProgram.Op op = p.ops().get(t.op());
        line.setLength(0);
        line.append(t.op()).append(',').append(op.kind().name().toLowerCase(Locale.ROOT)).append(',');
        quote(line, op.name());
        line.append(',').append(thread[t.op()]).append(',').append(op.stream()).append(',').append(op.bytes()).append(',');
        ns(line, t.startNs());
        line.append(',');
        ns(line, t.endNs());
        line.append(',');
        ns(line, t.endNs() - t.startNs());
        line.append(',');
        quote(line, t.engine());
        line.append(',').append(op.transfer() == null ? "" : op.transfer().key()).append(',');
        ns(line, t.issueNs());
        line.append(',');
        if (op.measured()) {
          line.append(op.measuredStartNs() - first).append(',').append(op.measuredEndNs() - first);
        } else {
          line.append(',');
        }
        line.append(',').append(r.lowerBound(t.op()) ? "lower-bound" : r.modelled(t.op()) ? "model" : "measured");
        line.append(',');
        quote(line, r.node().name());
        line.append(',');
        ns(line, t.slackNs());
        line.append('\n');
        out.write(line.toString());
      }
    }
  }

  /** The host thread that issued each operation. */
  static int[] threads(ReplayProgram p) {
    int[] thread = new int[p.ops().size()];
    Arrays.fill(thread, -1);
    for (int t = 0; t < p.threads().size(); t++) {
      for (ReplayProgram.Call c : p.threads().get(t).calls()) {
        for (int op : c.issuedOps()) {
          if (op < thread.length) {
            thread[op] = t;
          }
        }
      }
    }
    return thread;
  }

  private static void ns(StringBuilder b, double v) {
    if (Double.isNaN(v)) {
      return;
    }
    b.append(Math.round(v));
  }

  static void quote(StringBuilder b, String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
      b.append(s);
      return;
    }
    b.append('"').append(s.replace("\"", "\"\"")).append('"');
  }
}
