package io.apptrace.replay;

import io.apptrace.job.Collective;
import io.apptrace.job.CollectiveMatching;
import io.apptrace.job.Job;
import io.apptrace.job.Message;
import io.apptrace.job.MessageMatching;
import io.apptrace.job.MpiEvent;
import io.apptrace.job.RankTrace;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's messages and collectives matched, and where each rank's calls send, receive or join
 * them: what every replay of the job shares, whatever its segments.
 *
 * @param sendAt per rank, per MPI call: the index of the message it sends (-1: none)
 * @param recvAt per rank, per MPI call: the index of the message it receives (-1: none)
 * @param collectiveAt per rank, per MPI call: the index of the collective it joins (-1: none)
 * @param posts per rank: request to the index of the Isend, Irecv or nonblocking collective that
 *     started it
 * @param probeAt per rank, per MPI call: the index of the message an MPI_Probe found (-1: none)
 */
record JobMatching(List<Message> messages, List<Collective> collectives, int[][] sendAt, int[][] recvAt,
    int[][] collectiveAt, Map<Long, Integer>[] posts, int[][] probeAt) {
  /** Matches the job's messages and collectives. */
  static JobMatching of(Job job) {
    int world = job.worldSize();
    int[][] sendAt = new int[world][];
    int[][] recvAt = new int[world][];
    int[][] collectiveAt = new int[world][];
    int[][] probeAt = new int[world][];
    @SuppressWarnings("unchecked")
    Map<Long, Integer>[] posts = new Map[world];
    for (RankTrace t : job.ranks()) {
      int r = t.rank();
      int n = t.calls().size();
      sendAt[r] = filled(n);
      recvAt[r] = filled(n);
      collectiveAt[r] = filled(n);
      probeAt[r] = filled(n);
      posts[r] = new HashMap<>();
      for (MpiEvent e : t.calls()) {
        if (e.call().getRequest() != 0) {
          posts[r].put(e.call().getRequest(), e.index());
        }
      }
    }
    MessageMatching matching = MessageMatching.of(job);
    List<Message> messages = matching.messages();
    for (MessageMatching.Probe p : matching.probes()) {
      probeAt[p.rank()][p.call()] = p.message();
    }
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      sendAt[m.source()][m.sendPost()] = i;
      recvAt[m.dest()][m.recvPost()] = i;
    }
    List<Collective> collectives = CollectiveMatching.of(job).collectives();
    for (int i = 0; i < collectives.size(); i++) {
      int index = i;
      collectives.get(i).calls().forEach((rank, call) -> collectiveAt[rank][call] = index);
    }
    return new JobMatching(messages, collectives, sendAt, recvAt, collectiveAt, posts, probeAt);
  }

  private static int[] filled(int n) {
    int[] a = new int[n];
    Arrays.fill(a, -1);
    return a;
  }
}
