package io.apptrace.capture;

import com.sun.jna.Memory;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.ProcessEnd;
import io.apptrace.trace.TraceWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Receives the batches traced processes send and writes them to the trace as they arrive. One
 * thread accepts connections (one per traced process, children included); one thread per
 * connection receives its packets. Memory does not grow with the trace: each connection holds one
 * packet buffer, and every packet goes to the file before the next is read. When a process's
 * connection closes, the events it wrote but never sent (it was killed) are read from its shared
 * buffers ({@link SharedBuffers}).
 *
 * <p>Only processes of the same user may connect (checked with SO_PEERCRED, on top of the
 * socket's private 0700 directory).
 */
public final class Collector implements Closeable {
  /** Larger than any packet the interposer sends (its buffers are 320 KiB). */
  private static final int PACKET_BYTES = 4 << 20;

  private static final int POLL_MS = 100;

  private final SeqpacketServer server;
  private final TraceWriter writer;
  private final int uid = LibC.INSTANCE.getuid();
  private final Thread acceptor;
  private final List<Thread> readers = new ArrayList<>();
  private final List<ConnectionEnd> ended = new ArrayList<>();
  private final AtomicLong events = new AtomicLong();
  private final AtomicLong packets = new AtomicLong();
  private final AtomicInteger active = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  /** True while the acceptor takes a connection off the queue and until it counts it as active. */
  private volatile boolean accepting;
  private volatile boolean stopping;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Why the acceptor stopped before {@link #close()}, if it did. */
  private volatile String acceptFailure;
  private volatile WriteFailure writeFailure;

  private Collector(SeqpacketServer server, TraceWriter writer) {
    this.server = server;
    this.writer = writer;
    this.acceptor = new Thread(this::acceptLoop, "apptrace-accept");
    acceptor.setDaemon(true);
  }

  /** Listens at {@code socket} and writes what arrives to {@code writer}. */
  public static Collector start(Path socket, TraceWriter writer) throws IOException {
    Objects.requireNonNull(socket, "socket");
    Objects.requireNonNull(writer, "writer");
    Collector c = new Collector(SeqpacketServer.bind(socket), writer);
    c.acceptor.start();
    return c;
  }

  /** Events received so far, from every process. */
  public long events() {
    return events.get();
  }

  /** Connections accepted so far (one per traced process). */
  public int connections() {
    return connections.get();
  }

  /** Connections still open. */
  public int activeConnections() {
    return active.get();
  }

  /**
   * Waits until every connection has closed, for at most {@code timeout}. A connection still
   * waiting to be accepted counts as open: a process connects at its start, so a short one can
   * have exited, its events all sent, before the acceptor got to run.
   *
   * @return whether all connections closed
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!idle() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return idle();
  }

  /**
   * No connection queued, being accepted or open. Read in this order: a connection leaves the
   * queue only while {@code accepting} is set, which is cleared only after {@code active} counts it.
   * A listening socket that cannot be polled has nothing more to give (the acceptor stops on it).
   */
  private boolean idle() {
    boolean queued;
    try {
      queued = server.incoming(0);
    } catch (IOException e) {
      queued = false;
    }
    return !queued && !accepting && active.get() == 0;
  }

  /** How each connection ended, in the order they ended; complete after {@link #close()}. */
  public synchronized List<ConnectionEnd> ended() {
    return List.copyOf(ended);
  }

  /**
   * Stops accepting (connections already queued are still accepted and read: their processes may
   * have exited before the acceptor ran), closes connections still open (what they sent is kept),
   * and waits for the reader threads. A second call does nothing.
   *
   * <p>Nothing that went wrong while receiving is thrown: what was received is in the trace
   * whatever happened after, and the trace's end says what failed ({@link ConnectionEnd#problem()}
   * of a connection whose receiving failed, {@link #problems()}, {@link #writeFailure()}).
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopping = true;
    try {
      acceptor.join();
      List<Thread> all;
      synchronized (this) {
        all = List.copyOf(readers);
      }
      for (Thread t : all) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.close();
    }
  }

  /** What went wrong in the collector itself, for the trace's notes (a failed accept). */
  public List<String> problems() {
    String a = acceptFailure;
    return a == null ? List.of() : List.of("the collector stopped accepting connections (" + a + "): processes"
        + " started after that are not in the trace; the program ran on");
  }

  private void acceptLoop() {
    try {
      int drained = 0;
      while (true) {
        // Once stopping, the queue is emptied without waiting: a connection queued before close()
        // holds events (all of them, when its process has exited) and is never left behind. At
        // most a backlog's worth is taken then, so that processes still connecting cannot hold
        // close() up for ever.
        boolean last = stopping;
        if (last && drained++ >= SeqpacketServer.BACKLOG) {
          return;
        }
        if (!server.incoming(last ? 0 : POLL_MS)) {
          if (last) {
            return;
          }
          continue;
        }
        accepting = true;
        try {
          int fd = server.acceptNow();
          if (fd >= 0) {
            active.incrementAndGet();
            accepted(fd);
          }
        } finally {
          accepting = false;
        }
      }
    } catch (IOException e) {
      acceptFailure = e.getMessage();
    }
  }

  /** Starts the reader of a connection counted in {@code active}, or refuses it. */
  private void accepted(int fd) {
    int[] cred = SeqpacketServer.peerCredentials(fd);
    if (cred[1] != uid) {
      SeqpacketServer.closeFd(fd);
      synchronized (this) {
        ended.add(new ConnectionEnd(cred[0], 0, 0, 0, Optional.empty(),
            Optional.of("refused a connection from uid " + cred[1] + " (pid " + cred[0] + ")")));
      }
      active.decrementAndGet();
      return;
    }
    SeqpacketServer.setReceiveBuffer(fd, 8 << 20);
    connections.incrementAndGet();
    Thread t = new Thread(() -> readLoop(fd, cred[0]), "apptrace-conn-" + cred[0]);
    t.setDaemon(true);
    synchronized (this) {
      readers.add(t);
    }
    t.start();
  }

  private void readLoop(int fd, int pid) {
    Inbound in = new Inbound();
    try (Connection conn = new Connection(fd, PACKET_BYTES)) {
      // Closed by the peer: the process is gone, and its buffers can be read. (A live one still
      // connected when the collector stops is never read behind its back.)
      if (in.receiveAll(conn) && conn.regionFd() >= 0) {
        in.recovered = SharedBuffers.drain(conn.regionFd(), in.lastBatch, this::write);
        events.addAndGet(in.recovered.events());
        in.received += in.recovered.events();
        in.lost += in.recovered.lost();
      }
    } catch (IOException e) {
      // what came before is in the trace; the process, which may still be sending, is not told
      in.problem = (in.problem == null ? "" : in.problem + "; ") + "receiving its events failed (" + e.getMessage()
          + "): those it sent after that are not in the trace";
    } finally {
      synchronized (this) {
        ended.add(new ConnectionEnd(pid, in.received, in.recovered.events(), in.lost,
            processEnd(in.last, in.lastLen), Optional.ofNullable(in.problem)));
      }
      active.decrementAndGet();
    }
  }

  /** What one connection has delivered so far. */
  private final class Inbound {
    long received;
    long lost;
    SharedBuffers.Recovered recovered = SharedBuffers.Recovered.NONE;
    String problem;
    /** Per thread: sequence number and event count of its last batch (see SharedBuffers). */
    final Map<Integer, long[]> lastBatch = new HashMap<>();
    // Two arrays in turn: the one just written is kept as `last` until the next packet arrives,
    // so the final packet (which holds ProcessEnd) is at hand without copying every packet.
    byte[] packet = new byte[64 * 1024];
    byte[] last;
    int lastLen;

    /** Receives and writes packets until the peer closes (true) or the collector stops (false). */
    boolean receiveAll(Connection conn) throws IOException {
      while (true) {
        long n = conn.receive(POLL_MS);
        if (n == 0) {
          return true;
        }
        if (n < 0) {
          if (stopping) {
            return false;
          }
        } else if (n > PACKET_BYTES) {
          problem = "a packet of " + n + " bytes was too large and lost";
        } else {
          take(conn, (int) n);
        }
      }
    }

    private void take(Connection conn, int len) {
      if (packet.length < len) {
        packet = new byte[Math.max(len, packet.length * 2)];
      }
      conn.packet().read(0, packet, 0, len);
      BatchScan scan = BatchScan.of(packet, len);
      if (!write(packet, len)) {
        lost += scan.events;
      }
      events.addAndGet(scan.events);
      received += scan.events;
      packets.incrementAndGet();
      long[] seqAndEvents = lastBatch.computeIfAbsent(scan.tid, t -> new long[2]);
      seqAndEvents[0] = scan.seq;
      seqAndEvents[1] = scan.events;
      byte[] spare = last != null ? last : new byte[packet.length];
      last = packet;
      lastLen = len;
      packet = spare;
    }
  }

  /**
   * Writes a batch unless writing has failed before. A failed write (a full disk) is recorded
   * once; the traced processes are not told: their batches are still received, and counted.
   *
   * @return whether the batch is in the trace
   */
  private boolean write(byte[] batch, int length) {
    synchronized (writer) {
      if (writeFailure != null) {
        return false;
      }
      try {
        writer.writeBatch(batch, 0, length);
        return true;
      } catch (IOException e) {
        failWrites(e);
        return false;
      }
    }
  }

  private void failWrites(IOException e) {
    synchronized (writer) {
      if (writeFailure == null) {
        writeFailure = WriteFailure.of(e);
      }
    }
  }

  /** The first failed write of the trace, if any. */
  public Optional<WriteFailure> writeFailure() {
    return Optional.ofNullable(writeFailure);
  }

  /** The ProcessEnd record, which the interposer sends last. */
  private static Optional<ProcessEnd> processEnd(byte[] lastPacket, int length) {
    if (lastPacket == null) {
      return Optional.empty();
    }
    try {
      Batch b = Batch.parseFrom(com.google.protobuf.CodedInputStream.newInstance(lastPacket, 0, length));
      for (int i = b.getEventsCount() - 1; i >= 0; i--) {
        Event e = b.getEvents(i);
        if (e.hasProcessEnd()) {
          return Optional.of(e.getProcessEnd());
        }
      }
    } catch (IOException e) {
      // a damaged last packet: the reader reports it; here it only means no clean end is known
    }
    return Optional.empty();
  }
}
