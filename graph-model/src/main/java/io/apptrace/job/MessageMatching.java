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
 */
public record MessageMatching(List<Message> messages, List<Half> unmatchedSends, List<Half> unmatchedReceives) {
  public MessageMatching {
    messages = List.copyOf(messages);
    unmatchedSends = List.copyOf(unmatchedSends);
    unmatchedReceives = List.copyOf(unmatchedReceives);
  }

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
    List<List<Half>> receives = new ArrayList<>();
    for (RankTrace t : job.ranks()) {
      List<Half> s = new ArrayList<>();
      List<Half> r = new ArrayList<>();
      halves(t, s, r);
      for (Half h : s) {
        sends.computeIfAbsent(new Key(h.comm(), t.rank(), h.peer(), h.tag()), k -> new ArrayDeque<>()).add(h);
      }
      receives.add(r);
    }
    List<Message> messages = new ArrayList<>();
    List<Half> unmatchedReceives = new ArrayList<>();
    for (List<Half> rs : receives) {
      for (Half r : rs) {
        ArrayDeque<Half> q = r.peer() < 0 || r.tag() < 0 ? null : sends.get(new Key(r.comm(), r.peer(), r.rank(), r.tag()));
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
    return new MessageMatching(messages, unmatchedSends, unmatchedReceives);
  }

  /** A rank's sends and receives in the order it posted them, with where each completed. */
  private static void halves(RankTrace t, List<Half> sends, List<Half> receives) {
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
        case MPI_RECV -> add(receives, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(),
            c.getDeviceBuffer(), i, i));
        case MPI_IRECV -> {
          MpiCompletion done = c.getRequest() == 0 ? null : status.get(c.getRequest());
          add(receives, done == null
              ? new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(), c.getDeviceBuffer(), i, -1)
              : new Half(me, done.getSource(), c.getComm(), done.getTag(), done.getBytes(), c.getDeviceBuffer(), i,
                  doneBy.get(c.getRequest())));
        }
        case MPI_SENDRECV -> {
          add(sends, new Half(me, c.getPeer(), c.getComm(), c.getTag(), c.getBytes(), c.getDeviceBuffer(), i, i));
          add(receives, new Half(me, c.getRecvPeer(), c.getComm(), c.getRecvTag(), c.getRecvBytes(),
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
}
