package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.Closeable;
import java.io.IOException;

/**
 * One accepted connection of a traced process: receives its packets, and keeps the descriptor
 * of its shared buffer region, which the interposer passes (SCM_RIGHTS) with its first packet.
 * Memory is fixed: one packet buffer and one message header, reused for every packet.
 */
final class Connection implements Closeable {
  // struct msghdr (x86-64): name 0, namelen 8, iov 16, iovlen 24, control 32, controllen 40,
  // flags 48; then one struct iovec (base, len) at 56 and the control buffer at 72.
  private static final int IOV = 56;
  private static final int CONTROL = 72;
  private static final int CONTROL_BYTES = 64;
  // struct cmsghdr: len (8 bytes), level, type; data at 16; headers 8-byte aligned
  private static final int CMSG_DATA = 16;

  /** The connection; -1 once closed (a descriptor is closed once only: SeqpacketServer#close). */
  private int fd;
  private final Memory packet;
  private final Memory msg = new Memory(CONTROL + CONTROL_BYTES);
  private int regionFd = -1;

  Connection(int fd, int packetBytes) {
    this.fd = fd;
    this.packet = new Memory(packetBytes);
  }

  /** The received packet's bytes (valid up to the length {@link #receive} returned). */
  Memory packet() {
    return packet;
  }

  /** The shared buffer region's descriptor, or -1 when the process passed none. */
  int regionFd() {
    return regionFd;
  }

  /**
   * Receives one packet; returns its length, 0 at end of connection, or -1 when nothing arrived
   * within {@code timeoutMs}. A packet larger than the buffer is reported by a length above
   * {@code packet().size()} (its tail is lost).
   */
  long receive(int timeoutMs) throws IOException {
    if (!SeqpacketServer.readable(fd, timeoutMs)) {
      return -1;
    }
    msg.clear();
    msg.setPointer(16, msg.share(IOV));
    msg.setLong(24, 1);
    msg.setPointer(32, msg.share(CONTROL));
    msg.setLong(40, CONTROL_BYTES);
    msg.setPointer(IOV, packet);
    msg.setLong(IOV + 8, packet.size());
    long n;
    try {
      n = LibC.INSTANCE.recvmsg(fd, msg, LibC.MSG_TRUNC | LibC.MSG_CMSG_CLOEXEC);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == LibC.EINTR || e.getErrorCode() == LibC.EAGAIN) {
        return -1;
      }
      throw new IOException("receive failed: " + e.getMessage(), e);
    }
    takeDescriptors(msg.getLong(40));
    return n;
  }

  /** Keeps the first descriptor passed; closes any other (nothing else is ever passed). */
  private void takeDescriptors(long controlLength) {
    Pointer control = msg.share(CONTROL);
    long off = 0;
    while (off + CMSG_DATA <= Math.min(controlLength, CONTROL_BYTES)) {
      long len = control.getLong(off);
      if (len < CMSG_DATA || off + len > CONTROL_BYTES) {
        break;
      }
      if (control.getInt(off + 8) == LibC.SOL_SOCKET && control.getInt(off + 12) == LibC.SCM_RIGHTS) {
        for (long p = off + CMSG_DATA; p + 4 <= off + len; p += 4) {
          int passed = control.getInt(p);
          if (regionFd < 0) {
            regionFd = passed;
          } else {
            LibC.INSTANCE.close(passed);
          }
        }
      }
      off += (len + 7) & ~7L;
    }
  }

  /** Closes the connection and the region's descriptor; a second call does nothing. */
  @Override
  public void close() {
    if (fd < 0) {
      return;
    }
    LibC.INSTANCE.close(fd);
    fd = -1;
    if (regionFd >= 0) {
      LibC.INSTANCE.close(regionFd);
      regionFd = -1;
    }
    packet.close();
    msg.close();
  }
}
