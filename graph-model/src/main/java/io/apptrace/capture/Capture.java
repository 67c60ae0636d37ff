package io.apptrace.capture;

import io.apptrace.proto.SchemaVersion;
import io.apptrace.proto.TraceHeader;
import io.apptrace.symbols.ElfInfo;
import io.apptrace.trace.TraceWriter;
import io.apptrace.trace.Version;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a program under the interposer and writes its trace: {@code apptrace run}.
 *
 * <p>The trace file is created before the program starts (an output that cannot be written fails
 * first). The program inherits the terminal; how it ended (waitpid's status) is the result's. A
 * socket in a fresh 0700 directory receives one connection per traced process, children included.
 */
public final class Capture {
  /** Progress, as the collector sees it. */
  public record Progress(int processes, int active, long events, long bytes) {}

  private final CaptureOptions options;

  public Capture(CaptureOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * Captures the program.
   *
   * @param onStart called with the started program (to forward signals to it)
   * @param progress called about every {@code progressIntervalMs} while the program runs
   * @throws CaptureException if the trace cannot be written, the command cannot be started, or
   *     the native libraries are missing
   */
  public CaptureResult run(Consumer<Program> onStart, Consumer<Progress> progress, long progressIntervalMs)
      throws CaptureException, IOException, InterruptedException {
    try {
      return capture(onStart, progress, progressIntervalMs);
    } catch (CaptureException | IOException | InterruptedException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      // A checked exception no signature declares: one of the JDK's own, which escaped untranslated
      // (JDK 17's sun.nio.fs.UnixException). Those carry no stack trace (they override
      // fillInStackTrace): this one says what the capture was doing, and has one.
      throw new IOException("apptrace run failed while " + stage + ": " + e, e);
    }
  }

  /** What {@link #run} is doing, for a failure that does not say where it arose. */
  private String stage = "starting";

  private CaptureResult capture(Consumer<Program> onStart, Consumer<Progress> progress, long progressIntervalMs)
      throws CaptureException, IOException, InterruptedException {
    stage = "checking the command and the libraries";
    checkLibraries();
    checkCommand();
    List<String> notes = new ArrayList<>();
    staticRuntimeWarning().ifPresent(notes::add);
    boolean existed = Files.exists(options.output(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    stage = "creating the trace " + options.output();
    TraceWriter writer = openTrace();
    try {
      Path dir = null;
      Collector collector = null;
      Program p;
      try {
        stage = "starting the collector";
        dir = Files.createTempDirectory("apptrace-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        collector = Collector.start(dir.resolve(SOCKET), writer);
        stage = "starting the program";
        p = start(dir.resolve(SOCKET), notes);
      } catch (Exception e) { // nothing ran: leave no empty trace behind
        if (collector != null) {
          collector.close();
        }
        if (dir != null) {
          removeSocketFolder(dir);
        }
        writer.close();
        if (!existed) {
          Files.deleteIfExists(options.output());
        }
        throw e;
      }
      // From here on the program runs: whatever happens to the collector, what it received stays in
      // the trace, and the trace ends with how each process ended and what went wrong.
      ExitStatus exit;
      boolean waited = false;
      try {
        stage = "running the program";
        onStart.accept(p);
        exit = waitFor(p, collector, progress, progressIntervalMs);
        stage = "waiting for the traced processes";
        if (!collector.awaitIdle(options.waitForChildren())) {
          notes.add(collector.activeConnections() + " traced process(es) were still running "
              + options.waitForChildren().toSeconds() + " s after the program exited; their"
              + " events up to now are in the trace");
        }
        waited = true;
      } finally {
        if (!waited) { // the stage stays the one that failed
          collector.close();
          removeSocketFolder(dir);
        }
      }
      stage = "closing the collector";
      collector.close();
      stage = "removing the collector's folder " + dir;
      removeSocketFolder(dir).ifPresent(notes::add);
      notes.addAll(collector.problems());
      List<ConnectionEnd> ends = collector.ended();
      stage = "writing the end of the trace";
      List<String> all = TraceEnd.write(writer, ends, p.pid(), exit, notes, collector.writeFailure());
      long bytes = writer.size();
      stage = "closing the trace";
      writer.close();
      return new CaptureResult(exit, options.output(), collector.events(), bytes, ends, all);
    } finally {
      writer.close();
    }
  }

  /** The collector's socket, in a folder of its own. */
  private static final String SOCKET = "s";

  /**
   * A command that does not exist or cannot be run is refused before the trace file is opened:
   * an existing file at the output path is left as it was.
   */
  private void checkCommand() throws CaptureException {
    String cmd = options.command().get(0);
    java.util.Optional<Path> exe = CommandPath.resolve(cmd);
    if (exe.isEmpty()) {
      throw new CaptureException("command not found: " + cmd, 127);
    }
    if (!Files.isExecutable(exe.get())) {
      throw new CaptureException("cannot execute " + cmd + ": permission denied", 126);
    }
  }

  private void checkLibraries() throws CaptureException {
    NativeLibraries libs = options.libraries();
    if (!Files.isRegularFile(libs.interposer())) {
      throw new CaptureException("cannot find the interposer " + libs.interposer()
          + "; rebuild apptrace ('mvn -q -DskipTests package')", 1);
    }
    if (options.simulated() && !Files.isRegularFile(libs.simulator())) {
      throw new CaptureException("cannot find the simulated CUDA runtime " + libs.simulator()
          + "; rebuild apptrace ('mvn -q -DskipTests package')", 1);
    }
  }

  private TraceWriter openTrace() throws CaptureException {
    String host = hostName();
    TraceHeader.Builder header = TraceHeader.newBuilder()
        .setSchemaVersion(SchemaVersion.SCHEMA_VERSION_CURRENT_VALUE)
        .setProducer("apptrace-run " + Version.VERSION)
        .setCreatedUnixNs(System.currentTimeMillis() * 1_000_000L)
        .addAllCommand(options.command())
        .setSourceFormat("capture")
        .setSimulatedDevice(options.simulated())
        .setHost(host);
    // one rank of a job: its rank, as the launcher that started apptrace said
    LauncherEnvironment.rank(System.getenv(), host).ifPresent(header::setJob);
    try {
      return TraceWriter.create(options.output(), header.build());
    } catch (IOException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new CaptureException("cannot write the trace " + options.output() + " (" + why
          + "); choose another path with -o", 1, e);
    }
  }

  /** The variable NVTX reads to find its injection library (docs/CAPTURE.md). */
  static final String NVTX_INJECTION = "NVTX_INJECTION64_PATH";

  private Program start(Path socket, List<String> notes) throws CaptureException {
    Map<String, String> env = new HashMap<>(System.getenv());
    NativeLibraries libs = options.libraries();
    List<String> preload = new ArrayList<>();
    preload.add(libs.interposer().toAbsolutePath().toString());
    if (options.simulated()) {
      // The simulator is preloaded too: whatever libcudart.so.13 the program would find, it
      // gets this one, and the interposer (first) wraps it.
      preload.add(libs.simulator().toAbsolutePath().toString());
      env.merge("LD_LIBRARY_PATH", libs.simulatorDir().toAbsolutePath().toString(),
          (old, sim) -> sim + ":" + old);
      env.put("APPTRACE_SIM", "1");
    }
    String existing = env.get("LD_PRELOAD");
    if (existing != null && !existing.isBlank()) {
      preload.add(existing);
    }
    env.put("LD_PRELOAD", String.join(":", preload));
    env.put("APPTRACE_SOCKET", socket.toString());
    env.put("APPTRACE_MALLOC_THRESHOLD", Long.toString(options.mallocThresholdBytes()));
    nvtxInjection(env, libs.interposer(), notes);
    return Spawn.start(options.command(), env, options.programOutput(), options.programErrors());
  }

  /**
   * Names the interposer as the program's NVTX injection library in {@code env}, unless the user
   * named another: then theirs is kept, and a note says so.
   */
  static void nvtxInjection(Map<String, String> env, Path interposer, List<String> notes) {
    String nvtx = env.get(NVTX_INJECTION);
    if (nvtx == null || nvtx.isEmpty()) {
      env.put(NVTX_INJECTION, interposer.toAbsolutePath().toString());
    } else {
      notes.add(NVTX_INJECTION + " is set (" + nvtx + "): kept, so the program's NVTX ranges and marks go to"
          + " that tool and are not in the trace; unset it to record them");
    }
  }

  private static ExitStatus waitFor(Program p, Collector c, Consumer<Progress> progress, long intervalMs)
      throws InterruptedException, IOException {
    Optional<ExitStatus> end;
    while ((end = p.waitFor(intervalMs)).isEmpty()) {
      progress.accept(new Progress(c.connections(), c.activeConnections(), c.events(), 0));
    }
    return end.get();
  }

  private Optional<String> staticRuntimeWarning() {
    return CommandPath.resolve(options.command().get(0))
        .flatMap(ElfInfo::read)
        .filter(ElfInfo::looksStaticallyLinkedToCudart)
        .map(elf -> options.command().get(0) + " does not load libcudart dynamically (it links the"
            + " CUDA runtime statically, which LD_PRELOAD cannot see): rebuild it with 'nvcc"
            + " -cudart shared', or trace it on a machine with a GPU, where the CUPTI path applies");
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Removes the collector's folder: its socket, then the folder, by name (no directory listing: a
   * listing is a descriptor more, and one that JDK 17 reports without a stack trace when it fails
   * to close it). The trace is complete without this: a failure is a note, never the run's failure.
   *
   * @return why the folder is left behind, if it is
   */
  private static Optional<String> removeSocketFolder(Path dir) {
    try {
      Files.deleteIfExists(dir.resolve(SOCKET));
      Files.deleteIfExists(dir);
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("the collector's folder " + dir + " could not be removed (" + e + "); remove it by hand");
    }
  }

}
