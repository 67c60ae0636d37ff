package io.apptrace.replay;

import io.apptrace.cost.KernelModel;
import io.apptrace.kernel.Dim3;
import io.apptrace.kernel.KernelFacts;
import io.apptrace.kernel.KernelTimeModel;
import io.apptrace.kernel.Prediction;
import io.apptrace.node.GpuCatalogue;
import io.apptrace.node.GpuSpec;
import io.apptrace.node.Node;
import io.apptrace.trace.SourceGpu;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * Kernels with a measured time, on a node whose GPU is not the one they were measured on
 * (docs/REPLAY.md, "Kernels on another GPU"): by default re-timed by the cross-GPU kernel model
 * ({@link KernelTimeModel}) from the trace's GPU to the node's: the trace's found in the GPU
 * catalogue, the node's as its file resolves it (the catalogue's figures unless the file overrides
 * them, {@link Node.Gpu#catalogued()}).
 * The trace's GPU is the one the user names ({@code --source-gpu}), else the one the trace
 * recorded for the kernel's device, else {@code --source-node}'s. Where either GPU is unknown, or
 * with {@code --kernel-policy keep}, the measured time is kept, and the notes say so: a
 * projection never reuses what it cannot model without saying it did.
 */
final class KernelRetiming {
  private final ReplayProgram p;
  private final Node node;
  private final Replayer.Options o;
  private final GpuCatalogue catalogue = GpuCatalogue.bundled();
  private final Map<Integer, Optional<GpuSpec>> sources = new HashMap<>();
  private final Map<Integer, Optional<GpuSpec>> targets = new HashMap<>();
  /** "FROM -> TO" to the kernels re-timed that way. */
  private final Map<String, Integer> retimed = new TreeMap<>();
  /** Why kernels were kept at their measured time, to how many. */
  private final Map<String, Integer> kept = new TreeMap<>();

  KernelRetiming(ReplayProgram p, Node node, Replayer.Options o) {
    this.p = p;
    this.node = node;
    this.o = o;
  }

  /** Whether this rule applies: a policy that re-times by model. */
  boolean active() {
    return o.kernelPolicy() == KernelModel.Policy.MODEL || o.kernelPolicy() == KernelModel.Policy.MEASURED;
  }

  /**
   * Kernel {@code op}'s time on the node's GPU {@code g}, ns, from its measured time; empty when it
   * keeps its measured time (the reason is counted for the notes).
   */
  OptionalDouble ns(ReplayProgram.Op op, Node.Gpu g) {
    Optional<GpuSpec> from = sources.computeIfAbsent(op.device(), this::sourceOf);
    Optional<GpuSpec> to = targets.computeIfAbsent(g.index(), i -> g.catalogued());
    if (from.isEmpty()) {
      keep("the trace does not name the GPU they were measured on (give --source-gpu NAME)");
      return OptionalDouble.empty();
    }
    if (to.isEmpty()) {
      keep(node.name() + "'s " + g.id() + " (" + g.model() + ") is not in the GPU catalogue ('apptrace gpus')");
      return OptionalDouble.empty();
    }
    if (from.get().name().equals(to.get().name())) {
      return OptionalDouble.empty(); // measured on this GPU model: the measurement is the answer
    }
    if (o.kernelPolicy() == KernelModel.Policy.MEASURED) {
      keep("measured on " + from.get().name() + ", kept on " + to.get().name() + " (--kernel-policy keep)");
      return OptionalDouble.empty();
    }
    Prediction pr = KernelTimeModel.bundled().predict(facts(op), from.get(), to.get());
    if (pr.method() == Prediction.Method.KEPT) {
      keep(pr.kernelClass() == io.apptrace.kernel.KernelClass.COMMUNICATION
          ? "communication (NCCL): their time belongs to the links"
          : "no figure to scale them by (" + String.join("; ", pr.notes()) + ")");
      return OptionalDouble.empty();
    }
    retimed.merge(from.get().name() + " to " + to.get().name(), 1, Integer::sum);
    return OptionalDouble.of(pr.seconds() * 1e9);
  }

  private void keep(String why) {
    kept.merge(why, 1, Integer::sum);
  }

  private Optional<GpuSpec> sourceOf(int device) {
    if (o.sourceGpu().isPresent()) {
      return o.sourceGpu();
    }
    SourceGpu recorded = p.sourceDevices().get(device);
    if (recorded != null && recorded.name() != null && !recorded.name().isEmpty()) {
      return catalogue.find(recorded.name());
    }
    return o.sourceNode().flatMap(s -> s.gpu(Math.max(0, Math.min(device, s.gpus().size() - 1))))
        .flatMap(Node.Gpu::catalogued);
  }

  /** What the trace knows of a kernel launch, for the model. */
  private static KernelFacts facts(ReplayProgram.Op op) {
    KernelFacts f = KernelFacts.of(op.name(), op.measuredDurationNs() * 1e-9);
    ReplayProgram.LaunchFacts l = op.launch();
    if (l.blocks() > 0 && l.threadsPerBlock() > 0) {
      f = f.withLaunch(new Dim3((int) Math.min(Integer.MAX_VALUE, l.blocks()), 1, 1), new Dim3(l.threadsPerBlock(), 1, 1));
    }
    if (l.knowsResources()) {
      f = f.withResources(l.registersPerThread(), l.sharedMemPerBlockBytes());
    }
    if (op.touchedBytes() > 0) {
      f = f.withBytes(op.touchedBytes());
    }
    return f;
  }

  /** What the replay says of its kernels on this node. */
  List<String> notes() {
    List<String> out = new ArrayList<>();
    retimed.forEach((pair, n) -> out.add(n + " kernel(s) re-timed from " + pair + " by the kernel model"
        + " (docs/COST-MODEL.md, \"Kernels on another GPU\"; its accuracy in docs/ACCURACY.md)"));
    kept.forEach((why, n) -> out.add(n + " kernel(s) kept at their measured times: " + why));
    return out;
  }
}
