package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/** The few libc calls the collector needs for SOCK_SEQPACKET sockets (Linux, x86-64 numbers). */
interface LibC extends Library {
  LibC INSTANCE = Native.load("c", LibC.class);

  int AF_UNIX = 1;
  int SOCK_SEQPACKET = 5;
  int SOCK_CLOEXEC = 0x80000;
  int SOL_SOCKET = 1;
  int SO_PEERCRED = 17;
  int SO_RCVBUF = 8;
  int MSG_TRUNC = 0x20;
  int MSG_CTRUNC = 0x8;
  int MSG_CMSG_CLOEXEC = 0x40000000;
  int SCM_RIGHTS = 1;
  short POLLIN = 0x1;
  int EINTR = 4;
  int EAGAIN = 11;

  int socket(int domain, int type, int protocol) throws LastErrorException;

  int bind(int fd, Pointer addr, int len) throws LastErrorException;

  int listen(int fd, int backlog) throws LastErrorException;

  int accept4(int fd, Pointer addr, Pointer len, int flags) throws LastErrorException;

  long recv(int fd, Pointer buf, long len, int flags) throws LastErrorException;

  long recvmsg(int fd, Pointer msghdr, int flags) throws LastErrorException;

  long pread(int fd, Pointer buf, long count, long offset) throws LastErrorException;

  int poll(Pointer fds, long nfds, int timeoutMs) throws LastErrorException;

  int getsockopt(int fd, int level, int name, Pointer value, IntByReference len)
      throws LastErrorException;

  int setsockopt(int fd, int level, int name, IntByReference value, int len)
      throws LastErrorException;

  int close(int fd);

  int getuid();
}
