package io.apptrace.replay;

import io.apptrace.graph.CallLog;
import io.apptrace.node.TransferKind;
import io.apptrace.trace.SourceGpu;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a replay runs, independent of any node: the operations (copies, memsets, kernels) with
 * what pricing them needs, the streams they run on, and each host thread's API calls in order
 * with their measured times. Built from a trace's graph and call log ({@link ProgramBuilder}), or
 * directly by tests.
 */
public final class ReplayProgram {
  /** What an operation is. */
  public enum Kind {
    COPY, MEMSET, KERNEL,
    /**
     * Communication on a stream whose time a replay outside the node decides (an NCCL collective,
     * send or receive in a job's replay): it takes no engine, and ends when its issuing call's
     * {@link HostCall.IssueOp#untilNs()} says.
     */
    COLLECTIVE
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
   * @param launch what the trace knows of a kernel's launch ({@link LaunchFacts#UNKNOWN} for
   *     copies and memsets, and for kernels of programs built without it)
   */
  public record Op(int id, Kind kind, String name, int stream, int device, int peerDevice, TransferKind transfer,
      long bytes, int numa, long measuredStartNs, long measuredEndNs, double touchedBytes, double mappedReadBytes,
      double mappedWriteBytes, long blocks, boolean synchronous, LaunchFacts launch) {
    public Op {
      Objects.requireNonNull(launch, "launch");
    }

    /** An operation whose launch facts are not known. */
    public Op(int id, Kind kind, String name, int stream, int device, int peerDevice, TransferKind transfer,
        long bytes, int numa, long measuredStartNs, long measuredEndNs, double touchedBytes, double mappedReadBytes,
        double mappedWriteBytes, long blocks, boolean synchronous) {
      this(id, kind, name, stream, device, peerDevice, transfer, bytes, numa, measuredStartNs, measuredEndNs,
          touchedBytes, mappedReadBytes, mappedWriteBytes, blocks, synchronous, LaunchFacts.UNKNOWN);
    }

    public boolean measured() {
      return measuredStartNs >= 0 && measuredEndNs >= measuredStartNs;
    }

    public long measuredDurationNs() {
      return measured() ? measuredEndNs - measuredStartNs : -1;
    }
  }

  /**
   * What a trace knows of a kernel's launch: the inputs of an occupancy and wave count on another
   * GPU (a kernel model's; the replay itself does not use them yet). What the trace does not know
   * is 0, -1 for shared memory (0 bytes is a size), NaN for the occupancy.
   *
   * @param blocks thread blocks (grid x * y * z)
   * @param threadsPerBlock threads per block (block x * y * z)
   * @param registersPerThread as the profiler, or CUPTI in a capture, recorded them
   * @param sharedMemPerBlockBytes static and dynamic shared memory per block, bytes
   * @param dynamicSharedMemBytes the dynamic shared memory the launch asked for, bytes (captures
   *     and imports that give it apart; -1 when not known apart)
   * @param estimatedOccupancyPct the occupancy Kineto estimated on the trace's GPU (its "est.
   *     achieved occupancy %": the occupancy calculator's, not a hardware counter), percent
   */
  public record LaunchFacts(long blocks, int threadsPerBlock, int registersPerThread, long sharedMemPerBlockBytes,
      long dynamicSharedMemBytes, double estimatedOccupancyPct) {
    /** Nothing known. */
    public static final LaunchFacts UNKNOWN = new LaunchFacts(0, 0, 0, -1, -1, Double.NaN);

    public LaunchFacts {
      if (blocks < 0 || threadsPerBlock < 0 || registersPerThread < 0 || sharedMemPerBlockBytes < -1
          || dynamicSharedMemBytes < -1) {
        throw new IllegalArgumentException("negative launch facts: blocks " + blocks + ", threads per block "
            + threadsPerBlock + ", registers " + registersPerThread + ", shared memory " + sharedMemPerBlockBytes
            + ", dynamic shared memory " + dynamicSharedMemBytes);
      }
    }

    /** Whether the trace knows the launch's registers per thread and shared memory per block. */
    public boolean knowsResources() {
      return registersPerThread > 0 && sharedMemPerBlockBytes >= 0;
    }
  }

  /**
   * One API call of a host thread.
   *
   * @param what what it does ({@link HostCall}: issues an operation, waits, records or waits for an
   *     event, host work)
   * @param bytes what the call allocated, freed, pinned or unpinned (a host call's), else 0
   * @param offCpuNs of the host time between the thread's previous call and this one, how much the
   *     thread spent off the CPU in the trace (descheduled, sleeping, waiting), as its CPU times tell
   *     ({@link OffCpuTime}); 0 when the trace does not say
   */
  public record Call(HostCall what, long entryNs, long durationNs, String name, long bytes, long offCpuNs) {
    public Call {
      Objects.requireNonNull(what, "what");
    }

    /** A call that allocates nothing and whose thread's CPU time the trace does not know. */
    public Call(HostCall what, long entryNs, long durationNs, String name) {
      this(what, entryNs, durationNs, name, 0, 0);
    }

    /** The operation it issues, or -1 (a graph launch issues several: {@link #issuedOps()}). */
    public int issuedOp() {
      return what instanceof HostCall.IssueOp i ? i.op() : -1;
    }

    /** The operations it issues: one, a graph launch's, or none. */
    public int[] issuedOps() {
      if (what instanceof HostCall.IssueOp i) {
        return new int[] {i.op()};
      }
      return what instanceof HostCall.LaunchGraph g ? g.ops() : new int[0];
    }

    /** The same call at another time, its operations renumbered by {@code id} (a region of interest does). */
    Call moved(long entry, java.util.function.IntUnaryOperator id) {
      HostCall w = what;
      if (what instanceof HostCall.IssueOp i) {
        w = i.renumbered(id.applyAsInt(i.op()));
      } else if (what instanceof HostCall.LaunchGraph g) {
        w = g.renumbered(id);
      }
      return new Call(w, entry, durationNs, name, bytes, offCpuNs);
    }
  }


  /**
   * What moves managed (unified) memory, in the order the program did it ({@link
   * ManagedResidency}): an operation's access, or a host synchronization after which the host may
   * read what the GPU wrote.
   */
  public sealed interface Managed permits Managed.Access, Managed.HostSync {
    /**
     * An operation's access to a managed allocation.
     *
     * @param op the operation; -1 for one outside the replayed program (before a region of
     *     interest), which moves the allocation but is not priced
     * @param allocation the allocation's id in the trace's graph
     * @param bytes the bytes the operation reaches
     * @param allocationBytes the allocation's size
     * @param device the trace device the data is needed on; -1: the host (a prefetch to it)
     * @param prefetch a prefetch (cudaMemPrefetchAsync), not a use
     * @param writes the operation writes there
     */
    record Access(int op, int allocation, long bytes, long allocationBytes, int device, boolean prefetch,
        boolean writes) implements Managed {}

    /**
     * A call of host thread {@code thread} that waits for GPU work (a synchronization; not
     * cudaFree): afterwards the host may read what the GPU wrote.
     *
     * @param call its index among the thread's calls; -1 for one outside the replayed program
     */
    record HostSync(int thread, int call) implements Managed {}
  }

  /** A host thread: a process, a thread id, and its calls in issue order. */
  public record HostThread(int pid, int tid, List<Call> calls) {
    public HostThread {
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
  private final List<HostThread> threads;
  private final int events;
  private final Provenance provenance;
  private final Map<Integer, SourceGpu> sourceDevices;
  private List<CallLog.Range> ranges = List.of();
  private List<CallLog.Mark> marks = List.of();
  private java.util.Set<Integer> contextsBefore = java.util.Set.of();
  private List<Managed> managed = List.of();

  public ReplayProgram(List<Op> ops, List<CallLog.Stream> streams, List<HostThread> threads, int events) {
    this(ops, streams, threads, events, Provenance.NONE);
  }

  public ReplayProgram(List<Op> ops, List<CallLog.Stream> streams, List<HostThread> threads, int events,
      Provenance provenance) {
    this(ops, streams, threads, events, provenance, Map.of());
  }

  /**
   * @param sourceDevices the GPUs the trace was taken on, by trace device index (see
   *     {@link #sourceDevices()})
   */
  public ReplayProgram(List<Op> ops, List<CallLog.Stream> streams, List<HostThread> threads, int events,
      Provenance provenance, Map<Integer, SourceGpu> sourceDevices) {
    this.provenance = Objects.requireNonNull(provenance, "provenance");
    this.sourceDevices = Collections.unmodifiableMap(new TreeMap<>(sourceDevices));
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

  public List<HostThread> threads() {
    return threads;
  }

  public int events() {
    return events;
  }

  public Provenance provenance() {
    return provenance;
  }

  /**
   * The GPUs the trace was taken on, as it records them (the CUDA runtime's answer in a capture,
   * the profiler's device table in an import), by trace device index, ascending; empty when the
   * trace records none (captures made before traces recorded devices, Kineto traces without
   * "deviceProperties"). Where processes of the trace describe one index differently (processes
   * on different hosts), the lowest pid's description is the one here.
   */
  public Map<Integer, SourceGpu> sourceDevices() {
    return sourceDevices;
  }

  /**
   * This program with the ranges and marks the trace's program named (NVTX; thread indexes as
   * {@link #threads()} numbers them).
   */
  public ReplayProgram withAnnotations(List<CallLog.Range> r, List<CallLog.Mark> m) {
    ReplayProgram out = new ReplayProgram(ops, streams, threads, events, provenance, sourceDevices);
    out.ranges = List.copyOf(r);
    out.marks = List.copyOf(m);
    out.contextsBefore = contextsBefore;
    out.managed = managed;
    return out;
  }

  /** This program with its accesses to managed memory, in issue order. */
  public ReplayProgram withManaged(List<Managed> accesses) {
    ReplayProgram out = withAnnotations(ranges, marks);
    out.managed = List.copyOf(accesses);
    return out;
  }

  /** Its accesses to managed memory, in issue order ({@link Managed}); empty when it uses none. */
  public List<Managed> managed() {
    return managed;
  }

  /**
   * This program, part of a longer one in which the processes {@code pids} had created their
   * CUDA contexts before it starts (a region of interest).
   */
  public ReplayProgram withContextsBefore(java.util.Set<Integer> pids) {
    ReplayProgram out = withAnnotations(ranges, marks);
    out.contextsBefore = java.util.Set.copyOf(pids);
    return out;
  }

  /** The processes whose CUDA contexts exist before the program's first call. */
  public java.util.Set<Integer> contextsBefore() {
    return contextsBefore;
  }

  /** The ranges the trace's program named (NVTX ranges, profiler ranges), as closed. */
  public List<CallLog.Range> ranges() {
    return ranges;
  }

  /** The marks the trace's program made. */
  public List<CallLog.Mark> marks() {
    return marks;
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
    for (HostThread t : threads) {
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
    for (HostThread t : threads) {
      for (Call c : t.calls()) {
        last = Math.max(last, c.entryNs() + c.durationNs());
      }
    }
    return last - firstEntryNs();
  }
}
