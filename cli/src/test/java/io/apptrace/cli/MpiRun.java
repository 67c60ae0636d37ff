package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Captures a real MPI job: Open MPI's mpirun starts `apptrace run --sim -o trace.%r.apptrace` per
 * rank, on the simulated device, with a program of tracer-native/tests/mpi. The test calling it is
 * skipped (with a message) where Open MPI or the program is missing.
 */
final class MpiRun {
  private MpiRun() {}

  private static Optional<Path> onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Runs {@code program} on {@code ranks} ranks, each captured into {@code dir}/trace.RANK.apptrace. */
  static List<Path> capture(Path dir, String program, int ranks) throws IOException, InterruptedException {
    Optional<Path> mpirun = onPath("mpirun");
    assumeTrue(mpirun.isPresent(), "Open MPI is not installed (mpirun; apt-get install openmpi-bin libopenmpi-dev):"
        + " the MPI capture tests are skipped");
    Path exe = Path.of(System.getProperty("apptrace.native.dir")).resolveSibling("mpi-tests").resolve(program);
    assumeTrue(Files.isExecutable(exe), exe + " was not built (no mpicc when tracer-native was built): skipped");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(mpirun.get().toString(), "--oversubscribe", "-n", Integer.toString(ranks),
        "-x", "APPTRACE_SIM_DEVICES", "-x", "APPTRACE_SIM_QUIET",
        java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        "-Dapptrace.native.dir=" + System.getProperty("apptrace.native.dir"), "io.apptrace.cli.Main",
        "run", "--sim", "-q", "-o", dir.resolve("trace.%r.apptrace").toString(), "--", exe.toString());
    Path log = dir.resolve("mpirun.log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
    pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    pb.environment().put("APPTRACE_SIM_DEVICES", "2");
    pb.environment().put("APPTRACE_SIM_QUIET", "1");
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("mpirun did not finish: " + Files.readString(log));
    }
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    List<Path> traces = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      traces.add(dir.resolve("trace." + r + ".apptrace"));
    }
    return traces;
  }
}
