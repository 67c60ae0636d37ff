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
 * Starts a program of tracer-native/tests/mpi as a real MPI job on the simulated device, with the
 * launcher of the MPI it was built against (or Slurm's srun, which starts Open MPI's ranks through
 * PMIx), each rank under `apptrace run --sim -o trace.%r.apptrace` or on its own. A test is skipped
 * (with a message) where that MPI, a Slurm controller or the program is missing.
 */
final class MpiLaunch {
  private MpiLaunch() {}

  /** An MPI: its launcher, the directory of the test programs built against it, how a rank names it. */
  enum Mpi {
    OPEN_MPI("mpirun", "mpi-tests", "open-mpi", "Open MPI is not installed (mpirun; apt-get install openmpi-bin"
        + " libopenmpi-dev): its MPI capture tests are skipped"),
    MPICH("mpiexec.mpich", "mpich-tests", "pmi", "MPICH is not installed (mpiexec.mpich; apt-get install mpich"
        + " libmpich-dev): its MPI capture tests are skipped"),
    /** Slurm's srun, PMIx giving the rank and the step its size and local rank (tools/ci-install-slurm). */
    SRUN("srun", "mpi-tests", "pmix+slurm", "Slurm is not installed or no controller answers (srun, sinfo;"
        + " tools/ci-install-slurm starts a one-node cluster): its srun capture tests are skipped");

    final String launcher;
    final String programs;
    final String rankLauncher;
    final String absent;

    Mpi(String launcher, String programs, String rankLauncher, String absent) {
      this.launcher = launcher;
      this.programs = programs;
      this.rankLauncher = rankLauncher;
      this.absent = absent;
    }
  }

  /** Runs `program` on `ranks` ranks, each captured into dir/trace.RANK.apptrace; those paths. */
  static List<Path> captured(Path dir, Mpi mpi, String program, int ranks) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    launch(dir, mpi, program, ranks, List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
        System.getProperty("java.class.path"), "-Dapptrace.native.dir=" + System.getProperty("apptrace.native.dir"),
        "io.apptrace.cli.Main", "run", "--sim", "-q", "-o", dir.resolve("trace.%r.apptrace").toString(), "--"));
    List<Path> traces = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      traces.add(dir.resolve("trace." + r + ".apptrace"));
    }
    return traces;
  }

  /** Runs `program` on `ranks` ranks on the simulated runtime without apptrace; its output. */
  static String alone(Path dir, Mpi mpi, String program, int ranks) throws IOException, InterruptedException {
    launch(dir, mpi, program, ranks, List.of());
    return Files.readString(dir.resolve("mpirun.log"));
  }

  /** The launcher's command line runs `wrapper` followed by the program; its output goes to dir/mpirun.log. */
  private static void launch(Path dir, Mpi mpi, String program, int ranks, List<String> wrapper)
      throws IOException, InterruptedException {
    Optional<Path> launcher = onPath(mpi.launcher);
    assumeTrue(launcher.isPresent() && (mpi != Mpi.SRUN || slurmAnswers()), mpi.absent);
    Path sim = Path.of(System.getProperty("apptrace.native.dir")).resolve("sim");
    Path exe = sim.getParent().resolveSibling(mpi.programs).resolve(program);
    assumeTrue(Files.isExecutable(exe), exe + " was not built (no compiler for " + mpi + " when tracer-native was"
        + " built): skipped");
    List<String> cmd = new ArrayList<>(List.of(launcher.get().toString()));
    if (mpi == Mpi.OPEN_MPI) {
      cmd.addAll(List.of("--oversubscribe", "-n", Integer.toString(ranks), "-x", "APPTRACE_SIM_DEVICES", "-x",
          "APPTRACE_SIM_QUIET", "-x", "LD_LIBRARY_PATH"));
    } else if (mpi == Mpi.SRUN) {
      // the whole environment is passed; -O: more ranks than the node's CPUs
      cmd.addAll(List.of("--mpi=pmix", "-O", "-n", Integer.toString(ranks)));
    } else {
      cmd.addAll(List.of("-n", Integer.toString(ranks))); // Hydra passes the whole environment
    }
    cmd.addAll(wrapper);
    cmd.add(exe.toString());
    Path log = dir.resolve("mpirun.log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT", "1");
    pb.environment().put("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    pb.environment().put("APPTRACE_SIM_DEVICES", "2");
    pb.environment().put("APPTRACE_SIM_QUIET", "1");
    if (wrapper.isEmpty()) {
      // on its own, the program finds the simulated runtime (and NCCL) as a user would point it there
      pb.environment().merge("LD_LIBRARY_PATH", sim.toString(), (old, s) -> s + ":" + old);
    }
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(mpi.launcher + " did not finish: " + Files.readString(log));
    }
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
  }

  /** A Slurm controller answers with a node able to run the job. */
  private static boolean slurmAnswers() throws IOException, InterruptedException {
    Optional<Path> sinfo = onPath("sinfo");
    if (sinfo.isEmpty()) {
      return false;
    }
    Process p = new ProcessBuilder(sinfo.get().toString(), "-h", "-o", "%T").redirectErrorStream(true).start();
    String states = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return false;
    }
    return p.exitValue() == 0 && (states.contains("idle") || states.contains("mix"));
  }

  private static Optional<Path> onPath(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
