package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.testing.TestPaths;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captures under load and faults: many threads, fork and exec, crashes, exit from a thread,
 * SIGKILL, programs without CUDA or with a static runtime, bad commands and outputs.
 */
class CaptureFaultsTest {
  @TempDir Path tmp;

  /** 8 threads x 10,000 calls: exact counts per thread, nothing lost. */
  @Test
  void eightThreadsTenThousandCallsEachNothingLost() throws Exception {
    Captured c = Captured.run(tmp, "threads");
    assertThat(c.result().exitCode()).isZero();
    Map<Integer, List<TraceRecord>> byThread = c.records(r -> r.event().getApi() != Api.API_UNSPECIFIED)
        .stream().collect(Collectors.groupingBy(TraceRecord::tid));
    Map<Integer, Long> memsets = count(byThread, Api.cudaMemsetAsync);
    Map<Integer, Long> launches = count(byThread, Api.rt__cudaLaunchKernel);
    assertThat(memsets.values().stream().filter(n -> n == 5000)).hasSize(8);
    assertThat(launches.values().stream().filter(n -> n == 5000)).hasSize(8);
    assertThat(c.calls(Api.cudaStreamCreate)).hasSize(8);
    assertThat(c.calls(Api.cudaStreamSynchronize)).hasSize(8);
    assertThat(c.calls(Api.cudaStreamDestroy)).hasSize(8);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(40_000);
    assertThat(c.calls(Api.rt__cudaLaunchKernel)).hasSize(40_000);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getDropped()).isZero());
    // every thread's batches arrived: sequence numbers 0..n-1 with no gap
    for (List<TraceRecord> records : c.trace().records().stream().filter(r -> r.tid() != 0)
        .collect(Collectors.groupingBy(TraceRecord::tid)).values()) {
      long max = records.stream().mapToLong(TraceRecord::batchSeq).max().orElse(0);
      assertThat(records.stream().map(TraceRecord::batchSeq).distinct().count()).isEqualTo(max + 1);
    }
  }

  private static Map<Integer, Long> count(Map<Integer, List<TraceRecord>> byThread, Api api) {
    return byThread.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> e.getValue().stream().filter(r -> r.event().getApi() == api).count()));
  }

  /** A parent that forks and execs a child that also uses CUDA: two processes, both complete. */
  @Test
  void forkAndExecChildIsTracedToo() throws Exception {
    Captured c = Captured.run(tmp, "forkexec");
    assertThat(c.result().exitCode()).isZero();
    Event fork = c.events(Event::hasFork).get(0);
    int child = fork.getFork().getChildPid();
    int parent = c.trace().records().stream().filter(r -> r.event().hasFork()).findFirst().orElseThrow().pid();
    Map<Integer, Map<String, Long>> calls = c.trace().records().stream()
        .filter(r -> r.event().getApi() != Api.API_UNSPECIFIED)
        .collect(Collectors.groupingBy(TraceRecord::pid, Collectors.groupingBy(
            r -> io.apptrace.trace.ApiNames.of(r.event()), java.util.TreeMap::new, Collectors.counting())));
    assertThat(calls.get(parent)).contains(entry("cudaMalloc", 1L), entry("cudaMemset", 1L), entry("cudaFree", 1L));
    assertThat(calls.get(child)).contains(entry("cudaMalloc", 1L), entry("cudaMemset", 2L), entry("cudaFree", 1L));
    // One ProcessStart after fork (still the parent's image), one after exec (argv ends in
    // "child"). They come on two connections, read by two collector threads: in the file they
    // may be in either order, so they are ordered by their own clock.
    List<TraceRecord> childStarts = c.records(r -> r.pid() == child && r.event().hasProcessStart())
        .stream().sorted(java.util.Comparator.comparingLong(r -> r.event().getProcessStart().getMonotonicNs()))
        .toList();
    assertThat(childStarts).hasSize(2);
    assertThat(childStarts.get(0).event().getProcessStart().getArgvList()).last().isNotEqualTo("child");
    assertThat(childStarts.get(1).event().getProcessStart().getArgvList()).last().isEqualTo("child");
    assertThat(childStarts).allSatisfy(r -> assertThat(r.event().getProcessStart().getPpid()).isEqualTo(parent));
    assertThat(c.result().connections()).hasSize(3); // parent, child after fork, child after exec
  }

  /** A crash (SIGSEGV) after N calls: all N are in the trace, and the signal is recorded. */
  @Test
  void segfaultAfterNCallsKeepsAllN() throws Exception {
    Captured c = Captured.run(tmp, "segv", "1000");
    assertThat(c.result().exitCode()).isEqualTo(128 + 11);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(1000);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getSignal()).isEqualTo(11));
  }

  /** exit() from a second thread: the main thread's 100 and the thread's 50 calls are all there. */
  @Test
  void exitFromASecondThreadKeepsEveryThreadsEvents() throws Exception {
    Captured c = Captured.run(tmp, "exit_thread");
    assertThat(c.result().exitCode()).isEqualTo(3);
    assertThat(c.calls(Api.cudaMemsetAsync)).hasSize(150);
    assertThat(c.calls(Api.cudaMalloc)).hasSize(1);
    assertThat(c.events(Event::hasProcessEnd)).singleElement()
        .satisfies(e -> assertThat(e.getProcessEnd().getExitCode()).isEqualTo(3));
  }

  /**
   * SIGKILL: every event up to the last completed synchronizing call was sent; the 200 after it
   * were not, and are recovered from the process's shared buffers.
   */
  @Test
  void sigkillKeepsEverythingUpToTheLastSynchronize() throws Exception {
    Captured c = Captured.run(tmp, "sigkill");
    assertThat(c.result().exitCode()).isEqualTo(128 + 9);
    List<Event> events = c.events(e -> e.getApi() != Api.API_UNSPECIFIED);
    int sync = indexOf(events, Api.cudaDeviceSynchronize);
    assertThat(sync).isGreaterThan(0);
    assertThat(events.subList(0, sync).stream().filter(e -> e.getApi() == Api.cudaMemsetAsync)).hasSize(500);
    assertThat(events.subList(sync, events.size()).stream().filter(e -> e.getApi() == Api.cudaMemsetAsync))
        .hasSize(200);
    assertThat(c.result().connections()).singleElement()
        .satisfies(e -> assertThat(e.recovered()).isPositive());
    assertThat(c.events(Event::hasProcessEnd)).isEmpty();
    assertThat(c.events(Event::hasProcessExit)).singleElement()
        .satisfies(e -> assertThat(e.getProcessExit().getClean()).isFalse());
  }

  private static int indexOf(List<Event> events, Api api) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).getApi() == api) {
        return i;
      }
    }
    return -1;
  }

  /** No CUDA at all: a valid trace with the process and a note saying so. */
  @Test
  void programWithoutCudaGivesAValidEmptyTraceAndANote() throws Exception {
    Captured c = Captured.run(tmp, "nocuda");
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.stdout()).isEqualTo("no CUDA here\n");
    assertThat(c.events(e -> e.getApi() != Api.API_UNSPECIFIED)).isEmpty();
    assertThat(c.events(Event::hasProcessStart)).hasSize(1);
    assertThat(c.result().notes()).anyMatch(n -> n.contains("made no CUDA runtime call"));
    assertThat(c.events(Event::hasNote)).anyMatch(e -> e.getNote().getText().contains("no CUDA runtime call"));
  }

  /** A statically linked runtime is invisible to LD_PRELOAD: say so and how to fix it. */
  @Test
  void staticRuntimeIsWarnedAbout() throws Exception {
    Captured c = Captured.run(tmp, "vecadd_static");
    assertThat(c.result().notes()).anyMatch(n -> n.contains("does not load libcudart dynamically")
        && n.contains("-cudart shared"));
  }

  @Test
  void commandThatDoesNotExistExits127NamingIt() {
    assertThatThrownBy(() -> Captured.runCommand(tmp, List.of("/no/such/program"), true))
        .isInstanceOfSatisfying(CaptureException.class, e -> {
          assertThat(e.exitCode()).isEqualTo(127);
          assertThat(e.getMessage()).contains("/no/such/program");
        });
    assertThat(tmp.resolve("trace.apptrace")).as("no empty trace is left behind").doesNotExist();
  }

  /** An output that cannot be written fails before the program starts. */
  @Test
  void unwritableOutputFailsBeforeTheProgramRuns() {
    Path marker = tmp.resolve("ran");
    CaptureOptions o = new CaptureOptions(List.of("touch", marker.toString()),
        tmp.resolve("missing-dir/out.apptrace"), true, 4096, Duration.ofSeconds(1),
        new NativeLibraries(TestPaths.nativeDir()));
    assertThatThrownBy(() -> new Capture(o).run(p -> { }, p -> { }, 100))
        .isInstanceOfSatisfying(CaptureException.class, e -> {
          assertThat(e.exitCode()).isEqualTo(1);
          assertThat(e.getMessage()).contains("missing-dir/out.apptrace");
        });
    assertThat(Files.exists(marker)).isFalse();
  }

  /**
   * The collector goes away mid-run: the program keeps running and exits normally with correct
   * results, and the interposer says so once on stderr.
   */
  @Test
  void collectorDyingMidRunLeavesTheProgramUnharmed() throws Exception {
    Path socket = tmp.resolve("s");
    try (SeqpacketServer server = SeqpacketServer.bind(socket)) {
      ProcessBuilder pb = new ProcessBuilder(TestPaths.cudaTest("threads").toString())
          .redirectErrorStream(true);
      pb.environment().put("LD_PRELOAD", TestPaths.nativeDir().resolve("libapptrace.so") + ":"
          + TestPaths.nativeDir().resolve("sim/libcudart.so.13"));
      pb.environment().put("APPTRACE_SOCKET", socket.toString());
      pb.environment().put("APPTRACE_SIM", "1");
      Process p = pb.start();
      int fd = -1;
      for (int i = 0; i < 200 && fd < 0; i++) {
        fd = server.accept(50);
      }
      assertThat(fd).isGreaterThanOrEqualTo(0);
      try (com.sun.jna.Memory buf = new com.sun.jna.Memory(1 << 20)) {
        SeqpacketServer.receive(fd, buf, 2000); // one packet, then the collector "dies"
      }
      SeqpacketServer.closeFd(fd);
      String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(p.waitFor()).isZero();
      assertThat(output.lines().filter(l -> l.contains("lost the connection to the collector"))).hasSize(1);
    }
  }

  /**
   * A checked exception no signature declares (JDK 17's sun.nio.fs.UnixException escaping
   * untranslated, with no stack trace of its own) says what the capture was doing, with a stack
   * trace: "internal error: sun.nio.fs.UnixException: Bad file descriptor" alone told nobody where.
   */
  @Test
  void anUndeclaredExceptionWithoutAStackTraceSaysWhatTheCaptureWasDoing() throws Exception {
    Path trace = tmp.resolve("t.apptrace");
    CaptureOptions o = new CaptureOptions(List.of(TestPaths.cudaTest("nocuda").toString()), trace, true, 4096,
        java.time.Duration.ofSeconds(10), new NativeLibraries(TestPaths.nativeDir()),
        ProcessBuilder.Redirect.to(tmp.resolve("out.txt").toFile()),
        ProcessBuilder.Redirect.to(tmp.resolve("err.txt").toFile()));
    Exception frameless = new Exception("Bad file descriptor") {
      @Override
      public synchronized Throwable fillInStackTrace() {
        return this;
      }
    };
    assertThatThrownBy(() -> new Capture(o).run(p -> sneakyThrow(frameless), p -> { }, 100))
        .isInstanceOf(java.io.IOException.class)
        .hasMessage("apptrace run failed while running the program: " + frameless)
        .hasCause(frameless)
        .satisfies(e -> assertThat(e.getStackTrace()).isNotEmpty());
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void sneakyThrow(Throwable e) throws E {
    throw (E) e;
  }
}
