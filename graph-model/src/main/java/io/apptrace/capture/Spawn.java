package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.ptr.IntByReference;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Starts the traced program with {@code posix_spawnp}, as the JDK would but so that this process
 * can wait for it itself ({@link Program}): standard input inherited, output and errors inherited
 * or sent to a file, no descriptor of this JVM above 2 left open in it but those its job launcher
 * handed the rank ({@link LauncherEnvironment#descriptors}), and no signal blocked. A file that is
 * not an executable format runs with {@code /bin/sh}, as execvp and the JDK do.
 */
final class Spawn {
  private Spawn() {}

  /**
   * Starts {@code command} with exactly {@code environment}.
   *
   * @param out where standard output goes: {@link Redirect#INHERIT} or a file
   * @param err where standard error goes: the same
   * @throws CaptureException 127 when the command does not exist, 126 when it cannot be executed,
   *     1 when an output file cannot be opened
   */
  static Program start(List<String> command, Map<String, String> environment, Redirect out, Redirect err)
      throws CaptureException {
    ProcessCalls c = ProcessCalls.INSTANCE;
    String[] envp = environment.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .toArray(String[]::new);
    List<Integer> opened = new ArrayList<>();
    Memory actions = new Memory(ProcessCalls.FILE_ACTIONS_BYTES);
    Memory attr = new Memory(ProcessCalls.SPAWNATTR_BYTES);
    Memory mask = new Memory(ProcessCalls.SIGSET_BYTES);
    c.posix_spawn_file_actions_init(actions);
    c.posix_spawnattr_init(attr);
    try {
      redirect(actions, 1, out, opened);
      redirect(actions, 2, err, opened);
      closeDescriptorsFrom3(actions, LauncherEnvironment.descriptors(environment));
      c.sigemptyset(mask);
      c.posix_spawnattr_setsigmask(attr, mask);
      c.posix_spawnattr_setflags(attr, ProcessCalls.POSIX_SPAWN_SETSIGMASK);
      String[] argv = command.toArray(String[]::new);
      IntByReference pid = new IntByReference();
      int rc = c.posix_spawnp(pid, argv[0], actions, attr, argv, envp);
      if (rc == ProcessCalls.ENOEXEC) {
        rc = c.posix_spawnp(pid, "/bin/sh", actions, attr, shellArgv(command), envp);
      }
      if (rc != 0) {
        throw failure(command.get(0), rc);
      }
      return new Program(pid.getValue());
    } finally {
      c.posix_spawnattr_destroy(attr);
      c.posix_spawn_file_actions_destroy(actions);
      for (int fd : opened) {
        c.close(fd);
      }
    }
  }

  private static CaptureException failure(String cmd, int errno) {
    return switch (errno) {
      case ProcessCalls.ENOENT -> new CaptureException("command not found: " + cmd, 127);
      case ProcessCalls.EACCES, ProcessCalls.EPERM ->
          new CaptureException("cannot execute " + cmd + ": permission denied", 126);
      default -> new CaptureException("cannot execute " + cmd + ": "
          + ProcessCalls.INSTANCE.strerror(errno).toLowerCase(java.util.Locale.ROOT), 126);
    };
  }

  /** {@code /bin/sh FILE ARGS...}, with the file found as execvp finds it. */
  private static String[] shellArgv(List<String> command) {
    List<String> argv = new ArrayList<>();
    argv.add("/bin/sh");
    argv.add(CommandPath.resolve(command.get(0)).map(Path::toString).orElse(command.get(0)));
    argv.addAll(command.subList(1, command.size()));
    return argv.toArray(String[]::new);
  }

  private static void redirect(Memory actions, int target, Redirect r, List<Integer> opened)
      throws CaptureException {
    if (r.type() == Redirect.Type.INHERIT) {
      return;
    }
    int flags = ProcessCalls.O_WRONLY | ProcessCalls.O_CREAT | ProcessCalls.O_CLOEXEC
        | (r.type() == Redirect.Type.APPEND ? ProcessCalls.O_APPEND : ProcessCalls.O_TRUNC);
    int fd;
    try {
      fd = ProcessCalls.INSTANCE.open(r.file().getPath(), flags, 0666);
    } catch (LastErrorException e) {
      throw new CaptureException("cannot open " + r.file() + " for the program's output: "
          + ProcessCalls.INSTANCE.strerror(e.getErrorCode()), 1, e);
    }
    opened.add(fd);
    ProcessCalls.INSTANCE.posix_spawn_file_actions_adddup2(actions, fd, target);
  }

  /**
   * Closes, in the child, every descriptor above 2 but {@code keep}. Before glibc 2.34 (no
   * closefrom action), and below the highest descriptor kept, the descriptors open now are closed
   * one by one; those that are not close-on-exec and another thread opens in the meantime would
   * stay open in the program.
   */
  private static void closeDescriptorsFrom3(Memory actions, Set<Integer> keep) {
    int above = keep.stream().mapToInt(Integer::intValue).max().orElse(2);
    try {
      ProcessCalls.INSTANCE.posix_spawn_file_actions_addclosefrom_np(actions, above + 1);
      if (above == 2) {
        return;
      }
    } catch (UnsatisfiedLinkError e) {
      above = Integer.MAX_VALUE; // an older glibc: one by one
    }
    List<Integer> fds = new ArrayList<>();
    try (DirectoryStream<Path> d = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path p : d) {
        fds.add(Integer.parseInt(p.getFileName().toString()));
      }
    } catch (Exception e) {
      // No /proc: the descriptors stay as the JVM opened them; a listing that failed part way is
      // used as far as it got. (Exception, not IOException: JDK 17 throws a failed close of the
      // listing as a bare sun.nio.fs.UnixException, which no signature declares.)
      if (fds.isEmpty()) {
        return;
      }
    }
    for (int fd : fds) {
      if (fd > 2 && fd < above && !keep.contains(fd)) {
        ProcessCalls.INSTANCE.posix_spawn_file_actions_addclose(actions, fd);
      }
    }
  }
}
