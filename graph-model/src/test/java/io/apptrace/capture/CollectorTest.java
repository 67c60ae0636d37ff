package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.Note;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The collector's descriptors: each closed once, by its owner. A descriptor closed a second time
 * is a number the process may have handed to someone else in between (the kernel gives out the
 * lowest free one, to any thread): the second close takes that file away from its new owner. In
 * `apptrace run` under load the JVM's own threads (reading the cgroup's memory files) took the
 * listening socket's number between the collector's two closes, and the directory stream that
 * removes the socket's folder got it back: its close then failed with EBADF, which JDK 17 throws
 * as a bare sun.nio.fs.UnixException (docs/RELIABILITY.md, "The collector's own descriptors").
 */
class CollectorTest {
  @TempDir Path tmp;

  @Test
  void closingTwiceLeavesTheSocketsOldDescriptorToWhoeverHasItNow() throws Exception {
    try (TraceWriter w = TraceWriter.create(tmp.resolve("t.apptrace"), TraceHeader.getDefaultInstance())) {
      Path socket = tmp.resolve("s");
      Collector c = Collector.start(socket, w);
      int fd = descriptorOf(socket, LISTENING);
      c.close();

      // the next files opened take the free numbers, lowest first: one of them gets the socket's
      List<FileChannel> files = new ArrayList<>();
      Path holder = null;
      try {
        for (int i = 0; i < 512 && holder == null; i++) {
          Path f = tmp.resolve("file" + i);
          files.add(FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
              StandardOpenOption.WRITE));
          if (f.toRealPath().equals(target(fd))) {
            holder = f.toRealPath();
          }
        }
        assertThat(holder).as("a file opened after the close got descriptor %d", fd).isNotNull();

        c.close();

        assertThat(target(fd)).as("descriptor %d after the second close", fd).isEqualTo(holder);
        FileChannel held = files.get(files.size() - 1);
        assertThat(held.write(ByteBuffer.wrap(new byte[] {42}))).isEqualTo(1);
        assertThat(Files.size(holder)).isEqualTo(1);
      } finally {
        for (FileChannel f : files) {
          try {
            f.close();
          } catch (IOException e) {
            // the one the second close took (the assertions above say so)
          }
        }
      }
    }
  }

  /**
   * Receiving from one process fails part way (its descriptor is no longer its socket: the kind of
   * accident above): what it sent before is in the trace, the connection's end says what failed,
   * and closing the collector does not throw: the capture goes on to write the trace's end.
   */
  @Test
  void aConnectionWhoseReceivingFailsKeepsWhatItSentAndSaysWhy() throws Exception {
    Path trace = tmp.resolve("t.apptrace");
    Path socket = tmp.resolve("s");
    int client = -1;
    try (TraceWriter w = TraceWriter.create(trace, TraceHeader.getDefaultInstance())) {
      Collector c = Collector.start(socket, w);
      try {
        client = Client.connect(socket);
        byte[] batch = Batch.newBuilder().setPid(4242).setTid(4242).setSeq(0)
            .addEvents(Event.newBuilder().setEntryNs(1).setNote(Note.newBuilder().setText("sent")))
            .build().toByteArray();
        assertThat(Client.I.send(client, batch, batch.length, 0)).isEqualTo(batch.length);
        waitFor(() -> c.events() == 1, "the batch to arrive");
        // the reader's descriptor becomes /dev/null: its next receive fails (ENOTSOCK)
        int devNull = Client.I.open("/dev/null", 0);
        Client.I.dup2(devNull, descriptorOf(socket, CONNECTED));
        Client.I.close(devNull);
        waitFor(() -> c.activeConnections() == 0, "the reader to give up on the connection");
      } finally {
        c.close();
        if (client >= 0) {
          Client.I.close(client);
        }
      }
      assertThat(c.ended()).singleElement().satisfies(e -> {
        assertThat(e.events()).isEqualTo(1);
        assertThat(e.problem()).hasValueSatisfying(p -> assertThat(p).startsWith("receiving its events failed (")
            .endsWith("): those it sent after that are not in the trace"));
      });
      assertThat(c.problems()).isEmpty();
    }
    assertThat(TraceReader.readAll(trace).records()).extracting(r -> r.event().getNote().getText())
        .containsExactly("sent");
  }

  /** Waits for {@code done}; a minute without it is a hang, not a slow machine. */
  private static void waitFor(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** A traced process's end of the socket, as the interposer opens it. */
  interface Client extends Library {
    Client I = Native.load("c", Client.class);

    int socket(int domain, int type, int protocol) throws LastErrorException;

    int connect(int fd, Pointer addr, int len) throws LastErrorException;

    long send(int fd, byte[] buf, long len, int flags) throws LastErrorException;

    int open(String path, int flags) throws LastErrorException;

    int dup2(int from, int to) throws LastErrorException;

    int close(int fd);

    static int connect(Path path) {
      int fd = I.socket(LibC.AF_UNIX, LibC.SOCK_SEQPACKET | LibC.SOCK_CLOEXEC, 0);
      byte[] name = path.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
      try (Memory addr = new Memory(110)) {
        addr.clear();
        addr.setShort(0, (short) LibC.AF_UNIX);
        addr.write(2, name, 0, name.length);
        I.connect(fd, addr, 2 + name.length + 1);
      }
      return fd;
    }
  }

  /** Socket states in /proc/net/unix. */
  private static final String LISTENING = "01";
  private static final String CONNECTED = "03";

  /**
   * This process's descriptor of the UNIX socket at {@code path} in {@code state}: the listening
   * socket, or the collector's end of a connection (which has the listening socket's path), found
   * by inode in /proc/net/unix.
   */
  private static int descriptorOf(Path path, String state) throws IOException {
    String inode = Files.readAllLines(Path.of("/proc/net/unix")).stream()
        .map(l -> l.trim().split("\\s+"))
        .filter(f -> f.length == 8 && f[7].equals(path.toString()) && f[5].equals(state)).map(f -> f[6])
        .findFirst().orElseThrow(() -> new AssertionError("no socket in state " + state + " at " + path));
    List<Integer> fds = new ArrayList<>();
    try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path p : s.toList()) {
        Path t = target(Integer.parseInt(p.getFileName().toString()));
        if (t != null && t.toString().equals("socket:[" + inode + "]")) {
          fds.add(Integer.parseInt(p.getFileName().toString()));
        }
      }
    }
    assertThat(fds).as("descriptors of the socket at %s", path).hasSize(1);
    return fds.get(0);
  }

  /** What descriptor {@code fd} of this process is open on, or null when it is not open. */
  private static Path target(int fd) throws IOException {
    try {
      return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd));
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
