package io.apptrace.job;

import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches every send of a job to its receive as MPI does: a receive takes the earliest send not
 * yet taken from its source on its communicator with its tag (MPI's non-overtaking rule), in the
 * order the receives were posted. A receive is keyed by the source and tag it matched (its
 * completion's status), so wildcards (MPI_ANY_SOURCE, MPI_ANY_TAG) match what they matched in
 * the run; a receive never seen completed keeps the source and tag it was posted with, and is left
 * unmatched when those were wildcards.
 *
 * @param messages every matched send and receive
 * @param unmatchedSends sends no receive in the job's traces took (their destination's trace is
 *     missing, or the receive was never posted or completed), by rank and post
 * @param unmatchedReceives receives no send matched, by rank and post
 * @param probes every MPI_Probe, with the message it found: the earliest send not yet received
 *     from the source and with the tag its status reported, on its communicator (the one a receive
 *     posted in its place would take, MPI Forum 2021, 3.8.1), which stays to be received
 */
public record MessageMatching(List<Message> messages, List<Half> unmatchedSends, List<Half> unmatchedReceives,
    List<Probe> probes) {
  public MessageMatching {
    messages = List.copyOf(messages);
    unmatchedSends = List.copyOf(unmatchedSends);
    unmatchedReceives = List.copyOf(unmatchedReceives);
    probes = List.copyOf(probes);
  }

  /**
   * An MPI_Probe of one rank and the message it found.
   *
   * @param rank the rank that made it
   * @param call the index of the probe among the rank's MPI calls
   * @param message the index of the message in {@link #messages()} (-1: its send is not in the traces)
   */
  public record Probe(int rank, int call, int message) {}

  /** A receive, or a probe (which takes nothing), in the order its rank posted it. */
  private record Posted(Half half, boolean probe) {}

  /**
   * A send or a receive of one rank.
   *
   * @param rank the rank that made it
   * @param peer the destination (a send) or the source it matched (a receive; -1: MPI_ANY_SOURCE
   *     never seen completed)
   * @param comm the communicator's id
   * @param tag the tag (a receive: as matched; -1: MPI_ANY_TAG never seen completed)
   * @param bytes the bytes sent or received
   * @param device the buffer was device memory
   * @param post the index of the call that started it, among the rank's MPI calls
   * @param done the index of the call that completed it (-1: never seen completed)
   */
  public record Half(int rank, int peer, long comm, int tag, long bytes, boolean device, int post, int done) {}

  private record Key(long comm, int source, int dest, int tag) {}

  public static MessageMatching of(Job job) {
    Map<Key, ArrayDeque<Half>> sends = new HashMap<>();
    List<List<Posted>> receives = new ArrayList<>();
    for (RankTrace t : job.ranks()) {
      List<Half> s = new ArrayList<>();
      List<Posted> r = new ArrayList<>();
      halves(t, s, r);
      for (Half h : s) {
        sends.computeIfAbsent(new Key(h.comm(), t.rank(), h.peer(), h.tag()), k -> new ArrayDeque<>()).add(h);
      }
      receives.add(r);
    }
    List<Message> messages = new ArrayList<>();
    List<Half> unmatchedReceives = new ArrayList<>();
    List<Half[]> probed = new ArrayList<>(); // the probe and the send it found
    for (List<Posted> rs : receives) {
      for (Posted posted : rs) {
        Half r = posted.half();
        ArrayDeque<Half> q = r.peer() < 0 || r.tag() < 0 ? null : sends.get(new Key(r.comm(), r.peer(), r.rank(), r.tag()));
        if (posted.probe()) {
          probed.add(new Half[] {r, q == null ? null : q.peek()});
          continue;
        }
        Half s = q == null ? null : q.poll();
        if (s == null) {
          unmatchedReceives.add(r);
          continue;
        }
        messages.add(new Message(s.rank(), r.rank(), r.comm(), r.tag(), Math.min(s.bytes(), r.bytes()), s.device(),
            r.device(), s.post(), s.done(), r.post(), r.done()));
      }
    }
    List<Half> unmatchedSends = new ArrayList<>();
    sends.values().forEach(unmatchedSends::addAll);
    unmatchedSends.sort(Comparator.comparingInt(Half::rank).thenComparingInt(Half::post));
    Map<Long, Integer> messageBySend = new HashMap<>(); // only for the probes: a job without keeps no such map
    for (int i = 0; !probed.isEmpty() && i < messages.size(); i++) {
      messageBySend.put(((long) messages.get(i).source() << 32) | messages.get(i).sendPost(), i);
    }
    List<Probe> probes = new ArrayList<>();
    for (Half[] p : probed) {
      Integer m = p[1] == null ? null : messageBySend.get(((long) p[1].rank() << 32) | p[1].post());
      probes.add(new Probe(p[0].rank(), p[0].post(), m == null ? -1 : m));
    }
    return new MessageMatching(messages, unmatchedSends, unmatchedReceives, probes);
  }

  /** A rank's sends and receives (and probes) in the order it posted them, with where each completed. */
  private static void halves(RankTrace t, List<Half> sends, List<Posted> receives) {
    Map<Long, Integer> doneBy = new HashMap<>();
    Map<Long, MpiCompletion> status = new HashMap<>();
    for (MpiEvent e : t.calls()) {
      for (MpiCompletion c : e.call().getCompletedList()) {
        if (c.getRequest() != 0) {
          doneBy.putIfAbsent(c.getRequest(), e.index());
          status.putIfAbsent(c.getRequest(), c);
        }
      }
    }
    int me = t.rank();
    for (MpiEvent e : t.calls()) {
      MpiCall c = e.call();
      if (e.result() != 0) {
        continue;
      }
      int i = e.index();
      MpiOp op = c.getOp();
      switch (op) {
        case MPI_SEND, MPI_SSEND -> add(sends, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(),
            c.getDeviceBuffer(), i, i));
        case MPI_ISEND -> add(sends, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(),
            c.getDeviceBuffer(), i, doneBy.getOrDefault(c.getRequest(), -1)));
        case MPI_RECV -> receive(receives, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(),
            c.getDeviceBuffer(), i, i));
        case MPI_PROBE -> {
          if (c.getPeer() != -2) {
            receives.add(new Posted(new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(), false, i, i), true));
          }
        }
        case MPI_IRECV -> {
          MpiCompletion done = c.getRequest() == 0 ? null : status.get(c.getRequest());
          receive(receives, done == null
              ? new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(), c.getDeviceBuffer(), i, -1)
              : new Half(me, done.getSource(), c.getComm(), done.getTag(), done.getBytes(), c.getDeviceBuffer(), i,
                  doneBy.get(c.getRequest())));
        }
        case MPI_SENDRECV -> {
          add(sends, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(), c.getDeviceBuffer(), i, i));
          receive(receives, new Half(me, c.getRecvPeer(), c.getComm(), c.getRecvTag(), c.getRecvBytes(),
              c.getRecvDeviceBuffer(), i, i));
        }
        default -> { }
      }
    }
  }

  /** MPI_PROC_NULL (-2) sends and receives move nothing. */
  private static void add(List<Half> to, Half h) {
    if (h.peer() != -2) {
      to.add(h);
    }
  }

  private static void receive(List<Posted> to, Half h) {
    if (h.peer() != -2) {
      to.add(new Posted(h, false));
    }
  }
}
