package io.apptrace.replay;

import io.apptrace.cost.CollectiveCost;
import io.apptrace.cost.CollectiveParameters;
import io.apptrace.cost.MessageCost;
import io.apptrace.job.Collective;
import io.apptrace.job.CollectiveMatching;
import io.apptrace.job.Job;
import io.apptrace.job.Message;
import io.apptrace.job.MessageMatching;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.util.ArrayList;
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
  private final Map<Long, Message> sendAt = new HashMap<>();
  private final Map<Long, Message> recvAt = new HashMap<>();
  private final Map<Long, Collective> collectiveAt = new HashMap<>();
  private final Map<Message, Double> arrival = new HashMap<>();
  private final Map<Long, Double> sentHalf = new HashMap<>();
  private final Map<Message, Double> sendComplete = new HashMap<>();
  private final Map<Collective, Map<Integer, Double>> arrived = new HashMap<>();
  private final Map<Collective, Double> collectiveEnd = new HashMap<>();
  /** What a rank set aside waits for (a message or a collective), and the ranks waiting for it. */
  private final Map<Object, List<Cursor>> waiting = new HashMap<>();
  private final PriorityQueue<Cursor> ready = new PriorityQueue<>(
      Comparator.comparingDouble(Cursor::nextStart).thenComparingInt(c -> c.trace.rank()));
  private Object waitsFor;
  private final double[] nicFree;
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
    this.job = job;
    this.cluster = cluster;
    this.cost = new MessageCost(cluster);
    if (job.worldSize() > cluster.ranks()) {
      throw new NodeFileException("the job has " + job.worldSize() + " ranks and the cluster " + cluster.name()
          + " holds " + cluster.ranks() + " (" + cluster.nodes() + " nodes x " + cluster.ranksPerNode()
          + " ranks); give more nodes with --nodes");
    }
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
    for (Message m : MessageMatching.of(job).messages()) {
      sendAt.put(key(m.source(), m.sendPost()), m);
      recvAt.put(key(m.dest(), m.recvPost()), m);
    }
    for (Collective c : CollectiveMatching.of(job).collectives()) {
      c.calls().forEach((rank, index) -> collectiveAt.put(key(rank, index), c));
    }
    this.nicFree = new double[cluster.nodes()];
    this.result = new JobReplayResult.Builder(cluster, segments);
  }

  private static long key(int rank, int index) {
    return ((long) rank << 32) | (index & 0xffffffffL);
  }

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
      waitsFor = null;
      if (step(c)) {
        if (!c.done()) {
          ready.add(c);
        }
      } else {
        waiting.computeIfAbsent(waitsFor, k -> new ArrayList<>()).add(c);
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
    return result.build();
  }

  /** What the ranks set aside for {@code what} waited for is replayed: they go back in the queue. */
  private void wake(Object what) {
    List<Cursor> w = waiting.remove(what);
    if (w != null) {
      ready.addAll(w);
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
        Double s = sentHalf.get(key(rank, e.index()));
        if (s == null) {
          s = send(rank, e, start);
          sentHalf.put(key(rank, e.index()), s);
        }
        Double r = receiveReady(rank, e.index());
        yield r == null ? null : Math.max(s, Math.max(start, r));
      }
      case MPI_WAIT, MPI_WAITALL, MPI_WAITANY, MPI_TEST -> completions(rank, e, start);
      // the launcher's start-up and tear-down are not the cluster's: every rank leaves MPI_Init
      // at 0, and MPI_Finalize ends the rank's MPI (both reported with their traced time apart)
      case MPI_INIT, MPI_FINALIZE -> start;
      default -> CollectiveMatching.isCollective(e.call().getOp()) ? collective(rank, e, start)
          : Double.valueOf(start + e.durationNs() / 1e9);
    };
    if (end == null) {
      return false;
    }
    result.account(rank, e.call().getOp(), gap, end - start, e.durationNs() / 1e9);
    c.clock = end;
    c.next++;
    return true;
  }

  /** Prices and injects a send; returns when the sender is done with it. */
  private double send(int rank, MpiEvent e, double start) throws NodeFileException {
    Message m = sendAt.get(key(rank, e.index()));
    if (m == null) {
      return start + cluster.network().overhead(); // its receive is not in the traces
    }
    MessageCost.Price p = cost.of(m.source(), m.dest(), m.bytes(), m.sendDevice(), m.recvDevice());
    double inject = start;
    if (p.interNode()) {
      int node = cluster.nodeOf(rank);
      inject = Math.max(start, nicFree[node]);
      nicFree[node] = inject + p.nicSeconds() + cluster.network().gap();
    }
    double arrive = inject + p.seconds();
    arrival.put(m, arrive);
    wake(m);
    double done = inject + cluster.network().overhead() + p.nicSeconds();
    sendComplete.put(m, done);
    result.message(m, p, inject - start);
    return done;
  }

  /** When the message a receive posted at call {@code index} matched has arrived; null: its send is not replayed yet. */
  private Double receiveReady(int rank, int index) {
    Message m = recvAt.get(key(rank, index));
    if (m == null) {
      return 0.0; // its send is not in the traces
    }
    Double at = arrival.get(m);
    if (at == null) {
      waitsFor = m;
    }
    return at;
  }

  private Double receive(int rank, int index, double start) {
    Double r = receiveReady(rank, index);
    return r == null ? null : Math.max(start, r);
  }

  private Double completions(int rank, MpiEvent e, double start) {
    double end = start;
    for (MpiCompletion done : e.call().getCompletedList()) {
      int post = postOf(rank, done.getRequest());
      if (post < 0) {
        continue;
      }
      if (done.getReceive()) {
        Double r = receiveReady(rank, post);
        if (r == null) {
          return null;
        }
        end = Math.max(end, r);
      } else {
        Message m = sendAt.get(key(rank, post));
        Double s = m == null ? null : sendComplete.get(m);
        end = Math.max(end, s == null ? start : s);
      }
    }
    return end;
  }

  private final Map<Integer, Map<Long, Integer>> posts = new HashMap<>();

  /** The index of the Isend or Irecv that started request {@code request} of a rank. */
  private int postOf(int rank, long request) {
    Map<Long, Integer> p = posts.computeIfAbsent(rank, r -> {
      Map<Long, Integer> m = new HashMap<>();
      for (MpiEvent e : job.rank(r).calls()) {
        if (e.call().getRequest() != 0) {
          m.put(e.call().getRequest(), e.index());
        }
      }
      return m;
    });
    return p.getOrDefault(request, -1);
  }

  private Double collective(int rank, MpiEvent e, double start) throws NodeFileException {
    Collective c = collectiveAt.get(key(rank, e.index()));
    if (c == null) {
      return start + e.durationNs() / 1e9;
    }
    Double end = collectiveEnd.get(c);
    if (end != null) {
      return end;
    }
    Map<Integer, Double> in = arrived.computeIfAbsent(c, k -> new HashMap<>());
    in.put(rank, start);
    if (in.size() < c.calls().size()) {
      waitsFor = c;
      return null;
    }
    double begin = in.values().stream().mapToDouble(Double::doubleValue).max().orElse(start);
    CollectiveParameters params = CollectiveParameters.of(cost, c.calls().keySet(), e.call().getDeviceBuffer());
    CollectiveCost.Price alg = CollectiveCost.of(c.op(), c.calls().size(), c.bytes(), params.alpha(), 0, 0);
    CollectiveCost.Price p = CollectiveCost.of(c.op(), c.calls().size(), c.bytes(), params.alpha(),
        params.beta(alg.algorithm()), params.gamma());
    double finish = begin + p.seconds();
    collectiveEnd.put(c, finish);
    wake(c);
    result.collective(c, p, params.interNode());
    return finish;
  }
}
