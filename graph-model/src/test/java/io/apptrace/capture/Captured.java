package io.apptrace.capture;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.testing.TestPaths;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/** A test program captured on the simulated device, with its trace and output. */
record Captured(CaptureResult result, TraceReader.Trace trace, String stdout, String stderr) {

  /** Runs a CUDA test program (tracer-native/tests/cuda) under apptrace on the simulator. */
  static Captured run(Path dir, String program, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(TestPaths.cudaTest(program).toString());
    cmd.addAll(List.of(args));
    return runCommand(dir, cmd, true);
  }

  static Captured runCommand(Path dir, List<String> cmd, boolean simulated) throws Exception {
    return runCommand(dir, dir.resolve("trace.apptrace"), cmd, simulated);
  }

  /** Like {@link #runCommand(Path, List, boolean)}, with the trace written to {@code trace}. */
  static Captured runCommand(Path dir, Path trace, List<String> cmd, boolean simulated) throws Exception {
    Files.createDirectories(dir);
    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    CaptureOptions o = new CaptureOptions(cmd, trace, simulated, 4096, Duration.ofSeconds(10),
        new NativeLibraries(TestPaths.nativeDir()), ProcessBuilder.Redirect.to(out.toFile()),
        ProcessBuilder.Redirect.to(err.toFile()));
    CaptureResult r = new Capture(o).run(p -> { }, p -> { }, 100);
    return new Captured(r, TraceReader.readAll(trace), Files.readString(out), Files.readString(err));
  }

  List<Event> events() {
    return trace.records().stream().map(TraceRecord::event).toList();
  }

  List<Event> events(Predicate<Event> which) {
    return events().stream().filter(which).toList();
  }

  /** Events that record calls of {@code api}, in file order. */
  List<Event> calls(Api api) {
    return events(e -> e.getApi() == api);
  }

  /** API calls by function name, as stats counts them. */
  Map<String, Long> callCounts() {
    Map<String, Long> m = new TreeMap<>();
    for (Event e : events()) {
      if (e.getApi() != Api.API_UNSPECIFIED) {
        m.merge(ApiNames.of(e), 1L, Long::sum);
      }
    }
    return m;
  }

  List<TraceRecord> records(Predicate<TraceRecord> which) {
    return trace.records().stream().filter(which).toList();
  }
}
