package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A program being rewritten by what-ifs ({@link WhatIfs}): its operations keep their ids (an
 * operation that is no longer made stays, issued by no call), its calls can be changed and
 * inserted, streams and events added. Which operations changed is kept for the report.
 */
final class ProgramEdit {
  private final ReplayProgram base;
  private final List<ReplayProgram.Op> ops;
  private final List<List<ReplayProgram.Call>> calls = new ArrayList<>();
  private final List<CallLog.Stream> streams;
  private final SortedSet<Integer> changed = new TreeSet<>();
  private final SortedSet<Integer> dropped = new TreeSet<>();
  private final List<ReplayProgram.Managed> managed;
  private int events;

  ProgramEdit(ReplayProgram p) {
    base = p;
    managed = new ArrayList<>(p.managed());
    ops = new ArrayList<>(p.ops());
    streams = new ArrayList<>(p.streams());
    events = p.events();
    for (ReplayProgram.HostThread t : p.threads()) {
      calls.add(new ArrayList<>(t.calls()));
    }
  }

  List<ReplayProgram.Op> ops() {
    return ops;
  }

  ReplayProgram.Op op(int id) {
    return ops.get(id);
  }

  List<CallLog.Stream> streams() {
    return streams;
  }

  int threads() {
    return calls.size();
  }

  List<ReplayProgram.Call> calls(int thread) {
    return calls.get(thread);
  }

  int pid(int thread) {
    return base.threads().get(thread).pid();
  }

  /** Adds operation {@code o}, whose id must be the next one; it is issued by no call until one is inserted. */
  void add(ReplayProgram.Op o) {
    if (o.id() != ops.size()) {
      throw new IllegalArgumentException("operation " + o.id() + " added as the " + ops.size() + "th");
    }
    ops.add(o);
    changed.add(o.id());
  }

  /** What moves managed memory, in program order, to be edited in place. */
  List<ReplayProgram.Managed> managed() {
    return managed;
  }

  /** Replaces an operation (same id). */
  void set(ReplayProgram.Op o) {
    ops.set(o.id(), o);
    changed.add(o.id());
  }

  /**
   * Operation {@code op} is not made: the call that issued it does nothing and takes no time
   * ({@link HostCall.NotMade}; it keeps its measured span, so the host work around it stays).
   */
  void drop(int op) {
    for (List<ReplayProgram.Call> cs : calls) {
      for (int i = 0; i < cs.size(); i++) {
        ReplayProgram.Call c = cs.get(i);
        if (c.issuedOp() == op) {
          cs.set(i, new ReplayProgram.Call(new HostCall.NotMade(), c.entryNs(), c.durationNs(), "not made: " + c.name(),
              0, c.offCpuNs()));
        }
      }
    }
    changed.add(op);
    dropped.add(op);
  }

  /** Inserts {@code c} before the call at {@code index} of {@code thread} (at its end for the size). */
  void insert(int thread, int index, ReplayProgram.Call c) {
    calls.get(thread).add(index, c);
    for (int i = 0; i < managed.size(); i++) {
      if (managed.get(i) instanceof ReplayProgram.Managed.HostSync h && h.thread() == thread && h.call() >= index) {
        managed.set(i, new ReplayProgram.Managed.HostSync(thread, h.call() + 1));
      }
    }
  }

  /** Replaces each call of {@code thread} by the calls {@code expand} gives for it (itself, for none changed). */
  void rewrite(int thread, java.util.function.Function<ReplayProgram.Call, List<ReplayProgram.Call>> expand) {
    List<ReplayProgram.Call> old = calls.get(thread);
    List<ReplayProgram.Call> out = new ArrayList<>(old.size());
    int[] newIndex = new int[old.size()];
    for (int i = 0; i < old.size(); i++) {
      List<ReplayProgram.Call> x = expand.apply(old.get(i));
      int at = x.indexOf(old.get(i));
      newIndex[i] = out.size() + Math.max(0, at);
      out.addAll(x);
    }
    calls.set(thread, out);
    for (int i = 0; i < managed.size(); i++) {
      if (managed.get(i) instanceof ReplayProgram.Managed.HostSync h && h.thread() == thread && h.call() >= 0
          && h.call() < newIndex.length) {
        managed.set(i, new ReplayProgram.Managed.HostSync(thread, newIndex[h.call()]));
      }
    }
  }

  boolean isDropped(int op) {
    return dropped.contains(op);
  }

  /** {thread, index} of the call that issues each operation; null for one no call issues. */
  int[][] issuers() {
    int[][] out = new int[ops.size()][];
    for (int t = 0; t < calls.size(); t++) {
      List<ReplayProgram.Call> cs = calls.get(t);
      for (int i = 0; i < cs.size(); i++) {
        int op = cs.get(i).issuedOp();
        if (op >= 0 && op < out.length) {
          out[op] = new int[] {t, i};
        }
      }
    }
    return out;
  }

  /** A new non-blocking stream of process {@code pid} on trace device {@code device}. */
  int newStream(int pid, int device) {
    streams.add(new CallLog.Stream(pid, device, false, false, false, -1 - streams.size()));
    return streams.size() - 1;
  }

  int newEvent() {
    return events++;
  }

  /** The operations changed, dropped included. */
  SortedSet<Integer> changed() {
    return changed;
  }

  /** An operation's copy with another transfer kind, size, stream or synchrony; a changed size or kind loses its measured times. */
  static ReplayProgram.Op with(ReplayProgram.Op o, TransferKind transfer, long bytes, int stream, boolean synchronous) {
    boolean sameWork = transfer == o.transfer() && bytes == o.bytes();
    return new ReplayProgram.Op(o.id(), o.kind(), o.name(), stream, o.device(), o.peerDevice(), transfer, bytes,
        o.numa(), sameWork ? o.measuredStartNs() : -1, sameWork ? o.measuredEndNs() : -1,
        o.kind() == ReplayProgram.Kind.KERNEL ? o.touchedBytes() : bytes, o.mappedReadBytes(), o.mappedWriteBytes(),
        o.blocks(), synchronous, o.launch());
  }

  ReplayProgram build() {
    List<ReplayProgram.HostThread> threads = new ArrayList<>();
    for (int t = 0; t < calls.size(); t++) {
      ReplayProgram.HostThread h = base.threads().get(t);
      threads.add(new ReplayProgram.HostThread(h.pid(), h.tid(), calls.get(t)));
    }
    List<ReplayProgram.Managed> kept = new ArrayList<>();
    for (ReplayProgram.Managed m : managed) {
      if (!(m instanceof ReplayProgram.Managed.Access a && dropped.contains(a.op()))) {
        kept.add(m);
      }
    }
    return new ReplayProgram(ops, streams, threads, events, base.provenance(), base.sourceDevices())
        .withAnnotations(base.ranges(), base.marks()).withContextsBefore(base.contextsBefore()).withManaged(kept);
  }
}
