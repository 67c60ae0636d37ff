package io.apptrace.replay;

import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import java.util.List;
import java.util.Objects;

/**
 * What a rank does outside MPI, as a job's replay needs it (docs/JOBS.md, "Replay on a cluster"):
 * the seconds of its own work (kernels, copies, CUDA calls and host time) before each of its MPI
 * calls, counted from the previous call's return, and after its last. The rank starts at its first
 * MPI call; the work before it is not part of the job's timeline.
 */
public final class RankSegments {
  /** Where the segments come from. */
  public enum Source {
    /** The rank's trace: the time between its MPI calls as it was measured. */
    TRACED,
    /** The rank's program replayed on the cluster's node model ({@link RankOnNode}). */
    NODE
  }

  private final int rank;
  private final double[] beforeSeconds;
  private final double tailSeconds;
  private final double kernelSeconds;
  private final double copySeconds;
  private final double hiddenSeconds;
  private final Source source;
  private final List<String> notes;

  /**
   * @param rank the world rank
   * @param beforeSeconds per MPI call (the rank's issue order), its own work since the previous
   *     call returned (the first: 0); kept, not copied
   * @param tailSeconds its own work after its last MPI call returned
   * @param kernelSeconds its kernels' time on the GPU, summed (NaN: not known)
   * @param copySeconds its copies' and memsets' time on the GPU, summed (NaN: not known)
   * @param hiddenSeconds of the time its MPI calls held its thread on the node, how much its own GPU
   *     work was running (communication hidden behind it; NaN: not known)
   * @param notes what the node replay said of the rank (kernels priced at a lower bound, ...)
   */
  public RankSegments(int rank, double[] beforeSeconds, double tailSeconds, double kernelSeconds, double copySeconds,
      double hiddenSeconds, Source source, List<String> notes) {
    this.rank = rank;
    this.beforeSeconds = Objects.requireNonNull(beforeSeconds, "beforeSeconds");
    this.tailSeconds = tailSeconds;
    this.kernelSeconds = kernelSeconds;
    this.copySeconds = copySeconds;
    this.hiddenSeconds = hiddenSeconds;
    this.source = Objects.requireNonNull(source, "source");
    this.notes = List.copyOf(notes);
  }

  /** The time between a rank's MPI calls as its trace measured it, and nothing after its last. */
  public static RankSegments asTraced(RankTrace t) {
    List<MpiEvent> calls = t.calls();
    double[] before = new double[calls.size()];
    for (int i = 1; i < calls.size(); i++) {
      before[i] = Math.max(0, calls.get(i).entryNs() - calls.get(i - 1).exitNs()) / 1e9;
    }
    return new RankSegments(t.rank(), before, 0, Double.NaN, Double.NaN, Double.NaN, Source.TRACED, List.of());
  }

  /** What a job's replay approximates when its ranks' segments come from {@code source}: for its report. */
  public static List<String> approximations(Source source) {
    List<String> out = new java.util.ArrayList<>();
    if (source == Source.NODE) {
      out.add("the ranks a node holds are replayed together on it, sharing its links, host memory and GPUs, each"
          + " MPI call holding its thread until the network's replay returned from it while its GPU work goes on;"
          + " the two replays are run in turn until no call's return moves by more than 1 ns (a fixed point, not"
          + " one simulation of both)");
      out.add("a message's copies on a node (GPU to GPU within it, staging without GPUDirect RDMA) run in the"
          + " node's replay beside the ranks' own copies where a rank of the node copies; elsewhere each is"
          + " priced alone, so two messages on one link at once do not slow each other; between nodes, messages"
          + " share the NICs, not the switches' links");
      out.add("the ranks of a node start their programs together, and leave their first MPI call together");
    } else {
      out.add("between its MPI calls each rank takes the time its trace measured: its kernels and copies are not"
          + " re-projected on the cluster's node");
    }
    out.add("every rank leaves MPI_Init at 0 and MPI_Finalize takes no time: the launcher's start-up, the work"
        + " before a rank's first MPI call and MPI_Finalize's traced time are not in the makespan");
    return out;
  }

  public int rank() {
    return rank;
  }

  /** The rank's own work before its MPI call {@code index}, since the previous one returned, seconds. */
  public double beforeSeconds(int index) {
    return beforeSeconds[index];
  }

  /** The MPI calls the segments are for. */
  public int calls() {
    return beforeSeconds.length;
  }

  public double tailSeconds() {
    return tailSeconds;
  }

  public double kernelSeconds() {
    return kernelSeconds;
  }

  public double copySeconds() {
    return copySeconds;
  }

  public double hiddenSeconds() {
    return hiddenSeconds;
  }

  /** Whether every segment and the tail equal {@code o}'s. */
  boolean sameTimes(RankSegments o) {
    return o != null && rank == o.rank && tailSeconds == o.tailSeconds
        && java.util.Arrays.equals(beforeSeconds, o.beforeSeconds);
  }

  public Source source() {
    return source;
  }

  public List<String> notes() {
    return notes;
  }
}
