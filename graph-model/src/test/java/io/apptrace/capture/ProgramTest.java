package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting a program, signalling it and waiting for it, without the interposer. */
class ProgramTest {
  @TempDir Path tmp;

  private static Program start(String... command) throws CaptureException {
    return Spawn.start(List.of(command), System.getenv(), Redirect.INHERIT, Redirect.INHERIT);
  }

  /** What apptrace run does on SIGTERM or SIGHUP: the program ends on SIGTERM. */
  @Test
  void terminateEndsTheProgramWithSigterm() throws Exception {
    Program p = start("sleep", "600");
    assertThat(p.waitFor(0)).isEmpty();
    p.terminate();
    assertThat(p.waitFor(600_000)).contains(ExitStatus.killed(15));
  }

  /** Once it has ended, its pid is not signalled again (it may be another process's by then). */
  @Test
  void terminateAfterTheEndDoesNothing() throws Exception {
    Program p = start("sh", "-c", "exit 3");
    assertThat(p.waitFor(600_000)).contains(ExitStatus.exited(3));
    p.terminate();
    assertThat(p.waitFor(0)).contains(ExitStatus.exited(3));
  }

  @Test
  void outputGoesToTheFileAskedFor() throws Exception {
    Path out = tmp.resolve("out.txt");
    Files.writeString(out, "old content that is longer\n");
    Program p = Spawn.start(List.of("echo", "hello"), Map.of("PATH", "/usr/bin:/bin"), Redirect.to(out.toFile()),
        Redirect.INHERIT);
    assertThat(p.waitFor(600_000)).contains(ExitStatus.exited(0));
    assertThat(Files.readString(out)).isEqualTo("hello\n");
  }

  @Test
  void commandsThatCannotRunSayWhyWithTheShellsCodes() throws Exception {
    assertThatThrownBy(() -> start("no-such-command-xyz")).isInstanceOf(CaptureException.class)
        .hasMessage("command not found: no-such-command-xyz")
        .satisfies(e -> assertThat(((CaptureException) e).exitCode()).isEqualTo(127));
    assertThatThrownBy(() -> start(tmp.toString())).isInstanceOf(CaptureException.class)
        .hasMessage("cannot execute " + tmp + ": permission denied")
        .satisfies(e -> assertThat(((CaptureException) e).exitCode()).isEqualTo(126));
    Path unreadable = tmp.resolve("no-dir/out.txt");
    assertThatThrownBy(() -> Spawn.start(List.of("true"), System.getenv(), Redirect.to(unreadable.toFile()),
        Redirect.INHERIT)).isInstanceOf(CaptureException.class)
        .hasMessageStartingWith("cannot open " + unreadable + " for the program's output: ");
  }

  /**
   * MPICH's mpiexec (Hydra) hands each rank its PMI connection as an inherited descriptor named in
   * PMI_FD: it stays open in the program, and the JVM's other descriptors do not.
   */
  @Test
  void theDescriptorTheLauncherNamesInPmiFdStaysOpenAndNoOther() throws Exception {
    Path a = Files.writeString(tmp.resolve("a"), "a");
    Path b = Files.writeString(tmp.resolve("b"), "b");
    int other = ProcessCalls.INSTANCE.open(a.toString(), 0, 0); // O_RDONLY, not close-on-exec
    int pmi = ProcessCalls.INSTANCE.open(b.toString(), 0, 0);
    try {
      Path out = tmp.resolve("fds.txt");
      Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "PMI_FD", Integer.toString(pmi));
      Program p = Spawn.start(List.of("sh", "-c", "readlink /proc/$$/fd/" + pmi + "; test -e /proc/$$/fd/" + other
          + " && echo other-open; true"), env, Redirect.to(out.toFile()), Redirect.INHERIT);
      assertThat(p.waitFor(600_000)).contains(ExitStatus.exited(0));
      assertThat(Files.readString(out)).isEqualTo(b + "\n");
    } finally {
      ProcessCalls.INSTANCE.close(other);
      ProcessCalls.INSTANCE.close(pmi);
    }
  }
}
