package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.testing.TestPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another user's process can neither reach the collector nor inject events, and no environment
 * variable makes the interposer write a file. (The trace file's own protections, symbolic links
 * and the umask, are tested through {@code apptrace run} in the cli module.)
 */
class CaptureSecurityTest {
  /** The unprivileged user the other process runs as. */
  private static final String NOBODY = "65534";

  @TempDir Path tmp;

  /**
   * tests/cuda/peer.c. While a capture runs, a process of uid 65534 cannot connect: the socket's
   * directory is 0700. With the directory opened up (as a mistake or an attack might), it
   * connects, but the collector checks the peer's uid and drops the connection: its forged event
   * is not in the trace, and the trace says who was refused. The same forged packet from the
   * user's own process is accepted, which shows the packet itself would be taken.
   */
  @Test
  void anotherUserCannotConnectNorInjectEvents() throws Exception {
    assumeTrue(isRoot() && Files.isExecutable(Path.of("/usr/bin/setpriv")),
        "needs root (to run a process as another user) and setpriv");
    Path socketFile = tmp.resolve("socket.txt");
    Path go = tmp.resolve("go");
    String peer = TestPaths.cudaTest("peer").toString();
    CompletableFuture<Captured> capture = CompletableFuture.supplyAsync(() -> {
      try {
        return Captured.runCommand(tmp.resolve("run"), List.of(peer, "hold", socketFile.toString(), go.toString()), true);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    try {
      for (int i = 0; i < 3000 && !Files.exists(socketFile); i++) {
        Thread.sleep(10);
      }
      Path socket = Path.of(Files.readString(socketFile).strip());
      Path dir = socket.getParent();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
      assertThat(Files.getAttribute(dir, "unix:uid")).isEqualTo(0);

      assertThat(run("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
          peer, "send", socket.toString())).isEqualTo("refused: Permission denied\n");
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwxrwxrwx"));
      assertThat(run("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
          peer, "send", socket.toString())).startsWith("connected\n");
      assertThat(run(peer, "send", socket.toString())).isEqualTo("connected\nsent\n");
    } finally {
      Files.writeString(go, "");
    }
    Captured c = capture.get(60, TimeUnit.SECONDS);
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.events(e -> e.hasNote() && e.getNote().getText().equals("injected"))).hasSize(1);
    assertThat(c.result().notes()).anyMatch(n -> n.contains("refused a connection from uid " + NOBODY));
  }

  /**
   * Every variable the interposer reads (docs/RELIABILITY.md), and TMPDIR, TMP and HOME, set to
   * paths in a directory: the traced program runs as untraced, and nothing is
   * written there or in its working directory. APPTRACE_SOCKET naming a regular file does not
   * write to it either.
   */
  @Test
  void noEnvironmentVariableMakesTheInterposerWriteAFile() throws Exception {
    Path canary = Files.createDirectories(tmp.resolve("canary"));
    Path cwd = Files.createDirectories(tmp.resolve("cwd"));
    Path notASocket = Files.writeString(canary.resolve("not-a-socket"), "untouched");
    Map<String, String> hostile = new TreeMap<>();
    // (The simulated runtime's APPTRACE_SIM_CONFIG and APPTRACE_SIM_DEVICES are read only, and a
    // path where a file or a number belongs stops it with an error, as it should.)
    for (String v : List.of("APPTRACE_LOG", "APPTRACE_MALLOC_THRESHOLD", "APPTRACE_CLOCK", "APPTRACE_CUPTI",
        "APPTRACE_SIM_QUIET", "CUDA_HOME", "TMPDIR", "TMP", "HOME")) {
      hostile.put(v, canary.resolve(v.toLowerCase()).toString());
    }
    hostile.put("APPTRACE_LOG", "1"); // diagnostics on: they go to stderr only

    List<String> cmd = new ArrayList<>(List.of("env", "-C", cwd.toString()));
    hostile.forEach((k, v) -> cmd.add(k + "=" + v));
    cmd.add(TestPaths.cudaTest("vecadd").toString());
    Captured c = Captured.runCommand(tmp.resolve("run"), cmd, true);
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.calls(Api.cudaMemcpy)).hasSize(3);

    ProcessBuilder direct = new ProcessBuilder(TestPaths.cudaTest("vecadd").toString()).directory(cwd.toFile())
        .redirectErrorStream(true);
    direct.environment().putAll(hostile);
    direct.environment().put("APPTRACE_SOCKET", notASocket.toString());
    direct.environment().put("LD_PRELOAD", TestPaths.nativeDir().resolve("libapptrace.so") + ":"
        + TestPaths.nativeDir().resolve("sim/libcudart.so.13"));
    Process p = direct.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("cannot reach the collector at " + notASocket);

    try (Stream<Path> files = Stream.concat(Files.list(canary), Files.list(cwd))) {
      assertThat(files).containsExactly(notASocket);
    }
    assertThat(Files.readString(notASocket)).isEqualTo("untouched");
    assertThat(c.events(Event::hasProcessEnd)).hasSize(1);
  }

  private static boolean isRoot() throws Exception {
    return run("id", "-u").strip().equals("0");
  }

  private static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
