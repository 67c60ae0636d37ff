package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.ptr.IntByReference;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listening AF_UNIX SOCK_SEQPACKET socket, and its accepted connections. Java's own UNIX
 * sockets are stream sockets only; packets keep each Batch whole, which lets every thread of a
 * traced process send without a shared lock.
 */
final class SeqpacketServer implements Closeable {
  /** Connections the kernel queues before they are accepted. */
  static final int BACKLOG = 128;

  private static final int SUN_PATH_MAX = 108;
  /**
   * The listening socket; -1 once closed. A descriptor is closed once only: closed again, its
   * number may by then be another thread's file (see {@link #close()}).
   */
  private final AtomicInteger fd;

  private SeqpacketServer(int fd) {
    this.fd = new AtomicInteger(fd);
  }

  /** Binds and listens at {@code path} (which must not exist). */
  static SeqpacketServer bind(Path path) throws IOException {
    Objects.requireNonNull(path, "path");
    byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
    if (name.length >= SUN_PATH_MAX) {
      throw new IOException("socket path " + path + " is longer than " + (SUN_PATH_MAX - 1)
          + " bytes; set TMPDIR to a shorter directory");
    }
    int fd;
    try {
      fd = LibC.INSTANCE.socket(LibC.AF_UNIX, LibC.SOCK_SEQPACKET | LibC.SOCK_CLOEXEC, 0);
    } catch (LastErrorException e) {
      throw new IOException("cannot create a UNIX socket: " + e.getMessage(), e);
    }
    try (Memory addr = new Memory(2 + SUN_PATH_MAX)) {
      addr.clear();
      addr.setShort(0, (short) LibC.AF_UNIX);
      addr.write(2, name, 0, name.length);
      LibC.INSTANCE.bind(fd, addr, 2 + name.length + 1);
      LibC.INSTANCE.listen(fd, BACKLOG);
    } catch (LastErrorException e) {
      LibC.INSTANCE.close(fd);
      throw new IOException("cannot listen on " + path + ": " + e.getMessage(), e);
    }
    return new SeqpacketServer(fd);
  }

  /** Waits up to {@code timeoutMs} for a connection; -1 when none arrived. */
  int accept(int timeoutMs) throws IOException {
    return incoming(timeoutMs) ? acceptNow() : -1;
  }

  /**
   * Whether a connection waits to be accepted (or one arrives within {@code timeoutMs}): a peer's
   * connect() succeeds once the connection is queued, before it is accepted.
   */
  boolean incoming(int timeoutMs) throws IOException {
    int listening = fd.get();
    return listening >= 0 && readable(listening, timeoutMs);
  }

  /** Accepts a connection that {@link #incoming} reported; -1 when interrupted. */
  int acceptNow() throws IOException {
    int listening = fd.get();
    if (listening < 0) {
      return -1;
    }
    try {
      return LibC.INSTANCE.accept4(listening, null, null, LibC.SOCK_CLOEXEC);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == LibC.EINTR || e.getErrorCode() == LibC.EAGAIN) {
        return -1;
      }
      throw new IOException("accept failed: " + e.getMessage(), e);
    }
  }

  /** Whether {@code fd} becomes readable (data or end of file) within {@code timeoutMs}. */
  static boolean readable(int fd, int timeoutMs) throws IOException {
    try (Memory pfd = new Memory(8)) {
      pfd.setInt(0, fd);
      pfd.setShort(4, LibC.POLLIN);
      pfd.setShort(6, (short) 0);
      try {
        return LibC.INSTANCE.poll(pfd, 1, timeoutMs) > 0;
      } catch (LastErrorException e) {
        if (e.getErrorCode() == LibC.EINTR) {
          return false;
        }
        throw new IOException("poll failed: " + e.getMessage(), e);
      }
    }
  }

  /** The peer's credentials (pid, uid) of a connected socket. */
  static int[] peerCredentials(int fd) {
    try (Memory cred = new Memory(12)) {
      IntByReference len = new IntByReference(12);
      LibC.INSTANCE.getsockopt(fd, LibC.SOL_SOCKET, LibC.SO_PEERCRED, cred, len);
      return new int[] {cred.getInt(0), cred.getInt(4)};
    } catch (LastErrorException e) {
      return new int[] {0, -1};
    }
  }

  /**
   * Receives one packet into {@code buf}; returns its length, 0 at end of connection, or -1 when
   * nothing arrived within {@code timeoutMs}. A packet larger than the buffer is reported by a
   * length above {@code buf.size()} (its tail is lost).
   */
  static long receive(int fd, Memory buf, int timeoutMs) throws IOException {
    if (!readable(fd, timeoutMs)) {
      return -1;
    }
    try {
      return LibC.INSTANCE.recv(fd, buf, buf.size(), LibC.MSG_TRUNC);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == LibC.EINTR || e.getErrorCode() == LibC.EAGAIN) {
        return -1;
      }
      throw new IOException("receive failed: " + e.getMessage(), e);
    }
  }

  static void setReceiveBuffer(int fd, int bytes) {
    try {
      LibC.INSTANCE.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVBUF, new IntByReference(bytes), 4);
    } catch (LastErrorException e) {
      // the default buffer works, only with more wake-ups
    }
  }

  static void closeFd(int fd) {
    LibC.INSTANCE.close(fd);
  }

  /**
   * Closes the listening socket; a second call does nothing. Closing the number again would close
   * whatever file the process opened since under the freed number: in {@code apptrace run} the
   * JVM's own threads open files all the time (JDK 17 reads the cgroup's memory files from its
   * compiler threads), and the directory stream that removed the socket's folder lost its
   * descriptor that way (docs/RELIABILITY.md, "The collector's own descriptors").
   */
  @Override
  public void close() {
    int listening = fd.getAndSet(-1);
    if (listening >= 0) {
      LibC.INSTANCE.close(listening);
    }
  }
}
