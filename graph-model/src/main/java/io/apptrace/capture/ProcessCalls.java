package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * The libc calls that start the traced program, wait for it and signal it (Linux, x86-64 glibc
 * numbers). The posix_spawn functions return an error number instead of setting errno.
 */
interface ProcessCalls extends Library {
  ProcessCalls INSTANCE = Native.load("c", ProcessCalls.class);

  /** Sizes of glibc's opaque types, rounded up generously. */
  int FILE_ACTIONS_BYTES = 256;
  int SPAWNATTR_BYTES = 512;
  int SIGSET_BYTES = 128;
  int SIGINFO_BYTES = 128;

  short POSIX_SPAWN_SETSIGMASK = 0x08;
  int P_PID = 1;
  int WEXITED = 4;
  int WNOWAIT = 0x01000000;
  int O_WRONLY = 01;
  int O_CREAT = 0100;
  int O_TRUNC = 01000;
  int O_APPEND = 02000;
  int O_CLOEXEC = 02000000;
  int SIGTERM = 15;
  int EINTR = 4;
  int ENOENT = 2;
  int ENOEXEC = 8;
  int EACCES = 13;
  int EPERM = 1;

  int posix_spawnp(IntByReference pid, String file, Pointer fileActions, Pointer attr, String[] argv,
      String[] envp);

  int posix_spawn_file_actions_init(Pointer actions);

  int posix_spawn_file_actions_destroy(Pointer actions);

  int posix_spawn_file_actions_adddup2(Pointer actions, int fd, int newFd);

  int posix_spawn_file_actions_addclose(Pointer actions, int fd);

  /** glibc 2.34 and later; older ones throw UnsatisfiedLinkError at the first call. */
  int posix_spawn_file_actions_addclosefrom_np(Pointer actions, int from);

  int posix_spawnattr_init(Pointer attr);

  int posix_spawnattr_destroy(Pointer attr);

  int posix_spawnattr_setflags(Pointer attr, short flags);

  int posix_spawnattr_setsigmask(Pointer attr, Pointer sigset);

  int sigemptyset(Pointer sigset);

  int waitid(int idType, int id, Pointer info, int options) throws LastErrorException;

  int waitpid(int pid, IntByReference status, int options) throws LastErrorException;

  int kill(int pid, int signal) throws LastErrorException;

  int open(String path, int flags, int mode) throws LastErrorException;

  int close(int fd);

  String strerror(int errno);
}
