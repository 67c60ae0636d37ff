package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.trace.SourceGpu;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The ranks a cluster places on one node, as one program (docs/JOBS.md, "Replay on a cluster"), so
 * that one node replay shares the node's links, host memory and GPUs between them: their programs
 * merged, each rank's operations, streams, events, threads and managed allocations numbered after
 * the previous rank's; each rank a process of its own (a pid another rank of the node also used is
 * renumbered); each rank's GPU the one the cluster maps it to (a rank whose program uses one device
 * runs it on {@link Cluster#gpuOf}; one that uses several keeps their numbers; {@code deviceMap},
 * when given, maps every rank's devices), two ranks on one GPU sharing its engines; and each rank's
 * clock moved so that its first call is at 0 (the ranks start together, as a launcher starts them).
 * It keeps where each rank's threads, operations and MPI calls are in the merged program.
 */
final class NodeRanks {
  private final List<RankTrace> ranks;
  private final ReplayProgram program;
  private final int[] threadBase;
  private final int[] opBase;
  /** Per rank (in {@link #ranks}' order), per MPI call: {merged thread, index among its calls}. */
  private final int[][][] mpiAt;
  /** Per rank, per NCCL launch ({@link NcclLaunches}): {merged thread, index among its calls, operation}. */
  private final int[][][] ncclAt;
  private final List<List<NcclLaunches.Launch>> launches;
  private final boolean sharesNothing;
  /** The job's messages' copies on the node's links, in its program (null: none). */
  private final MessageLegs legs;

  private NodeRanks(List<RankTrace> ranks, ReplayProgram program, int[] threadBase, int[] opBase, int[][][] mpiAt,
      int[][][] ncclAt, List<List<NcclLaunches.Launch>> launches) {
    this(ranks, program, threadBase, opBase, mpiAt, ncclAt, launches, null);
  }

  private NodeRanks(List<RankTrace> ranks, ReplayProgram program, int[] threadBase, int[] opBase, int[][][] mpiAt,
      int[][][] ncclAt, List<List<NcclLaunches.Launch>> launches, MessageLegs legs) {
    this.legs = legs;
    this.ranks = List.copyOf(ranks);
    this.program = program;
    this.threadBase = threadBase;
    this.opBase = opBase;
    this.mpiAt = mpiAt;
    this.ncclAt = ncclAt;
    this.launches = List.copyOf(launches);
    this.sharesNothing = sharesNothing(program, threadBase, opBase)
        && launches.stream().allMatch(List::isEmpty) // NCCL's work waits for other ranks on the GPUs
        && legs == null; // the messages' copies share the node's links with the ranks' copies
  }

  /**
   * Whether a rank of the node does work on its links or host memory (copies, kernels that reach
   * host memory, managed memory): what the messages' copies would share the links with.
   */
  boolean linkWork() {
    if (!program.managed().isEmpty()) {
      return true;
    }
    for (int op = opBase[0]; op < opBase[ranks.size()]; op++) {
      if (onLinks(program.ops().get(op))) {
        return true;
      }
    }
    return false;
  }

  /** Whether an operation moves data over the node's links: a copy, a kernel that reaches host memory. */
  private static boolean onLinks(ReplayProgram.Op o) {
    return o.kind() == ReplayProgram.Kind.COPY || o.mappedReadBytes() > 0 || o.mappedWriteBytes() > 0;
  }

  /** These ranks with the job's messages' copies {@code refs} on the node's links ({@link MessageLegs}). */
  NodeRanks withLegs(List<MessageLegs.Ref> refs) {
    if (refs.isEmpty()) {
      return this;
    }
    MessageLegs.Added a = MessageLegs.add(program, refs);
    return new NodeRanks(ranks, a.program(), threadBase, opBase, mpiAt, ncclAt, launches, a.legs());
  }

  /** The messages' copies in the program (null: none). */
  MessageLegs legs() {
    return legs;
  }

  /**
   * Whether the node's ranks share nothing the node replay shares and each has one host thread:
   * each rank its own GPUs, and at most one rank with work on the node's links or host memory
   * (copies, kernels that reach host memory, managed memory), so that holding one rank's thread
   * longer moves only that rank's later work.
   */
  private static boolean sharesNothing(ReplayProgram p, int[] threadBase, int[] opBase) {
    int onLinks = p.managed().isEmpty() ? 0 : 2;
    Map<Integer, Integer> gpuOwner = new HashMap<>();
    for (int k = 0; k + 1 < threadBase.length; k++) {
      if (threadBase[k + 1] - threadBase[k] > 1) {
        return false;
      }
      boolean links = false;
      for (int op = opBase[k]; op < opBase[k + 1]; op++) {
        ReplayProgram.Op o = p.ops().get(op);
        links |= onLinks(o);
        if (gpuOwner.getOrDefault(o.device(), k) != k || o.peerDevice() >= 0
            && gpuOwner.getOrDefault(o.peerDevice(), k) != k) {
          return false;
        }
        gpuOwner.put(o.device(), k);
        if (o.peerDevice() >= 0) {
          gpuOwner.put(o.peerDevice(), k);
        }
      }
      onLinks += links ? 1 : 0;
    }
    return onLinks <= 1;
  }


  /**
   * Merges {@code programs}, the programs of {@code ranks}' traces (in the same order), all placed on
   * one node of {@code cluster}.
   *
   * @throws ReplayException when an MPI call of a rank is not among its program's calls
   */
  static NodeRanks of(List<RankTrace> ranks, List<ReplayProgram> programs, Cluster cluster,
      Map<Integer, Integer> deviceMap) throws ReplayException {
    try {
      return of(ranks, t -> programs.get(ranks.indexOf(t)), cluster, deviceMap);
    } catch (java.io.IOException | io.apptrace.trace.TraceException e) {
      throw new IllegalStateException(e); // the programs are given: nothing is read
    }
  }

  /** Where a rank's program comes from (its trace, read when the merge comes to it). */
  interface Programs {
    ReplayProgram of(RankTrace t) throws java.io.IOException, io.apptrace.trace.TraceException;
  }

  /**
   * Merges the programs of {@code ranks}, each taken from {@code programs} in turn (and dropped once
   * merged), with every MPI call held not at all ({@link HostCall.Held} until 0), and the work of
   * each NCCL launch ({@link NcclLaunches}) an operation of its own on its stream
   * ({@link ReplayProgram.Kind#COLLECTIVE}), issued by the call that launches it, held until 0.
   */
  static NodeRanks of(List<RankTrace> ranks, Programs programs, Cluster cluster, Map<Integer, Integer> deviceMap)
      throws ReplayException, java.io.IOException, io.apptrace.trace.TraceException {
    int n = ranks.size();
    List<ReplayProgram.Op> ops = new ArrayList<>();
    List<CallLog.Stream> streams = new ArrayList<>();
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    List<CallLog.Range> ranges = new ArrayList<>();
    List<CallLog.Mark> marks = new ArrayList<>();
    List<ReplayProgram.Managed> managed = new ArrayList<>();
    Set<Integer> contexts = new HashSet<>();
    Map<Integer, SourceGpu> sources = new TreeMap<>();
    Set<Integer> pidsUsed = new HashSet<>();
    int[] threadBase = new int[n + 1];
    int[] opBase = new int[n + 1];
    int[][][] mpiAt = new int[n][][];
    int[][][] ncclAt = new int[n][][];
    List<List<NcclLaunches.Launch>> launches = new ArrayList<>();
    int events = 0;
    int allocations = 0;
    boolean simulated = false;
    long pinnedBytes = 0;
    long pinNs = 0;
    for (int k = 0; k < n; k++) {
      RankTrace rank = ranks.get(k);
      ReplayProgram p = programs.of(rank);
      int[][] at = RankOnNode.positions(rank, p);
      Map<Integer, Integer> pid = pids(p, pidsUsed);
      Map<Integer, Integer> device = devices(p, rank.rank(), cluster, deviceMap);
      long shift = -p.firstEntryNs();
      int ob = ops.size();
      int sb = streams.size();
      int eb = events;
      int tb = threads.size();
      int ab = allocations;
      threadBase[k] = tb;
      opBase[k] = ob;
      for (ReplayProgram.Op o : p.ops()) {
        ops.add(new ReplayProgram.Op(o.id() + ob, o.kind(), o.name(), o.stream() + sb, dev(device, o.device()),
            dev(device, o.peerDevice()), o.transfer(), o.bytes(), o.numa(), moved(o.measuredStartNs(), shift),
            moved(o.measuredEndNs(), shift), o.touchedBytes(), o.mappedReadBytes(), o.mappedWriteBytes(), o.blocks(),
            o.synchronous(), o.launch()));
      }
      for (CallLog.Stream s : p.streams()) {
        streams.add(new CallLog.Stream(pid.get(s.pid()), dev(device, s.device()), s.legacy(), s.blocking(),
            s.perThread(), s.handle()));
      }
      List<List<ReplayProgram.Call>> rankCalls = new ArrayList<>();
      for (ReplayProgram.HostThread t : p.threads()) {
        List<ReplayProgram.Call> calls = new ArrayList<>(t.calls().size());
        for (ReplayProgram.Call c : t.calls()) {
          calls.add(new ReplayProgram.Call(renumbered(c.what(), ob, sb, eb, device), c.entryNs() + shift,
              c.durationNs(), c.name(), c.bytes(), c.offCpuNs()));
        }
        rankCalls.add(calls);
      }
      for (int[] x : at) {
        rankCalls.get(x[0]).set(x[1], held(rankCalls.get(x[0]).get(x[1]), 0));
      }
      List<NcclLaunches.Launch> rankLaunches = NcclLaunches.of(rank, p);
      int[][] nat = new int[rankLaunches.size()][];
      for (int j = 0; j < rankLaunches.size(); j++) {
        NcclLaunches.Launch l = rankLaunches.get(j);
        int s = NcclLaunches.stream(p, l, streams, sb, pid.getOrDefault(l.pid(), l.pid()),
            dev(device, p.devices().isEmpty() ? 0 : p.devices().get(0)));
        int op = ops.size();
        ops.add(new ReplayProgram.Op(op, ReplayProgram.Kind.COLLECTIVE, l.name(), s, streams.get(s).device(), -1, null,
            l.bytes(), -1, -1, -1, 0, 0, 0, 0, false));
        ReplayProgram.Call c = rankCalls.get(l.thread()).get(l.call());
        rankCalls.get(l.thread()).set(l.call(), new ReplayProgram.Call(new HostCall.IssueOp(op, s, 0), c.entryNs(),
            c.durationNs(), c.name(), 0, c.offCpuNs()));
        nat[j] = new int[] {l.thread() + tb, l.call(), op};
      }
      ncclAt[k] = nat;
      launches.add(rankLaunches);
      for (int t = 0; t < p.threads().size(); t++) {
        ReplayProgram.HostThread h = p.threads().get(t);
        threads.add(new ReplayProgram.HostThread(pid.get(h.pid()), h.tid(), rankCalls.get(t)));
      }
      for (CallLog.Range r : p.ranges()) {
        ranges.add(new CallLog.Range(r.thread() + tb, r.name(), r.domain(), r.startNs() + shift, r.endNs() + shift));
      }
      for (CallLog.Mark m : p.marks()) {
        marks.add(new CallLog.Mark(m.thread() + tb, m.name(), m.domain(), m.ns() + shift));
      }
      for (ReplayProgram.Managed m : p.managed()) {
        if (m instanceof ReplayProgram.Managed.Access a) {
          managed.add(new ReplayProgram.Managed.Access(a.op() < 0 ? a.op() : a.op() + ob, a.allocation() + ab,
              a.bytes(), a.allocationBytes(), dev(device, a.device()), a.prefetch(), a.writes()));
          allocations = Math.max(allocations, a.allocation() + ab + 1);
        } else if (m instanceof ReplayProgram.Managed.HostSync h) {
          managed.add(new ReplayProgram.Managed.HostSync(h.thread() + tb, h.call()));
        }
      }
      p.contextsBefore().forEach(x -> contexts.add(pid.get(x)));
      p.sourceDevices().forEach((d, g) -> sources.putIfAbsent(dev(device, d), g));
      events += p.events();
      simulated |= p.provenance().simulated();
      pinnedBytes += p.provenance().pinnedBytes();
      pinNs += p.provenance().pinNs();
      for (int[] x : at) {
        x[0] += tb;
      }
      mpiAt[k] = at;
    }
    threadBase[n] = threads.size();
    opBase[n] = ops.size();
    ReplayProgram merged = new ReplayProgram(ops, streams, threads, events,
        new ReplayProgram.Provenance(simulated, pinnedBytes, pinNs), sources).withAnnotations(ranges, marks)
        .withContextsBefore(contexts).withManaged(managed);
    return new NodeRanks(ranks, merged, threadBase, opBase, mpiAt, ncclAt, launches);
  }

  /** A rank's pids: its own, unless another rank of the node used them first. */
  private static Map<Integer, Integer> pids(ReplayProgram p, Set<Integer> used) {
    Set<Integer> mine = new java.util.TreeSet<>();
    p.threads().forEach(t -> mine.add(t.pid()));
    p.streams().forEach(s -> mine.add(s.pid()));
    mine.addAll(p.contextsBefore());
    Map<Integer, Integer> out = new HashMap<>();
    for (int pid : mine) {
      int to = pid;
      while (used.contains(to)) {
        to = to == Integer.MAX_VALUE ? 1 : to + 1;
      }
      used.add(to);
      out.put(pid, to);
    }
    return out;
  }

  /** Trace device to the node GPU the rank's work runs on. */
  private static Map<Integer, Integer> devices(ReplayProgram p, int rank, Cluster cluster,
      Map<Integer, Integer> deviceMap) {
    if (!deviceMap.isEmpty()) {
      return deviceMap;
    }
    List<Integer> used = p.devices();
    return used.size() == 1 ? Map.of(used.get(0), cluster.gpuOf(rank)) : Map.of();
  }

  private static int dev(Map<Integer, Integer> device, int d) {
    return d < 0 ? d : device.getOrDefault(d, d);
  }

  private static long moved(long ns, long shift) {
    return ns < 0 ? ns : ns + shift;
  }

  /** A call's work with the merged program's numbers. */
  private static HostCall renumbered(HostCall what, int ob, int sb, int eb, Map<Integer, Integer> device) {
    if (what instanceof HostCall.IssueOp i) {
      return new HostCall.IssueOp(i.op() + ob, i.stream() + sb, i.untilNs());
    } else if (what instanceof HostCall.SyncStream x) {
      return new HostCall.SyncStream(x.stream() + sb);
    } else if (what instanceof HostCall.SyncEvent x) {
      return new HostCall.SyncEvent(x.event() + eb);
    } else if (what instanceof HostCall.SyncDevice x) {
      return new HostCall.SyncDevice(dev(device, x.device()));
    } else if (what instanceof HostCall.SyncSomeStreams x) {
      return new HostCall.SyncSomeStreams(dev(device, x.device()));
    } else if (what instanceof HostCall.RecordEvent x) {
      return new HostCall.RecordEvent(x.stream() + sb, x.event() + eb);
    } else if (what instanceof HostCall.WaitEvent x) {
      return new HostCall.WaitEvent(x.stream() + sb, x.event() + eb);
    } else if (what instanceof HostCall.LaunchGraph g) {
      HostCall.LaunchGraph moved = g.renumbered(op -> op + ob);
      return new HostCall.LaunchGraph(g.stream() + sb, moved.ops(), moved.waitsFor(), g.whatIf());
    }
    return what; // host work, a call not made, a held call: nothing to renumber
  }

  /** Whether the ranks share none of the node's links, host memory or GPUs, and each has one thread. */
  boolean sharesNothing() {
    return sharesNothing;
  }

  /** The merged program. */
  ReplayProgram program() {
    return program;
  }

  /** The node's ranks, in the merged program's order. */
  List<RankTrace> ranks() {
    return ranks;
  }

  /** The merged program's threads of rank {@code k} (its index in {@link #ranks()}): [from, to). */
  int firstThread(int k) {
    return threadBase[k];
  }

  int endThread(int k) {
    return threadBase[k + 1];
  }

  /** The merged program's operations of rank {@code k}: [from, to). */
  int firstOp(int k) {
    return opBase[k];
  }

  int endOp(int k) {
    return opBase[k + 1];
  }

  /** Rank {@code k}'s NCCL launches, in the order it made them. */
  List<NcclLaunches.Launch> launches(int k) {
    return launches.get(k);
  }

  /** The merged program's operation of rank {@code k}'s NCCL launch {@code j}. */
  int ncclOp(int k, int j) {
    return ncclAt[k][j][2];
  }

  /** Where rank {@code k}'s MPI call {@code call} is: {merged thread, index among its calls}. */
  int[] mpiCall(int k, int call) {
    return mpiAt[k][call];
  }

  /** An MPI call held until {@code ns} on the node's clock. */
  private static ReplayProgram.Call held(ReplayProgram.Call c, long ns) {
    return new ReplayProgram.Call(new HostCall.Held(ns), c.entryNs(), c.durationNs(), c.name(), 0, c.offCpuNs());
  }

  /**
   * The merged program with rank {@code k}'s MPI call {@code i} held until {@code heldNs[k][i]}
   * ({@link HostCall.Held}), and its NCCL launch {@code j}'s operation until {@code ncclNs[k][j]}
   * ({@link HostCall.IssueOp#untilNs()}), and the messages' copies issued at {@code legStartNs} (per
   * {@link MessageLegs#refs()}, the node's clock; NaN: not sent; null: none sent).
   */
  ReplayProgram held(long[][] heldNs, long[][] ncclNs, double[] legStartNs) {
    if (zero(heldNs) && zero(ncclNs) && legStartNs == null) {
      return program; // as merged
    }
    ProgramEdit edit = new ProgramEdit(program);
    if (legs != null && legStartNs != null) {
      edit.calls(legs.thread()).addAll(legs.calls(legStartNs));
    }
    for (int k = 0; k < ranks.size(); k++) {
      for (int i = 0; i < mpiAt[k].length; i++) {
        int[] at = mpiAt[k][i];
        List<ReplayProgram.Call> cs = edit.calls(at[0]);
        cs.set(at[1], held(cs.get(at[1]), heldNs[k][i]));
      }
      for (int j = 0; j < ncclAt[k].length; j++) {
        int[] at = ncclAt[k][j];
        List<ReplayProgram.Call> cs = edit.calls(at[0]);
        ReplayProgram.Call c = cs.get(at[1]);
        HostCall.IssueOp issue = (HostCall.IssueOp) c.what();
        cs.set(at[1], new ReplayProgram.Call(new HostCall.IssueOp(issue.op(), issue.stream(), ncclNs[k][j]),
            c.entryNs(), c.durationNs(), c.name(), c.bytes(), c.offCpuNs()));
      }
    }
    return edit.build();
  }

  private static boolean zero(long[][] ns) {
    return java.util.Arrays.stream(ns).allMatch(h -> java.util.Arrays.stream(h).allMatch(x -> x == 0));
  }
}
