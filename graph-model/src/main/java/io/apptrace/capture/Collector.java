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
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Receives the batches traced processes send and writes them to the trace as they arrive. One
 * thread accepts connections (one per traced process, children included); one thread per
 * connection receives its packets. Memory does not grow with the trace: each connection holds one
 * packet buffer, and every packet goes to the file before the next is read.
 *
 * <p>Only processes of the same user may connect (checked with SO_PEERCRED, on top of the
 * socket's private 0700 directory).
 */
public final class Collector implements Closeable {
  /** Larger than any packet the interposer sends (its buffers are 96 KiB). */
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
  private volatile boolean stopping;
  private volatile IOException failure;

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
   * Waits until every connection has closed, for at most {@code timeout}.
   *
   * @return whether all connections closed
   */
  public boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (active.get() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return active.get() == 0;
  }

  /** How each connection ended, in the order they ended; complete after {@link #close()}. */
  public synchronized List<ConnectionEnd> ended() {
    return List.copyOf(ended);
  }

  /**
   * Stops accepting, closes connections still open (what they sent is kept), and waits for the
   * reader threads.
   *
   * @throws IOException if writing the trace failed while collecting
   */
  @Override
  public void close() throws IOException {
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
    if (failure != null) {
      throw failure;
    }
  }

  private void acceptLoop() {
    try {
      while (!stopping) {
        int fd = server.accept(POLL_MS);
        if (fd < 0) {
          continue;
        }
        int[] cred = SeqpacketServer.peerCredentials(fd);
        if (cred[1] != uid) {
          SeqpacketServer.closeFd(fd);
          synchronized (this) {
            ended.add(new ConnectionEnd(cred[0], 0, Optional.empty(),
                Optional.of("refused a connection from uid " + cred[1] + " (pid " + cred[0] + ")")));
          }
          continue;
        }
        SeqpacketServer.setReceiveBuffer(fd, 8 << 20);
        connections.incrementAndGet();
        active.incrementAndGet();
        Thread t = new Thread(() -> readLoop(fd, cred[0]), "apptrace-conn-" + cred[0]);
        t.setDaemon(true);
        synchronized (this) {
          readers.add(t);
        }
        t.start();
      }
    } catch (IOException e) {
      failure = e;
    }
  }

  private void readLoop(int fd, int pid) {
    long received = 0;
    // Two arrays in turn: the one just written is kept as `last` until the next packet arrives,
    // so the final packet (which holds ProcessEnd) is at hand without copying every packet.
    byte[] packet = new byte[64 * 1024];
    byte[] last = null;
    int lastLen = 0;
    String problem = null;
    try (Memory buf = new Memory(PACKET_BYTES)) {
      while (true) {
        long n = SeqpacketServer.receive(fd, buf, POLL_MS);
        if (n == 0) {
          break;
        }
        if (n < 0) {
          if (stopping) {
            break;
          }
          continue;
        }
        if (n > PACKET_BYTES) {
          problem = "a packet of " + n + " bytes was too large and lost";
          continue;
        }
        int len = (int) n;
        if (packet.length < len) {
          packet = new byte[Math.max(len, packet.length * 2)];
        }
        buf.read(0, packet, 0, len);
        writer.writeBatch(packet, 0, len);
        BatchScan scan = BatchScan.of(packet, len);
        events.addAndGet(scan.events);
        received += scan.events;
        packets.incrementAndGet();
        byte[] spare = last != null ? last : new byte[packet.length];
        last = packet;
        lastLen = len;
        packet = spare;
      }
    } catch (IOException e) {
      failure = e;
    } finally {
      SeqpacketServer.closeFd(fd);
      synchronized (this) {
        ended.add(new ConnectionEnd(pid, received, processEnd(last, lastLen),
            Optional.ofNullable(problem)));
      }
      active.decrementAndGet();
    }
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
