package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.List;

/**
 * What a replay runs, independent of any node: the operations (copies, memsets, kernels) with
 * what pricing them needs, the streams they run on, and each host thread's API calls in order
 * with their measured times. Built from a trace's graph and call log ({@link ProgramBuilder}), or
 * directly by tests.
 */
public final class ReplayProgram {
  /** What an operation is. */
  public enum Kind {
    COPY, MEMSET, KERNEL
  }

  /**
   * An operation.
   *
   * @param transfer for a copy, its kind (pinned_h2d, ...); null for a host-to-host copy, which the
   *     calling thread does itself
   * @param device the device it runs on, as the trace numbers devices
   * @param peerDevice a GPU-to-GPU copy's destination device (else -1)
   * @param numa the NUMA node of a copy's host memory when the trace knows it, else -1
   * @param measuredStartNs GPU start when measured (CUPTI, imports), else -1
   * @param measuredEndNs GPU end when measured, else -1
   * @param touchedBytes a kernel's bytes through its pointer arguments (for the lower-bound
   *     estimate of docs/COST-MODEL.md); a memset's bytes
   * @param mappedReadBytes bytes a kernel reads from host memory it reaches directly (mapped or
   *     page-locked memory: zero-copy, van Werkhoven et al. 2014, eq. 6)
   * @param mappedWriteBytes bytes it writes there
   * @param blocks a kernel's thread blocks (grid x * y * z), 0 when unknown
   * @param synchronous the call returns only when the operation is done (cudaMemcpy)
   */
  public record Op(int id, Kind kind, String name, int stream, int device, int peerDevice, TransferKind transfer,
      long bytes, int numa, long measuredStartNs, long measuredEndNs, double touchedBytes, double mappedReadBytes,
      double mappedWriteBytes, long blocks, boolean synchronous) {
    public boolean measured() {
      return measuredStartNs >= 0 && measuredEndNs >= measuredStartNs;
    }

    public long measuredDurationNs() {
      return measured() ? measuredEndNs - measuredStartNs : -1;
    }
  }

  /**
   * One API call of a host thread.
   *
   * @param a, b the call's arguments as {@link CallLog.Type} says (for OP: the operation and its
   *     stream)
   */
  public record Call(CallLog.Type type, long entryNs, long durationNs, int a, int b, String name) {}

  /** A host thread: a process, a thread id, and its calls in issue order. */
  public record Thread(int pid, int tid, List<Call> calls) {
    public Thread {
      calls = List.copyOf(calls);
    }
  }

  /**
   * Where the program came from.
   *
   * @param simulated taken on the simulated device: its host times are real, its GPU is not
   * @param pinnedBytes bytes of page-locked host memory the program allocated or registered
   * @param pinNs the time its pinning calls took (cudaHostAlloc, cudaMallocHost, cudaHostRegister)
   */
  public record Provenance(boolean simulated, long pinnedBytes, long pinNs) {
    public static final Provenance NONE = new Provenance(false, 0, 0);
  }

  private final List<Op> ops;
  private final List<CallLog.Stream> streams;
  private final List<Thread> threads;
  private final int events;
  private final Provenance provenance;

  public ReplayProgram(List<Op> ops, List<CallLog.Stream> streams, List<Thread> threads, int events) {
    this(ops, streams, threads, events, Provenance.NONE);
  }

  public ReplayProgram(List<Op> ops, List<CallLog.Stream> streams, List<Thread> threads, int events,
      Provenance provenance) {
    this.provenance = provenance;
    this.ops = List.copyOf(ops);
    this.streams = List.copyOf(streams);
    this.threads = List.copyOf(threads);
    this.events = events;
    for (int i = 0; i < this.ops.size(); i++) {
      if (this.ops.get(i).id() != i) {
        throw new IllegalArgumentException("operation " + i + " has id " + this.ops.get(i).id());
      }
    }
  }

  public List<Op> ops() {
    return ops;
  }

  public List<CallLog.Stream> streams() {
    return streams;
  }

  public List<Thread> threads() {
    return threads;
  }

  public int events() {
    return events;
  }

  public Provenance provenance() {
    return provenance;
  }

  /** The trace devices the program uses. */
  public List<Integer> devices() {
    List<Integer> out = new ArrayList<>();
    for (Op o : ops) {
      for (int d : new int[] {o.device(), o.peerDevice()}) {
        if (d >= 0 && !out.contains(d)) {
          out.add(d);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** The earliest measured call entry: where the measured timeline starts. */
  public long firstEntryNs() {
    long first = Long.MAX_VALUE;
    for (Thread t : threads) {
      if (!t.calls().isEmpty()) {
        first = Math.min(first, t.calls().get(0).entryNs());
      }
    }
    return first == Long.MAX_VALUE ? 0 : first;
  }

  /**
   * The measured makespan: from the first call's entry to the last call's exit or the last
   * measured GPU end, whichever is later; -1 when no operation has measured GPU times (a capture
   * on the simulated device measures nothing on a GPU).
   */
  public long measuredMakespanNs() {
    boolean any = false;
    long last = Long.MIN_VALUE;
    for (Op o : ops) {
      if (o.measured()) {
        any = true;
        last = Math.max(last, o.measuredEndNs());
      }
    }
    if (!any) {
      return -1;
    }
    for (Thread t : threads) {
      for (Call c : t.calls()) {
        last = Math.max(last, c.entryNs() + c.durationNs());
      }
    }
    return last - firstEntryNs();
  }
}
