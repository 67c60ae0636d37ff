package io.apptrace.replay;

import io.apptrace.cost.CollectiveCost;
import io.apptrace.cost.CollectiveParameters;
import io.apptrace.cost.MessageCost;
import io.apptrace.cost.NcclCollectiveCost;
import io.apptrace.job.Job;
import io.apptrace.job.NcclEvent;
import io.apptrace.job.NcclMatching;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.NcclOp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Times a job's NCCL launches ({@link NcclLaunches}) from when their streams got to them
 * (docs/JOBS.md, "NCCL"). NCCL's kernels wait on the GPU for their peers: a collective starts when
 * the last member's stream gets to it and takes what {@link NcclCollectiveCost} says over the
 * members' placement on the cluster ({@link CollectiveParameters}); a send and its receive start
 * when both streams got to them and take the point-to-point time of {@link MessageCost} between
 * the two ranks' GPUs (device buffers). A launch of several operations (a group) ends with its
 * last. The operations are the job graph's ({@link NcclMatching}: collectives by communicator id
 * and their order on it, sends and receives by communicator, the two ranks and order).
 *
 * <p>What a replay of one node cannot know is said: a communicator whose members are GPUs of one
 * process ({@code ncclCommInitAll}) has its members in one trace, and its operations end when
 * their streams get to them (a note counts them); a send or collective whose peers are not in the
 * traces likewise.
 */
final class NcclReplay {
  private final Cluster cluster;
  private final MessageCost cost;
  /** Per world rank: its launches. */
  private final Map<Integer, List<NcclLaunches.Launch>> launches;
  private final List<Instance> instances = new ArrayList<>();
  /** Per world rank, per launch: the instances its parts join. */
  private final Map<Integer, List<List<Integer>>> joins = new HashMap<>();
  private final Map<ParameterKey, CollectiveParameters> parameters = new HashMap<>();
  private final Map<PriceKey, Double> p2p = new HashMap<>();

  private record ParameterKey(long comm, int size) {}

  private record PriceKey(int source, int dest, long bytes) {}

  /**
   * One collective, or one send with its receive.
   *
   * @param op the collective's operation, or NCCL_SEND
   * @param comm the communicator's id
   * @param members {world rank, launch index} of each member (a send's sender first)
   * @param call a member's call (its bytes and size)
   */
  private record Instance(NcclOp op, long comm, List<int[]> members, NcclCall call) {}

  /** Collectives whose members called different operations (left out by {@link NcclMatching}). */
  private int mismatched;

  NcclReplay(Job job, Cluster cluster, Map<Integer, List<NcclLaunches.Launch>> launches) throws NodeFileException {
    this.cluster = cluster;
    this.cost = new MessageCost(cluster);
    this.launches = launches;
    match(job);
  }

  /** Whether the job has NCCL launches. */
  boolean any() {
    return launches.values().stream().anyMatch(l -> !l.isEmpty());
  }

  /**
   * The job's NCCL operations ({@link NcclMatching}: collectives by communicator and order, sends
   * and receives by communicator, the two ranks and order) as instances over the launches that run
   * them; a send or receive no trace matched is an instance of its one end.
   */
  private void match(Job job) {
    Map<NcclEvent, int[]> launchOf = new IdentityHashMap<>(); // a call -> {world rank, its launch}
    for (Map.Entry<Integer, List<NcclLaunches.Launch>> e : launches.entrySet()) {
      List<List<Integer>> perLaunch = new ArrayList<>();
      for (int j = 0; j < e.getValue().size(); j++) {
        for (NcclEvent part : e.getValue().get(j).parts()) {
          launchOf.put(part, new int[] {e.getKey(), j});
        }
        perLaunch.add(new ArrayList<>());
      }
      joins.put(e.getKey(), perLaunch);
    }
    Map<Integer, List<NcclEvent>> calls = new HashMap<>();
    job.ranks().forEach(t -> calls.put(t.rank(), t.ncclCalls()));
    NcclMatching m = NcclMatching.of(job);
    for (NcclMatching.Collective c : m.collectives()) {
      add(c.op(), c.commId(), c.calls(), launchOf, calls);
    }
    for (NcclMatching.Message msg : m.messages()) {
      add(NcclOp.NCCL_SEND, msg.commId(), List.of(msg.send(), msg.recv()), launchOf, calls);
    }
    for (NcclMatching.Call c : m.unmatchedSends()) {
      add(NcclOp.NCCL_SEND, c.call().getCommId(), List.of(c), launchOf, calls);
    }
    for (NcclMatching.Call c : m.unmatchedReceives()) {
      add(NcclOp.NCCL_SEND, c.call().getCommId(), List.of(c), launchOf, calls);
    }
    mismatched = m.mismatched();
  }

  /** An instance of {@code op} over the launches that run {@code members}' calls (a send's first). */
  private void add(NcclOp op, long comm, List<NcclMatching.Call> members, Map<NcclEvent, int[]> launchOf,
      Map<Integer, List<NcclEvent>> calls) {
    List<int[]> at = new ArrayList<>();
    for (NcclMatching.Call c : members) {
      int[] l = launchOf.get(calls.get(c.rank()).get(c.index()));
      if (l != null) {
        at.add(l);
      }
    }
    if (at.isEmpty()) {
      return;
    }
    instances.add(new Instance(op, comm, at, members.get(0).call()));
    for (int[] l : at) {
      joins.get(l[0]).get(l[1]).add(instances.size() - 1);
    }
  }

  /**
   * When each launch ends, seconds of the job's time, given when its stream got to it ({@code
   * start}: per world rank, per launch; NaN: never); collects what {@code out} reports.
   */
  Map<Integer, double[]> ends(Map<Integer, double[]> start, Accounting out) throws NodeFileException {
    out.mismatched = mismatched;
    double[] instanceEnd = new double[instances.size()];
    for (int k = 0; k < instances.size(); k++) {
      Instance in = instances.get(k);
      double latest = Double.NEGATIVE_INFINITY;
      TreeSet<Integer> ranks = new TreeSet<>();
      for (int[] m : in.members()) {
        latest = Math.max(latest, start.get(m[0])[m[1]]);
        ranks.add(m[0]);
      }
      CollectiveCost.Price price = price(in, ranks);
      instanceEnd[k] = latest + price.seconds();
      out.instance(in, price, ranks, cluster);
    }
    Map<Integer, double[]> ends = new HashMap<>();
    for (Map.Entry<Integer, List<List<Integer>>> e : joins.entrySet()) {
      double[] s = start.get(e.getKey());
      double[] end = new double[s.length];
      for (int j = 0; j < s.length; j++) {
        end[j] = s[j];
        for (int k : e.getValue().get(j)) {
          end[j] = Math.max(end[j], instanceEnd[k]);
        }
        out.rank(e.getKey(), Double.isNaN(s[j]) ? 0 : end[j] - s[j]);
      }
      ends.put(e.getKey(), end);
    }
    return ends;
  }

  /** An instance's algorithm and time; "not priced" when its members are not ranks of their own. */
  private CollectiveCost.Price price(Instance in, TreeSet<Integer> ranks) throws NodeFileException {
    NcclCall c = in.call();
    if (in.op() == NcclOp.NCCL_SEND) {
      if (in.members().size() < 2 || ranks.size() < 2) {
        return new CollectiveCost.Price(NOT_PRICED, 0);
      }
      int from = in.members().get(0)[0];
      int to = in.members().get(1)[0];
      Double s = p2p.get(new PriceKey(from, to, c.getBytes()));
      if (s == null) {
        s = cost.of(from, to, c.getBytes(), true, true).seconds();
        p2p.put(new PriceKey(from, to, c.getBytes()), s);
      }
      return new CollectiveCost.Price("point to point", s);
    }
    int p = Math.max(c.getCommSize(), in.members().size());
    if (ranks.size() < p) {
      return new CollectiveCost.Price(NOT_PRICED, 0);
    }
    ParameterKey key = new ParameterKey(in.comm(), p);
    CollectiveParameters params = parameters.get(key);
    if (params == null) {
      params = CollectiveParameters.of(cost, ranks, true);
      parameters.put(key, params);
    }
    return NcclCollectiveCost.of(in.op(), p, c.getBytes(), c.getTotalBytes(), params.alpha(), params.beta("ring"));
  }

  /** An instance whose members are not all ranks of their own in the traces: it takes no time. */
  static final String NOT_PRICED = "not priced";

  /** What the job's report says of its NCCL work. */
  static final class Accounting {
    /** Per operation: algorithm, operations, bytes, seconds, inter-node, not priced. */
    private final Map<NcclOp, Object[]> ops = new TreeMap<>();
    private final Map<Integer, Double> perRank = new TreeMap<>();
    private int mismatched;

    void instance(Instance in, CollectiveCost.Price p, TreeSet<Integer> ranks, Cluster cluster) {
      Object[] v = ops.computeIfAbsent(in.op(), k -> new Object[] {"", 0L, 0L, 0.0, 0L, 0L});
      boolean priced = !p.algorithm().equals(NOT_PRICED);
      if (priced) {
        v[0] = p.algorithm();
      }
      v[1] = (Long) v[1] + 1;
      v[2] = (Long) v[2] + (in.op() == NcclOp.NCCL_ALL_GATHER ? in.call().getTotalBytes() : in.call().getBytes());
      v[3] = (Double) v[3] + p.seconds();
      boolean inter = ranks.stream().map(cluster::nodeOf).distinct().count() > 1;
      v[4] = (Long) v[4] + (inter ? 1 : 0);
      v[5] = (Long) v[5] + (priced ? 0 : 1);
    }

    void rank(int rank, double seconds) {
      perRank.merge(rank, seconds, Double::sum);
    }

    /** What the report must say of the NCCL work: what it approximates, and the operations not priced. */
    List<String> notes() {
      if (ops.isEmpty() && mismatched == 0) {
        return List.of();
      }
      List<String> out = new ArrayList<>();
      out.add("NCCL's work runs on its stream from when the last member's stream gets to it, for its algorithm's"
          + " price (ring, or double binary tree for all-reduce when cheaper); it takes no GPU engine or SMs from"
          + " the ranks' kernels, and its transfers share neither the node's links with the ranks' copies nor the"
          + " NICs with MPI's messages");
      if (mismatched > 0) {
        out.add(mismatched + " NCCL collective(s) NOT priced: their members called different operations or roots"
            + " at that place in the communicator's order (a trace of another program, or one cut short); their"
            + " launches end when their streams get to them");
      }
      long n = ops.values().stream().mapToLong(v -> (Long) v[5]).sum();
      if (n > 0) {
        out.add(n + " NCCL operation(s) NOT priced: their communicator's members are not ranks of their own in the"
            + " traces (GPUs of one process, ncclCommInitAll) or a peer's trace is missing; they end when their"
            + " streams get to them");
      }
      return out;
    }

    /** Per rank: the time its NCCL launches took on its streams, from its stream's arrival to their end. */
    Map<Integer, Double> perRank() {
      return perRank;
    }

    List<JobReplayResult.NcclTime> times() {
      List<JobReplayResult.NcclTime> out = new ArrayList<>();
      ops.forEach((op, v) -> out.add(new JobReplayResult.NcclTime(op, (String) v[0], (Long) v[1], (Long) v[2],
          (Double) v[3], (Long) v[4], (Long) v[5])));
      return out;
    }
  }
}
