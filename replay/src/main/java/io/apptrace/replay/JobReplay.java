package io.apptrace.replay;

import io.apptrace.cost.CollectiveCost;
import io.apptrace.cost.CollectiveParameters;
import io.apptrace.cost.MessageCost;
import io.apptrace.job.Collective;
import io.apptrace.job.CollectiveMatching;
import io.apptrace.job.Job;
import io.apptrace.job.Message;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Replays a job's MPI calls on a cluster model (docs/JOBS.md, "Replay on a cluster"). Each rank
 * goes through its calls in order; between two of its MPI calls it does its own work for as long as
 * its {@link RankSegments} say (its program replayed on the cluster's node by {@link RankOnNode},
 * or the time its trace measured); every message is priced by {@link MessageCost} and waits for its
 * node's NIC when it crosses the network, and every collective starts when its last member calls it
 * and takes what {@link CollectiveCost} says. A receive waits for its message, a Wait for its
 * requests, a collective for its members: the rank whose next call starts first goes next (a
 * priority queue), a rank that must wait is set aside until what it waits for is replayed.
 */
public final class JobReplay {
  private final Job job;
  private final MessageCost cost;
  private final Cluster cluster;
  private final Map<Integer, RankSegments> segments = new HashMap<>();
  private final List<Message> messages;
  private final List<Collective> collectives;
  private final int[][] sendAt;
  private final int[][] recvAt;
  private final int[][] collectiveAt;
  private final int[][] probeAt;
  /** Per rank, per MPI_Sendrecv: when its send half was done (NaN: not sent yet). */
  private final double[][] sentHalf;
  // per message: when it arrived, when its sender was done with it (NaN: not sent yet), the rank
  // waiting for it
  private final double[] arrival;
  private final double[] sendComplete;
  private final Cursor[] receiver;
  // per collective: members arrived, the latest arrival, its end (NaN: not yet), the members waiting
  private final int[] arrivedCount;
  private final double[] latestArrival;
  private final double[] collectiveEnd;
  private final List<List<Cursor>> members;
  private final Map<Long, Integer>[] posts;
  private final Map<ParameterKey, CollectiveParameters> parameters = new HashMap<>();
  private final PriorityQueue<Cursor> ready = new PriorityQueue<>(
      Comparator.comparingDouble(Cursor::nextStart).thenComparingInt(c -> c.trace.rank()));
  /** What the last step that could not go waits for: a message's index, or -1 - a collective's. */
  private int waitsFor;
  private final MessageTransfers transfers;
  /** Per rank, per MPI call: when it returned, seconds, as replayed. */
  private final double[][] exit;
  private final JobReplayResult.Builder result;

  /** The job with the time between each rank's MPI calls as traced ({@link RankSegments#asTraced}). */
  public JobReplay(Job job, Cluster cluster) throws NodeFileException {
    this(job, cluster, job.ranks().stream().map(RankSegments::asTraced).toList());
  }

  /**
   * The job with each rank's own work as {@code segments} say (one per rank of the job).
   *
   * @throws NodeFileException when the cluster cannot hold the job's ranks
   * @throws IllegalArgumentException when a rank has no segments or segments for other calls
   */
  public JobReplay(Job job, Cluster cluster, List<RankSegments> segments) throws NodeFileException {
    this(job, cluster, segments, JobMatching.of(job));
  }


  /** The job with each rank's own work as {@code segments} say, its messages and collectives as {@code matched}. */
  JobReplay(Job job, Cluster cluster, List<RankSegments> segments, JobMatching matched) throws NodeFileException {
    this.job = job;
    this.cluster = cluster;
    this.cost = new MessageCost(cluster);
    checkHolds(job, cluster);
    for (RankSegments s : segments) {
      this.segments.put(s.rank(), s);
    }
    for (RankTrace t : job.ranks()) {
      RankSegments s = this.segments.get(t.rank());
      if (s == null || s.calls() != t.calls().size()) {
        throw new IllegalArgumentException("rank " + t.rank() + ": no segments for its " + t.calls().size()
            + " MPI calls");
      }
    }
    int world = job.worldSize();
    sentHalf = new double[world][];
    exit = new double[world][];
    for (RankTrace t : job.ranks()) {
      int n = t.calls().size();
      sentHalf[t.rank()] = nans(n);
      exit[t.rank()] = new double[n];
    }
    messages = matched.messages();
    collectives = matched.collectives();
    sendAt = matched.sendAt();
    recvAt = matched.recvAt();
    collectiveAt = matched.collectiveAt();
    probeAt = matched.probeAt();
    posts = matched.posts();
    arrival = nans(messages.size());
    sendComplete = nans(messages.size());
    receiver = new Cursor[messages.size()];
    arrivedCount = new int[collectives.size()];
    latestArrival = new double[collectives.size()];
    collectiveEnd = nans(collectives.size());
    members = new ArrayList<>(java.util.Collections.nCopies(collectives.size(), (List<Cursor>) null));
    this.transfers = new MessageTransfers(cluster, cost, messages.size());
    this.result = new JobReplayResult.Builder(cluster, segments).unrecorded(job);
  }

  /**
   * Takes each message's legs as long as {@code seconds} says (per message, per leg; null or NaN:
   * its price): their times on the nodes' replays, shared with the ranks' own copies ({@link
   * JobOverlap}); and notes when each starts ({@link #legStart}) ({@link MessageTransfers}).
   */
  JobReplay withLegs(double[][] seconds) {
    transfers.legs(seconds);
    return this;
  }

  /** After {@link #run}: when message {@code m}'s leg {@code leg} started, seconds of the job's time (NaN: never). */
  double legStart(int m, int leg) {
    return transfers.legStart(m, leg);
  }

  /** @throws NodeFileException when the cluster cannot hold the job's ranks */
  static void checkHolds(Job job, Cluster cluster) throws NodeFileException {
    if (job.worldSize() > cluster.ranks()) {
      throw new NodeFileException("the job has " + job.worldSize() + " ranks and the cluster " + cluster.name()
          + " holds " + cluster.ranks() + " (" + cluster.nodes() + " nodes x " + cluster.ranksPerNode()
          + " ranks); give more nodes with --nodes");
    }
  }

  /** After {@link #run}: when rank {@code rank}'s MPI call {@code call} returned, seconds from the job's start. */
  public double exitSeconds(int rank, int call) {
    return exit[rank][call];
  }

  private static double[] nans(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }


  /** What a collective's parameters depend on: its members (the communicator) and where its buffers are. */
  private record ParameterKey(long comm, int size, boolean device) {}

  /** One rank's progress. */
  private static final class Cursor {
    final RankTrace trace;
    final RankSegments segments;
    int next;
    double clock;

    Cursor(RankTrace t, RankSegments s) {
      trace = t;
      segments = s;
    }

    boolean done() {
      return next >= trace.calls().size();
    }

    /** When its next call starts: fixed while it waits, so the queue's order holds. */
    double nextStart() {
      return done() ? Double.MAX_VALUE : clock + segments.beforeSeconds(next);
    }
  }

  public JobReplayResult run() throws NodeFileException {
    List<Cursor> cursors = new ArrayList<>();
    for (RankTrace t : job.ranks()) {
      Cursor c = new Cursor(t, segments.get(t.rank()));
      cursors.add(c);
      if (!c.done()) {
        ready.add(c);
      }
    }
    // the earliest call that can go goes first, so that NICs are taken in the order of time
    while (!ready.isEmpty()) {
      Cursor c = ready.poll();
      waitsFor = Integer.MIN_VALUE;
      if (step(c)) {
        if (!c.done()) {
          ready.add(c);
        }
      } else {
        park(c);
      }
    }
    for (Cursor c : cursors) {
      if (!c.done()) {
        MpiEvent e = c.trace.calls().get(c.next);
        throw new NodeFileException(c.trace.file() + ": rank " + c.trace.rank() + " waits forever at its MPI call "
            + e.index() + " (" + e.call().getOp() + "): a rank's trace is missing or cut short");
      }
      result.tail(c.trace.rank(), c.segments.tailSeconds());
      result.rankEnd(c.trace.rank(), c.clock + c.segments.tailSeconds());
    }
    JobReplayResult out = result.build();
    boolean nccl = job.ranks().stream().anyMatch(t -> t.ncclCalls().stream()
        .anyMatch(e -> NcclLaunches.launches(e.call().getOp())));
    return nccl && out.between() == RankSegments.Source.TRACED ? out.withNccl(List.of(), Map.of(), List.of("the ranks'"
        + " NCCL calls are NOT priced: between MPI calls each rank takes its traced time, NCCL's work included"
        + " (replay each node's ranks with --between-calls node to price them)")) : out;
  }

  /** Sets aside a rank that waits for a message or a collective. */
  private void park(Cursor c) {
    if (waitsFor >= 0) {
      receiver[waitsFor] = c;
    } else {
      int k = -1 - waitsFor;
      if (members.get(k) == null) {
        members.set(k, new ArrayList<>());
      }
      members.get(k).add(c);
    }
  }

  /** Replays the cursor's next call; false when it must wait for another rank. */
  private boolean step(Cursor c) throws NodeFileException {
    MpiEvent e = c.trace.calls().get(c.next);
    int rank = c.trace.rank();
    double gap = c.segments.beforeSeconds(c.next);
    double start = c.clock + gap;
    double overhead = cluster.network().overhead();
    Double end = switch (e.call().getOp()) {
      case MPI_SEND, MPI_SSEND -> send(rank, e, start);
      case MPI_ISEND -> {
        send(rank, e, start);
        yield start + overhead;
      }
      case MPI_IRECV -> start + overhead;
      case MPI_RECV -> receive(rank, e.index(), start);
      case MPI_SENDRECV -> {
        // the send half goes out once, whether or not the receive half must wait
        double s = sentHalf[rank][e.index()];
        if (Double.isNaN(s)) {
          s = send(rank, e, start);
          sentHalf[rank][e.index()] = s;
        }
        Double r = receiveReady(rank, e.index());
        yield r == null ? null : Math.max(s, Math.max(start, r));
      }
      case MPI_WAIT, MPI_WAITALL, MPI_WAITANY, MPI_WAITSOME, MPI_TEST, MPI_TESTALL, MPI_TESTANY, MPI_TESTSOME ->
          completions(rank, e, start);
      case MPI_PROBE -> { // waits for the message it found, which stays to be received
        int i = probeAt[rank][e.index()];
        if (i >= 0 && Double.isNaN(arrival[i])) {
          waitsFor = i;
          yield null;
        }
        yield i < 0 ? start : Math.max(start, arrival[i]);
      }
      case MPI_IPROBE -> start + overhead;
      // the launcher's start-up and tear-down are not the cluster's: every rank leaves MPI_Init
      // at 0, and MPI_Finalize ends the rank's MPI (both reported with their traced time apart)
      case MPI_INIT, MPI_FINALIZE -> start;
      default -> CollectiveMatching.isCollective(e.call().getOp()) ? collective(rank, e, start)
          : Double.valueOf(start + e.durationNs() / 1e9);
    };
    if (end == null) {
      return false;
    }
    // a Wait or Test of nonblocking collectives only is the collectives' time
    MpiOp kind = e.call().getOp();
    int first = e.call().getCompletedCount() == 0 ? -1 : postOf(rank, e.call().getCompleted(0).getRequest());
    if (first >= 0 && e.call().getCompletedList().stream().allMatch(d -> {
      int p = postOf(rank, d.getRequest());
      return p >= 0 && collectiveAt[rank][p] >= 0;
    })) {
      kind = c.trace.calls().get(first).call().getOp();
    }
    result.account(rank, kind, gap, end - start, e.durationNs() / 1e9);
    exit[rank][e.index()] = end;
    c.clock = end;
    c.next++;
    return true;
  }

  /** Prices and injects a send; returns when the sender is done with it. */
  private double send(int rank, MpiEvent e, double start) throws NodeFileException {
    int i = sendAt[rank][e.index()];
    if (i < 0) {
      return start + cluster.network().overhead(); // its receive is not in the traces
    }
    Message m = messages.get(i);
    MessageTransfers.Sent sent = transfers.send(i, m, start);
    MessageCost.Price p = sent.price();
    double inject = sent.inject();
    arrival[i] = inject + sent.took();
    if (receiver[i] != null) {
      ready.add(receiver[i]);
      receiver[i] = null;
    }
    double done = inject + cluster.network().overhead() + p.nicSeconds();
    sendComplete[i] = done;
    result.message(m, p, sent.took(), inject - start);
    return done;
  }

  /** When the message a receive posted at call {@code index} matched has arrived; null: its send is not replayed yet. */
  private Double receiveReady(int rank, int index) {
    int i = recvAt[rank][index];
    if (i < 0) {
      return 0.0; // its send is not in the traces
    }
    if (Double.isNaN(arrival[i])) {
      waitsFor = i;
      return null;
    }
    return arrival[i];
  }

  private Double receive(int rank, int index, double start) {
    Double r = receiveReady(rank, index);
    return r == null ? null : Math.max(start, r);
  }

  /**
   * A Wait or Test ends when every request it completed is done: a receive's message arrived, a
   * send's sender done with it, a nonblocking collective ended (its last member's call plus its
   * algorithm's time). A Test that completed nothing takes the overhead o.
   */
  private Double completions(int rank, MpiEvent e, double start) {
    double end = start;
    MpiOp op = e.call().getOp();
    if (e.call().getCompletedCount() == 0 && (op == MpiOp.MPI_TEST || op == MpiOp.MPI_TESTALL
        || op == MpiOp.MPI_TESTANY || op == MpiOp.MPI_TESTSOME)) {
      return start + cluster.network().overhead();
    }
    for (MpiCompletion done : e.call().getCompletedList()) {
      int post = postOf(rank, done.getRequest());
      if (post < 0) {
        continue;
      }
      int k = collectiveAt[rank][post];
      if (k >= 0) { // a nonblocking collective
        if (Double.isNaN(collectiveEnd[k])) {
          waitsFor = -1 - k;
          return null;
        }
        end = Math.max(end, collectiveEnd[k]);
      } else if (done.getReceive()) {
        Double r = receiveReady(rank, post);
        if (r == null) {
          return null;
        }
        end = Math.max(end, r);
      } else {
        int m = sendAt[rank][post];
        end = Math.max(end, m < 0 || Double.isNaN(sendComplete[m]) ? start : sendComplete[m]);
      }
    }
    return end;
  }

  /** The index of the Isend or Irecv that started request {@code request} of a rank. */
  private int postOf(int rank, long request) {
    return posts[rank].getOrDefault(request, -1);
  }

  /**
   * A collective starts when its last member calls it and takes its algorithm's time; a blocking
   * one returns then, a nonblocking one (MPI_Iallreduce...) returns after the overhead o, and the
   * Wait or Test that completes its request waits for its end ({@link #completions}).
   */
  private Double collective(int rank, MpiEvent e, double start) throws NodeFileException {
    int k = collectiveAt[rank][e.index()];
    boolean nonblocking = CollectiveMatching.isNonblocking(e.call().getOp());
    double returned = start + cluster.network().overhead();
    if (k < 0) {
      return nonblocking ? returned : start + e.durationNs() / 1e9;
    }
    if (!Double.isNaN(collectiveEnd[k])) {
      return collectiveEnd[k];
    }
    // a member comes here once before the collective ends: it is set aside until the last one comes
    // (a nonblocking call goes on at once: each member comes here once)
    Collective c = collectives.get(k);
    latestArrival[k] = arrivedCount[k] == 0 ? start : Math.max(latestArrival[k], start);
    if (++arrivedCount[k] < c.calls().size()) {
      if (nonblocking) {
        return returned;
      }
      waitsFor = -1 - k;
      return null;
    }
    boolean device = e.call().getDeviceBuffer();
    ParameterKey key = new ParameterKey(c.comm(), c.calls().size(), device);
    CollectiveParameters params = parameters.get(key);
    if (params == null) {
      params = CollectiveParameters.of(cost, c.calls().keySet(), device);
      parameters.put(key, params);
    }
    MpiOp priced = CollectiveMatching.blocking(c.op()); // MPI_Iallreduce: MPI_Allreduce's algorithm
    CollectiveCost.Price alg = CollectiveCost.of(priced, c.calls().size(), c.bytes(), params.alpha(), 0, 0);
    CollectiveCost.Price p = CollectiveCost.of(priced, c.calls().size(), c.bytes(), params.alpha(),
        params.beta(alg.algorithm()), params.gamma());
    double finish = latestArrival[k] + p.seconds();
    collectiveEnd[k] = finish;
    if (members.get(k) != null) {
      ready.addAll(members.get(k));
      members.set(k, null);
    }
    result.collective(c, p, params.interNode());
    return nonblocking ? returned : finish;
  }
}
