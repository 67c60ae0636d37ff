package io.apptrace.jobgraph;

import java.util.ArrayList;
import java.util.List;

/** How the job-graph tests name what a job's graph holds: values as "rRANK:allocA:vK", operations by rank and name. */
final class JobGraphs {
  private JobGraphs() {}

  /** A value of the job as "rRANK:allocA:vK". */
  static String value(JobDvdg g, int v) {
    JobDvdg.RankGraph r = g.ranks().get(g.rankOfValue(v));
    int local = g.localValue(v);
    return "r" + r.rank() + ":alloc" + r.dvdg().values().allocation(local) + ":v" + r.dvdg().values().version(local);
  }

  /** The values the job's operation {@code op} reads. */
  static List<String> reads(JobDvdg g, int op) {
    List<String> in = new ArrayList<>();
    for (int k = 0; k < g.inputCount(op); k++) {
      in.add(value(g, g.input(op, k)));
    }
    return in;
  }

  /** The values the job's operation {@code op} writes. */
  static List<String> writes(JobDvdg g, int op) {
    List<String> out = new ArrayList<>();
    for (int k = 0; k < g.outputCount(op); k++) {
      out.add(value(g, g.output(op, k)));
    }
    return out;
  }

  /** The job's id of the {@code k}-th operation named {@code name} of the rank at index {@code rank}. */
  static int op(JobDvdg g, int rank, String name, int k) {
    JobDvdg.RankGraph r = g.ranks().get(rank);
    int seen = 0;
    for (int local : r.local()) {
      if (r.dvdg().operations().name(local).equals(name) && seen++ == k) {
        return r.jobOperation()[local];
      }
    }
    throw new AssertionError("rank " + rank + " has no " + name + " #" + k);
  }
}
