package io.apptrace.validate;

import io.apptrace.graph.CallLog;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OperationTable;
import io.apptrace.node.ApiClass;
import io.apptrace.node.HostOverheads;
import io.apptrace.node.Node;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The host-overhead model (docs/REPLAY.md, "CUDA calls") against the call durations of a trace
 * taken on a real GPU (docs/ACCURACY.md, "CUDA calls"): every call that neither waits nor is a
 * process's first (which creates the context, or not, depending on when the profiler started) is
 * priced by the node's model, by its class, and compared with its measured duration. A call that
 * issues GPU work (a launch, an asynchronous copy or memset) is compared with the GPU's launch
 * overhead, as the class {@code launch}. The baseline prices every call at the model's cheapest
 * class ({@link ApiClass#OTHER}): what a model that knows no classes would say.
 */
public final class CallValidation {
  /** The class of the calls that issue GPU work, in outputs. */
  public static final String LAUNCH = "launch";

  private CallValidation() {}

  /**
   * One trace's figures.
   *
   * @param byClass per class key (and {@link #LAUNCH}): the model's errors, and the baseline's
   * @param overall over every compared call
   * @param measuredNs per class key, the measured time of the compared calls
   * @param modelNs per class key, the model's
   * @param blocking calls left out because they wait (synchronizations, synchronous copies, cudaFree)
   * @param firstCalls calls left out as a process's first that needs a context
   */
  public record Result(Map<String, ApeStats> byClass, Map<String, ApeStats> baselineByClass, ApeStats overall,
      ApeStats baseline, Map<String, Double> measuredNs, Map<String, Double> modelNs, long blocking,
      long firstCalls) {}

  /**
   * Compares the calls of the trace {@code file} with {@code node}'s host-overhead model.
   *
   * @throws DataException when the file is not a readable trace, is from the simulated device (its
   *     durations are the capturing machine's) or has no call to compare
   */
  public static Result of(Path file, Node node) throws DataException {
    return of(file.getFileName().toString(), TraceCopies.graph(file, true), node);
  }

  static Result of(String name, Dvdg g, Node node) throws DataException {
    if (g.header().getSimulatedDevice()) {
      throw new DataException(name + ": taken on the simulated device, whose call durations are the capturing"
          + " machine's, not a GPU's: give a trace taken on a real GPU (captured, or imported from a profile)");
    }
    CallLog log = g.calls().orElseThrow(() -> new IllegalArgumentException("the graph was built without its calls"));
    OperationTable ops = g.operations();
    HostOverheads model = node.hostOverheads();
    Map<String, ApeStats> byClass = new LinkedHashMap<>();
    Map<String, ApeStats> baseByClass = new LinkedHashMap<>();
    Map<String, Double> measured = new LinkedHashMap<>();
    Map<String, Double> modelled = new LinkedHashMap<>();
    ApeStats overall = new ApeStats();
    ApeStats baseline = new ApeStats();
    double cheapest = model.costNs(ApiClass.OTHER, 0);
    Set<Integer> contexts = new HashSet<>();
    long blocking = 0;
    long first = 0;
    for (int c = 0; c < log.size(); c++) {
      long dur = log.durationNs(c);
      if (dur <= 0) {
        continue;
      }
      String api = ops.nameOf(log.apiName(c));
      boolean issues = log.type(c) == CallLog.Type.OP;
      boolean waits = switch (log.type(c)) {
        case SYNC_STREAM, SYNC_EVENT, SYNC_DEVICE, SYNC_SOME_STREAMS -> true;
        case OP -> ops.synchronous(log.a(c));
        default -> false;
      };
      boolean needsContext = issues || waits || ApiClass.createsContext(api);
      if (needsContext && contexts.add(ops.threadPid(log.thread(c)))) {
        first++;
        continue;
      }
      if (waits) {
        blocking++;
        continue;
      }
      String key;
      double ns;
      if (issues) {
        key = LAUNCH;
        int gpu = Math.max(0, Math.min(ops.device(log.a(c)), node.gpus().size() - 1));
        ns = node.gpus().get(gpu).launchOverheadSeconds() * 1e9;
      } else {
        ApiClass k = ApiClass.of(api);
        key = k.key();
        ns = model.costNs(k, log.bytes(c));
      }
      double m = dur;
      byClass.computeIfAbsent(key, x -> new ApeStats()).add(m, ns);
      baseByClass.computeIfAbsent(key, x -> new ApeStats()).add(m, cheapest);
      measured.merge(key, m, Double::sum);
      modelled.merge(key, ns, Double::sum);
      overall.add(m, ns);
      baseline.add(m, cheapest);
    }
    if (overall.count() == 0) {
      throw new DataException(name + ": no CUDA call to compare (only waits and first calls, or no calls)");
    }
    return new Result(byClass, baseByClass, overall, baseline, measured, modelled, blocking, first);
  }
}
