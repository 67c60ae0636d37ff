package io.apptrace.replay;

import io.apptrace.cost.MessageCost;
import io.apptrace.job.Message;
import io.apptrace.node.Cluster;
import io.apptrace.node.NodeFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When a job's message leaves its node and how long it takes to arrive (docs/JOBS.md, "Replay on
 * a cluster"): its price ({@link MessageCost}, kept by its ends and size), its wait for its node's
 * NIC while another message holds it ({@code k G + g}), and, where a node's replay ran the
 * message's copies beside the ranks' own ({@link MessageLegs}), those copies' times there instead
 * of their prices alone.
 */
final class MessageTransfers {
  private final Cluster cluster;
  private final MessageCost cost;
  private final Map<PriceKey, MessageCost.Price> prices = new HashMap<>();
  private final double[] nicFree;
  /**
   * Per message, per leg of its price: how long the leg took on its node's replay, seconds (null or
   * NaN: not replayed there, its price alone stands); null: none replayed.
   */
  private double[][] legSeconds;
  /** Per message, per leg: when it started, seconds of the job's time (null: not sent, or no leg replayed). */
  private final double[][] legStart;

  /** What prices a message: its ends and size. */
  private record PriceKey(int source, int dest, long bytes, boolean sendDevice, boolean recvDevice) {}

  /**
   * A message sent.
   *
   * @param inject when it left (after its NIC's wait)
   * @param took from then to its arrival, seconds
   * @param price its price
   */
  record Sent(double inject, double took, MessageCost.Price price) {}

  MessageTransfers(Cluster cluster, MessageCost cost, int messages) {
    this.cluster = cluster;
    this.cost = cost;
    this.nicFree = new double[cluster.nodes()];
    this.legStart = new double[messages][];
  }

  /** Takes each message's legs as long as {@code seconds} says (per message, per leg; null or NaN: its price). */
  void legs(double[][] seconds) {
    this.legSeconds = seconds;
  }

  /** When message {@code m}'s leg {@code leg} started, seconds of the job's time (NaN: never, or not noted). */
  double legStart(int m, int leg) {
    return legStart[m] == null ? Double.NaN : legStart[m][leg];
  }

  /** Message {@code i} ({@code m}) sent by a call that starts at {@code start}. */
  Sent send(int i, Message m, double start) throws NodeFileException {
    PriceKey k = new PriceKey(m.source(), m.dest(), m.bytes(), m.sendDevice(), m.recvDevice());
    MessageCost.Price p = prices.get(k);
    if (p == null) {
      p = cost.of(m.source(), m.dest(), m.bytes(), m.sendDevice(), m.recvDevice());
      prices.put(k, p);
    }
    double inject = start;
    if (p.interNode()) {
      int node = cluster.nodeOf(m.source());
      inject = Math.max(start, nicFree[node]);
      nicFree[node] = inject + p.nicSeconds() + cluster.network().gap();
    }
    return new Sent(inject, transfer(i, p, inject), p);
  }

  /**
   * Message {@code i}'s time from its injection to its arrival: its price, with each leg as long as
   * its node's replay took where it ran there; notes when each leg starts (the sender's at the
   * injection, the receiver's once the data crossed the network).
   */
  private double transfer(int i, MessageCost.Price p, double inject) {
    List<MessageCost.Leg> legs = p.legs();
    if (legs.isEmpty() || legSeconds == null) {
      return p.seconds(); // no node replays its messages' copies
    }
    double[] took = legSeconds[i];
    double[] d = new double[legs.size()];
    double before = 0;
    double after = 0;
    for (int l = 0; l < d.length; l++) {
      d[l] = took == null || l >= took.length || Double.isNaN(took[l]) ? legs.get(l).seconds() : took[l];
      if (legs.get(l).afterWire()) {
        after += d[l];
      } else {
        before += d[l];
      }
    }
    double fixed = p.fixedSeconds();
    legStart[i] = new double[d.length];
    double sender = inject;
    double receiver = inject + before + fixed;
    for (int l = 0; l < d.length; l++) {
      if (legs.get(l).afterWire()) {
        legStart[i][l] = receiver;
        receiver += d[l];
      } else {
        legStart[i][l] = sender;
        sender += d[l];
      }
    }
    return fixed + before + after;
  }
}
