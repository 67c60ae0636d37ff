package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.testing.TestPaths;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The traced program is never harmed: it prints and returns exactly what it does untraced, when it
 * installs signal handlers after apptrace's, starts children with vfork or posix_spawn, and its
 * trace still holds what it did.
 */
class CaptureHarmTest {
  @TempDir Path tmp;

  /**
   * tests/cuda/handlers.cu: handlers installed after apptrace's run (a SIGINT handler that lets
   * the program go on, a SIGSEGV handler with SA_RESETHAND), sigaction reports the program's own
   * handlers, and apptrace's handler, still first, records the crash with all 300 calls.
   */
  @Test
  void handlersInstalledLaterRunAndApptracesStaysFirst() throws Exception {
    Untraced plain = Untraced.run("handlers");
    Captured c = Captured.run(tmp, "handlers");
    assertThat(plain.stdout()).isEqualTo("sigint 2\nview ok\nhandler ran\n");
    assertThat(c.stdout()).isEqualTo(plain.stdout());
    assertThat(c.result().exitCode()).isEqualTo(plain.exitCode()).isEqualTo(128 + 11);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(300);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getSignal()).isEqualTo(11));
  }

  /**
   * The program starts as a shell would start it: none of apptrace's descriptors open in it (the
   * trace, the JVM's jars), no signal blocked, and the environment apptrace was given.
   */
  @Test
  void programStartsWithNothingOfApptracesButItsVariables() throws Exception {
    Path trace = tmp.resolve("fds.apptrace");
    Captured c = Captured.runCommand(tmp, trace, List.of("sh", "-c",
        "for f in /proc/$$/fd/*; do readlink $f; done; grep SigBlk /proc/$$/status; echo \"HOME=$HOME\""), true);
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.stdout()).doesNotContain(trace.toString()).doesNotContain(".jar")
        .contains("SigBlk:\t0000000000000000\n").contains("HOME=" + System.getenv("HOME") + "\n");
  }

  /**
   * tests/cuda/spawn.cu with vfork: the child shares the parent's memory until it execs. Its
   * signal reset, its exec and the failed second child's _exit(127) leave the parent's state
   * alone: the parent's handler still runs, and the parent's trace ends with its own exit.
   */
  @Test
  void vforkChildrenLeaveTheParentAlone() throws Exception {
    Untraced plain = Untraced.run("spawn", "vfork");
    Captured c = Captured.run(tmp, "spawn", "vfork");
    assertThat(plain.stdout()).isEqualTo("parent ok\n");
    assertThat(c.stdout()).isEqualTo(plain.stdout());
    assertThat(c.result().exitCode()).isZero();
    assertChildTraced(c, 2);
  }

  /**
   * tests/cuda/spawn.cu with fork and no exec: the child gets buffers of its own (the parent's
   * shared ones stay the parent's) and its own connection. Killed by SIGKILL before sending, its
   * 20 allocations are recovered from its own buffers; the parent's trace holds none of them and
   * all of its own calls.
   */
  @Test
  void forkedChildKilledBeforeSendingKeepsItsEventsApartFromTheParents() throws Exception {
    Captured c = Captured.run(tmp, "spawn", "fork");
    assertThat(c.stdout()).isEqualTo("parent ok\n");
    assertThat(c.result().exitCode()).isZero();
    int parent = c.records(r -> r.event().hasFork()).get(0).pid();
    int child = c.events(Event::hasFork).get(0).getFork().getChildPid();
    Map<Integer, Long> allocs = c.records(r -> r.event().hasAlloc() && r.event().getAlloc().getBytes() == 65659)
        .stream().collect(Collectors.groupingBy(TraceRecord::pid, Collectors.counting()));
    assertThat(allocs).containsOnly(entry(child, 20L));
    assertThat(c.records(r -> r.pid() == parent && r.event().getApi() == Api.cudaMemset)).hasSize(20);
    assertThat(c.result().connections()).hasSize(2)
        .anySatisfy(e -> {
          assertThat(e.pid()).isEqualTo(child);
          assertThat(e.recovered()).isPositive();
          assertThat(e.processEnd()).isEmpty();
        });
    assertThat(c.records(r -> r.pid() == parent && r.event().hasProcessEnd())).hasSize(1);
  }

  /** posix_spawn (glibc's runs the child without fork or the exec hooks): both are traced. */
  @Test
  void posixSpawnedChildIsTracedAndTheParentUnharmed() throws Exception {
    Captured c = Captured.run(tmp, "spawn", "posix_spawn");
    assertThat(c.stdout()).isEqualTo("parent ok\n");
    assertThat(c.result().exitCode()).isZero();
    assertChildTraced(c, 2);
  }

  /**
   * tests/cuda/early.cu: a thread that a library's constructor starts before apptrace's
   * constructor runs, and that calls the runtime at once, has all its calls traced: start-up
   * happens on whichever thread calls first, and the other waits for it.
   */
  @Test
  void threadStartedBeforeApptraceInitializesIsTraced() throws Exception {
    Captured c = Captured.run(tmp, "early");
    assertThat(c.stdout()).isEqualTo("early ok\n");
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.calls(Api.cudaMalloc)).hasSize(2);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(250);
    Map<Integer, Long> memsetsByThread = c.records(r -> r.event().getApi() == Api.cudaMemsetAsync)
        .stream().collect(Collectors.groupingBy(TraceRecord::tid, Collectors.counting()));
    assertThat(memsetsByThread.values()).containsExactlyInAnyOrder(50L, 200L);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getDropped()).isZero());
  }

  /**
   * tests/cuda/late_dlopen.c loads the runtime itself and calls it only through dlsym on the
   * handle: its results are those of an untraced run, and its calls are traced (dlsym returns
   * apptrace's hooks), both when the runtime is already loaded (preloaded, --sim) and when the
   * program's dlopen is the first to load it (RTLD_LOCAL, found on LD_LIBRARY_PATH).
   */
  @Test
  void runtimeLoadedLateWithDlopenIsTracedThroughDlsym() throws Exception {
    Untraced plain = Untraced.run("late_dlopen");
    assertThat(plain.stdout()).isEqualTo("sum 147456\ndlsym ok\n");
    Captured preloaded = Captured.run(tmp.resolve("preloaded"), "late_dlopen");
    Captured late = Captured.runCommand(tmp.resolve("late"), List.of("env",
        "LD_LIBRARY_PATH=" + TestPaths.nativeDir().resolve("sim"), TestPaths.cudaTest("late_dlopen").toString()),
        false);
    for (Captured c : List.of(preloaded, late)) {
      assertThat(c.stdout()).isEqualTo(plain.stdout());
      assertThat(c.result().exitCode()).isZero();
      assertThat(c.callCounts()).containsOnly(entry("cudaMalloc", 1L), entry("cudaMemset", 8L),
          entry("cudaMemcpy", 8L), entry("cudaDeviceSynchronize", 1L), entry("cudaFree", 1L));
    }
  }

  /**
   * The disk fills while the trace is written (a 1 MiB tmpfs; tests/cuda/threads makes about 5 MB
   * of events): the program runs on and exits as untraced, the trace stays readable (it ends at a
   * whole batch), and its last records say what was lost and since when. Exactly: the events in
   * the trace plus those the Loss record counts are the events the collector received.
   */
  @Test
  void fullDiskLeavesTheProgramUnharmedAndTheTraceSaysWhatWasLost() throws Exception {
    Path disk = Files.createDirectories(tmp.resolve("disk"));
    assumeTrue(command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk.toString()) == 0,
        "mounting a small tmpfs needs root: a full disk is not tested here");
    try {
      Untraced plain = Untraced.run("threads");
      Captured c = Captured.runCommand(tmp.resolve("run"), disk.resolve("trace.apptrace"),
          List.of(TestPaths.cudaTest("threads").toString()), true);
      assertThat(c.result().exitCode()).isEqualTo(plain.exitCode()).isZero();
      assertThat(c.stdout()).isEqualTo(plain.stdout());
      assertThat(c.trace().truncation()).isEmpty();
      ConnectionEnd end = c.result().connections().get(0);
      assertThat(c.result().connections()).hasSize(1);
      assertThat(end.lost()).isPositive();
      assertThat(end.processEnd()).isPresent();
      Event loss = c.events(Event::hasLoss).get(0);
      assertThat(c.events(Event::hasLoss)).hasSize(1);
      long inTrace = c.records(r -> r.pid() == end.pid() && r.tid() != 0).size();
      assertThat(inTrace + loss.getLoss().getRecords()).isEqualTo(end.events());
      long start = c.events(Event::hasProcessStart).get(0).getProcessStart().getMonotonicNs();
      assertThat(loss.getLoss().getSinceNs()).isGreaterThan(start);
      assertThat(loss.getLoss().getReason()).contains("No space left on device");
      assertThat(c.result().notes()).anyMatch(n -> n.startsWith("writing the trace failed at ")
          && n.contains("(No space left on device): " + loss.getLoss().getRecords() + " event(s)"));
      assertThat(c.events(Event::hasNote)).anyMatch(e -> e.getNote().getText().startsWith("writing the trace failed"));
      assertThat(c.events(Event::hasProcessExit)).singleElement()
          .satisfies(e -> assertThat(e.getProcessExit().getClean()).isTrue());
    } finally {
      command("umount", disk.toString());
    }
  }

  /**
   * A program under a file-size limit smaller than the shared buffer region (`ulimit -f`): growing
   * the region would raise SIGXFSZ and kill the program, so it is not made; the buffers are private
   * and the program runs and is traced as usual.
   */
  @Test
  void fileSizeLimitLeavesTheProgramUnharmed() throws Exception {
    Captured c = Captured.runCommand(tmp, List.of("prlimit", "--fsize=1048576",
        TestPaths.cudaTest("vecadd").toString()), true);
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.calls(Api.cudaMemcpy)).hasSize(3);
    assertThat(c.records(r -> r.event().hasProcessEnd() && r.event().getProcessEnd().getCudaCalls() > 0))
        .hasSize(1);
  }

  private static int command(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
  }

  /** The parent's 20 memsets and its clean end; one child with its 3, naming the parent. */
  private static void assertChildTraced(Captured c, int connections) {
    assertThat(c.result().connections()).hasSize(connections);
    int parent = c.records(r -> r.event().hasProcessStart()).stream()
        .filter(r -> r.event().getProcessStart().getArgvCount() == 2
            && !r.event().getProcessStart().getArgv(1).equals("child"))
        .findFirst().orElseThrow().pid();
    Map<Integer, Map<String, Long>> calls = c.trace().records().stream()
        .filter(r -> r.event().getApi() != Api.API_UNSPECIFIED)
        .collect(Collectors.groupingBy(TraceRecord::pid, Collectors.groupingBy(
            r -> ApiNames.of(r.event()), TreeMap::new, Collectors.counting())));
    assertThat(calls).hasSize(2);
    assertThat(calls.get(parent)).contains(entry("cudaMalloc", 1L), entry("cudaMemset", 20L), entry("cudaFree", 1L));
    int child = calls.keySet().stream().filter(p -> p != parent).findFirst().orElseThrow();
    assertThat(calls.get(child)).contains(entry("cudaMalloc", 1L), entry("cudaMemset", 3L), entry("cudaFree", 1L));
    assertThat(c.records(r -> r.pid() == child && r.event().hasProcessStart())).singleElement()
        .satisfies(r -> assertThat(r.event().getProcessStart().getPpid()).isEqualTo(parent));
    assertThat(c.records(r -> r.event().hasProcessEnd())).hasSize(2)
        .allSatisfy(r -> assertThat(r.event().getProcessEnd().getExitCode()).isZero());
  }

  /** A test program run on the simulated device without apptrace. */
  record Untraced(int exitCode, String stdout) {
    static Untraced run(String program, String... args) throws Exception {
      List<String> cmd = new ArrayList<>();
      cmd.add(TestPaths.cudaTest(program).toString());
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().put("LD_LIBRARY_PATH", TestPaths.nativeDir().resolve("sim").toString());
      pb.environment().remove("LD_PRELOAD");
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      return new Untraced(p.exitValue(), out);
    }
  }
}
