package io.apptrace.replay;

import io.apptrace.node.ApiClass;
import io.apptrace.node.HostOverheads;
import io.apptrace.node.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A CUDA call's own time (docs/REPLAY.md, "CUDA calls"): the duration the trace measured, or the
 * node's host-overhead model ({@link HostOverheads}). In a trace from the simulated device a call's
 * duration is a fact about the simulator on the capturing machine, not about any node: there the
 * model prices every call by its {@link ApiClass} (and the bytes it pins), a process's first call
 * that needs a context pays the node's context creation, a call that issues GPU work pays the
 * GPU's launch overhead, and a blocking call's own cost is {@link ApiClass#SYNC}'s. A trace from a
 * real GPU keeps its measured durations unless {@code --call-costs model} asks otherwise. An MPI
 * or NCCL call keeps its measured duration under every policy: the node model does not price
 * communication (a job's replay on a cluster does: {@link JobOverlap}).
 */
public final class CallCosts {
  /** Which durations a replay gives the calls. */
  public enum Policy {
    /** The model for traces from the simulated device, the measured durations for the others. */
    AUTO("auto"),
    /** The node's host-overhead model for every call. */
    MODEL("model"),
    /** The trace's durations (a simulated trace's calls that issue work: at most the launch overhead). */
    MEASURED("measured");

    private final String key;

    Policy(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }

    /** The policy a command-line value names (case-insensitive), if any. */
    public static java.util.Optional<Policy> of(String s) {
      for (Policy p : values()) {
        if (p.key.equalsIgnoreCase(s.strip())) {
          return java.util.Optional.of(p);
        }
      }
      return java.util.Optional.empty();
    }
  }

  private final ReplayProgram p;
  private final Node node;
  private final HostOverheads model;
  private final boolean modelled;
  private final Set<Integer> contexts = new HashSet<>();
  private long contextsCreated;
  private long callsModelled;
  private long ncclKept;

  CallCosts(ReplayProgram p, Node node, Policy policy) {
    this.p = p;
    this.node = node;
    this.model = node.hostOverheads();
    this.modelled = policy == Policy.MODEL || (policy == Policy.AUTO && p.provenance().simulated());
    contexts.addAll(p.contextsBefore());
  }

  /** Whether the model prices the calls. */
  boolean modelled() {
    return modelled;
  }

  /** The own time of a call that neither issues GPU work nor blocks (a HOST, event record or stream wait call). */
  long plainNs(int thread, ReplayProgram.Call c) {
    if (io.apptrace.trace.ApiNames.isNccl(c.name())) {
      ncclKept++;
      return c.durationNs();
    }
    if (!modelled || io.apptrace.trace.ApiNames.isMpi(c.name())) {
      // an MPI call is communication, not a CUDA call: a node alone keeps it as traced (a job's
      // replay on a cluster prices it: JobReplay)
      return c.durationNs();
    }
    callsModelled++;
    ApiClass k = ApiClass.of(c.name());
    return context(thread, ApiClass.createsContext(c.name())) + model.costNs(k, c.bytes());
  }

  /**
   * The own time of a call that issues an operation on GPU {@code gpu} (a launch, an asynchronous
   * or synchronous copy, a memset): the GPU's launch overhead when modelled; measured, the trace's
   * duration, of which a simulated trace's keeps at most the launch overhead (the simulator does a
   * copy's work inside the call).
   */
  long issueNs(int thread, ReplayProgram.Call c, int gpu) {
    if (MessageLegs.CALL.equals(c.name())) {
      return 0; // the MPI library's copy of a message: its host time is the network replay's
    }
    long launch = Clock.ticks(node.gpus().get(gpu).launchOverheadSeconds() * 1e9);
    if (!modelled) {
      return p.provenance().simulated() ? Math.min(c.durationNs(), launch) : c.durationNs();
    }
    callsModelled++;
    return context(thread, true) + launch;
  }

  /**
   * The own time of a CUDA graph launch on GPU {@code gpu} (-1: its graph runs nothing on a GPU):
   * one graph launch, whatever its nodes ({@link ApiClass#GRAPH_LAUNCH}), when modelled;
   * measured, the trace's duration, of which a simulated trace's keeps at most that figure (the
   * simulator submits every node inside the call).
   */
  long graphLaunchNs(int thread, ReplayProgram.Call c, int gpu) {
    long graph = model.costNs(ApiClass.GRAPH_LAUNCH, 0);
    if (c.what() instanceof HostCall.LaunchGraph g && g.whatIf()) {
      return context(thread, true) + graph;
    }
    if (!modelled) {
      return p.provenance().simulated() ? Math.min(c.durationNs(), graph) : c.durationNs();
    }
    callsModelled++;
    return context(thread, true) + graph;
  }

  /**
   * The own cost of a blocking call, beside its wait: modelled, {@link ApiClass#SYNC}'s (a
   * cudaFree's is {@link ApiClass#DEVICE_FREE}'s); measured, -1 (the caller applies the measured
   * rule).
   */
  long blockingOwnNs(int thread, ReplayProgram.Call c) {
    if (!modelled) {
      return -1;
    }
    callsModelled++;
    ApiClass k = c.what() instanceof HostCall.IssueOp ? ApiClass.SYNC : ApiClass.of(c.name());
    if (k != ApiClass.DEVICE_FREE) {
      k = ApiClass.SYNC;
    }
    return context(thread, true) + model.costNs(k, c.bytes());
  }

  /** The context creation a process's first call that needs one pays. */
  private long context(int thread, boolean needs) {
    if (!needs || !contexts.add(p.threads().get(thread).pid())) {
      return 0;
    }
    contextsCreated++;
    return model.costNs(ApiClass.CONTEXT_CREATE, 0);
  }

  /** What the report says of the calls' durations. */
  List<String> notes() {
    List<String> out = new ArrayList<>();
    if (modelled) {
      out.add(String.format(Locale.ROOT, "%d CUDA call(s) priced by %s's host-overhead model (%s)%s%s", callsModelled,
          node.name(), model.source(), contextsCreated > 0 ? String.format(Locale.ROOT,
              ", %d context creation(s) of %s each", contextsCreated, io.apptrace.node.Units.time(
                  model.costNs(ApiClass.CONTEXT_CREATE, 0) / 1e9)) : "",
          p.provenance().simulated() ? ": the trace is from the simulated device, whose call durations are the"
              + " capturing machine's" : ""));
    } else if (p.provenance().simulated()) {
      out.add("CUDA calls keep the durations measured on the simulated device (--call-costs measured): they are"
          + " the capturing machine's, not " + node.name() + "'s");
    }
    boolean job = p.ops().stream().anyMatch(o -> o.kind() == ReplayProgram.Kind.COLLECTIVE);
    if (ncclKept > 0 && !job) {
      out.add(ncclKept + " NCCL call(s) keep their traced host time and their communication is NOT priced: a"
          + " trace replayed alone has no peers to time it against (replay the job's traces together, with"
          + " --cluster)");
    }
    return out;
  }
}
