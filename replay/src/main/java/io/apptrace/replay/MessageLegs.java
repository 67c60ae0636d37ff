package io.apptrace.replay;

import io.apptrace.cost.MessageCost;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The copies a job's messages make on one node's links (docs/JOBS.md, "Messages on the node's
 * links"): a GPU-to-GPU exchange between two ranks of the node, the staging copies of a device
 * buffer sent or received without GPUDirect RDMA. Each is a copy operation of the node's replay,
 * on no stream (the MPI library's copies wait for nothing of the program's), issued by a thread of
 * the node's MPI library at the time the network's replay says it starts, so that it shares the
 * node's links and copy engines with the ranks' own copies; how long it took there is what the
 * network's replay takes for it the next time ({@link JobReplay#withLegs}).
 */
final class MessageLegs {
  /** The name of the calls that issue the legs: no CUDA call of the program's, and no host cost of its own. */
  static final String CALL = "(MPI library copy)";

  /**
   * A leg of a message.
   *
   * @param message the message's index among the job's ({@link JobMatching#messages()})
   * @param index the leg's index among the message's legs
   * @param leg what it copies, where
   */
  record Ref(int message, int index, MessageCost.Leg leg) {}

  private final List<Ref> refs;
  private final int firstOp;
  private final int thread;

  private MessageLegs(List<Ref> refs, int firstOp, int thread) {
    this.refs = List.copyOf(refs);
    this.firstOp = firstOp;
    this.thread = thread;
  }

  /** A program with the legs' operations and the thread that will issue them. */
  record Added(ReplayProgram program, MessageLegs legs) {}

  /**
   * Adds {@code refs}' copies to {@code p} (a node's merged program, its devices the node's GPUs),
   * with a thread of a process of its own that issues none of them yet ({@link #calls}).
   */
  static Added add(ReplayProgram p, List<Ref> refs) {
    List<ReplayProgram.Op> ops = new ArrayList<>(p.ops());
    int first = ops.size();
    for (Ref r : refs) {
      MessageCost.Leg l = r.leg();
      ops.add(new ReplayProgram.Op(ops.size(), ReplayProgram.Kind.COPY, "MPI message " + r.message(), -1, l.srcGpu(),
          l.kind() == TransferKind.PEER ? l.dstGpu() : -1, l.kind(), l.bytes(), -1, -1, -1, l.bytes(), 0, 0, 0,
          false));
    }
    Set<Integer> pids = new HashSet<>();
    p.threads().forEach(t -> pids.add(t.pid()));
    p.streams().forEach(s -> pids.add(s.pid()));
    pids.addAll(p.contextsBefore());
    int pid = 1;
    while (pids.contains(pid)) {
      pid++;
    }
    List<ReplayProgram.HostThread> threads = new ArrayList<>(p.threads());
    threads.add(new ReplayProgram.HostThread(pid, 0, List.of()));
    Set<Integer> contexts = new HashSet<>(p.contextsBefore());
    contexts.add(pid); // the MPI library's context exists: its copies create none
    ReplayProgram out = new ReplayProgram(ops, p.streams(), threads, p.events(), p.provenance(), p.sourceDevices())
        .withAnnotations(p.ranges(), p.marks()).withContextsBefore(contexts).withManaged(p.managed());
    return new Added(out, new MessageLegs(refs, first, threads.size() - 1));
  }

  /**
   * The legs of the job's messages ({@code matched}) that run on node {@code node}, priced by
   * {@code cost} ({@code prices} keeps each price by its ends and size).
   */
  static List<Ref> on(int node, JobMatching matched, MessageCost cost, java.util.Map<List<Object>, MessageCost.Price> prices)
      throws io.apptrace.node.NodeFileException {
    io.apptrace.node.Cluster c = cost.cluster();
    List<Ref> out = new ArrayList<>();
    List<io.apptrace.job.Message> ms = matched.messages();
    for (int i = 0; i < ms.size(); i++) {
      io.apptrace.job.Message m = ms.get(i);
      if (c.nodeOf(m.source()) != node && c.nodeOf(m.dest()) != node) {
        continue;
      }
      List<Object> key = List.of(m.source(), m.dest(), m.bytes(), m.sendDevice(), m.recvDevice());
      MessageCost.Price p = prices.get(key);
      if (p == null) {
        p = cost.of(m.source(), m.dest(), m.bytes(), m.sendDevice(), m.recvDevice());
        prices.put(key, p);
      }
      for (int l = 0; l < p.legs().size(); l++) {
        if (p.legs().get(l).node() == node) {
          out.add(new Ref(i, l, p.legs().get(l)));
        }
      }
    }
    return out;
  }

  /** When each leg starts on the node's clock, as {@code network} replayed it; job time 0 is {@code zeroNs} there. */
  double[] startsNs(JobReplay network, double zeroNs) {
    double[] out = new double[refs.size()];
    for (int k = 0; k < out.length; k++) {
      out[k] = zeroNs + network.legStart(refs.get(k).message(), refs.get(k).index()) * 1e9;
    }
    return out;
  }

  /** Writes how long each leg took on the node ({@code seconds}, per {@link #refs()}) into {@code perMessage}. */
  void took(double[] seconds, double[][] perMessage) {
    for (int k = 0; k < refs.size(); k++) {
      Ref r = refs.get(k);
      if (perMessage[r.message()] == null) {
        perMessage[r.message()] = new double[r.index() + 1];
        Arrays.fill(perMessage[r.message()], Double.NaN);
      } else if (perMessage[r.message()].length <= r.index()) {
        int n = perMessage[r.message()].length;
        perMessage[r.message()] = Arrays.copyOf(perMessage[r.message()], r.index() + 1);
        Arrays.fill(perMessage[r.message()], n, r.index() + 1, Double.NaN);
      }
      perMessage[r.message()][r.index()] = seconds[k];
    }
  }

  List<Ref> refs() {
    return refs;
  }

  /** The program's thread that issues the legs. */
  int thread() {
    return thread;
  }

  /** The program's operation of leg {@code k} (its index in {@link #refs()}). */
  int op(int k) {
    return firstOp + k;
  }

  /**
   * The issuing thread's calls: each leg that starts ({@code startNs[k]}, the node's clock; NaN:
   * never) held until then, then issued, in the order of their starts.
   */
  List<ReplayProgram.Call> calls(double[] startNs) {
    Integer[] order = new Integer[refs.size()];
    Arrays.setAll(order, k -> k);
    Arrays.sort(order, Comparator.comparingDouble(k -> startNs[k]));
    List<ReplayProgram.Call> out = new ArrayList<>();
    for (int k : order) {
      if (Double.isNaN(startNs[k])) {
        continue;
      }
      // at entry 0 with no host time between them: each is held until its start, not for a gap
      long at = Math.max(0, Math.round(startNs[k]));
      out.add(new ReplayProgram.Call(new HostCall.Held(at), 0, 0, CALL));
      out.add(new ReplayProgram.Call(new HostCall.IssueOp(op(k), -1), 0, 0, CALL));
    }
    return out;
  }
}
