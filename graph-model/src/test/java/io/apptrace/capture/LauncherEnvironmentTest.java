package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.proto.JobRank;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rank each launcher gives a process, and the per-rank trace name made from it. */
class LauncherEnvironmentTest {
  @Test
  void eachLaunchersVariablesGiveTheRank() throws Exception {
    JobRank ompi = LauncherEnvironment.rank(Map.of("OMPI_COMM_WORLD_RANK", "5", "OMPI_COMM_WORLD_SIZE", "8",
        "OMPI_COMM_WORLD_LOCAL_RANK", "1", "OMPI_COMM_WORLD_LOCAL_SIZE", "4", "PMIX_RANK", "5"), "n1").orElseThrow();
    assertThat(ompi).isEqualTo(JobRank.newBuilder().setRank(5).setWorldSize(8).setLocalRank(1).setLocalSize(4)
        .setHost("n1").setLauncher("open-mpi").build());
    JobRank pmi = LauncherEnvironment.rank(Map.of("PMI_RANK", "3", "PMI_SIZE", "4", "MPI_LOCALRANKID", "0"), "n2")
        .orElseThrow();
    assertThat(java.util.List.of(pmi.getRank(), pmi.getWorldSize(), pmi.getLocalRank(), pmi.getLocalSize()))
        .containsExactly(3, 4, 0, 0);
    assertThat(pmi.getLauncher()).isEqualTo("pmi");
    JobRank slurm = LauncherEnvironment.rank(Map.of("SLURM_PROCID", "17", "SLURM_NTASKS", "64", "SLURM_LOCALID", "1"),
        "nid001").orElseThrow();
    assertThat(java.util.List.of(slurm.getRank(), slurm.getWorldSize(), slurm.getLocalRank())).containsExactly(17, 64, 1);
    JobRank pmix = LauncherEnvironment.rank(Map.of("PMIX_RANK", "2"), "h").orElseThrow();
    assertThat(pmix.getLocalRank()).as("not said").isEqualTo(-1);
    assertThat(LauncherEnvironment.rank(Map.of("HOME", "/root"), "h")).isEmpty();
  }

  /** The variables a task of `srun --mpi=pmix -O -n 4` had on this machine (Slurm 22.05, PMIx 4). */
  @Test
  void srunWithPmixGivesTheRankFromPmixAndTheRestFromItsStep() throws Exception {
    Map<String, String> env = Map.of("PMIX_RANK", "2", "PMIX_NAMESPACE", "slurm.pmix.4.0", "SLURM_PROCID", "2",
        "SLURM_NTASKS", "4", "SLURM_STEP_NUM_TASKS", "4", "SLURM_LOCALID", "2", "SLURM_NODEID", "0",
        "SLURM_STEP_TASKS_PER_NODE", "4", "SLURM_STEP_ID", "0");
    JobRank r = LauncherEnvironment.rank(env, "vm").orElseThrow();
    assertThat(r).isEqualTo(JobRank.newBuilder().setRank(2).setWorldSize(4).setLocalRank(2).setLocalSize(4)
        .setHost("vm").setLauncher("pmix+slurm").build());
  }

  @Test
  void aSlurmStepsTasksPerNodeAreReadInTheirCompressedForm() throws Exception {
    // 10 tasks over 4 nodes: 3 on nodes 0 and 1, 2 on nodes 2 and 3
    Map<String, String> env = Map.of("SLURM_PROCID", "8", "SLURM_NTASKS", "16", "SLURM_STEP_NUM_TASKS", "10",
        "SLURM_LOCALID", "0", "SLURM_NODEID", "3", "SLURM_STEP_TASKS_PER_NODE", "3(x2),2(x2)");
    JobRank r = LauncherEnvironment.rank(env, "nid4").orElseThrow();
    assertThat(java.util.List.of(r.getRank(), r.getWorldSize(), r.getLocalRank(), r.getLocalSize()))
        .as("the step's tasks, not the allocation's").containsExactly(8, 10, 0, 2);
    assertThat(r.getLauncher()).isEqualTo("slurm");
  }

  @Test
  void aSlurmAllocationsVariablesInheritedByAnotherLaunchersRankAreNotTakenAsItsStep() throws Exception {
    // mpirun inside an sbatch script: the batch step's SLURM_PROCID=0 is inherited by every rank
    Map<String, String> env = Map.of("PMIX_RANK", "3", "SLURM_PROCID", "0", "SLURM_NTASKS", "8",
        "SLURM_STEP_NUM_TASKS", "1", "SLURM_LOCALID", "0", "SLURM_NODEID", "0", "SLURM_STEP_TASKS_PER_NODE", "1");
    JobRank r = LauncherEnvironment.rank(env, "n1").orElseThrow();
    assertThat(java.util.List.of(r.getRank(), r.getWorldSize(), r.getLocalRank())).containsExactly(3, 0, -1);
    assertThat(r.getLauncher()).isEqualTo("pmix");
  }

  @Test
  void theLaunchersPmiDescriptorIsKeptAndNothingElse() {
    assertThat(LauncherEnvironment.descriptors(Map.of("PMI_FD", "6", "PMI_RANK", "0"))).containsExactly(6);
    assertThat(LauncherEnvironment.descriptors(Map.of("PMI_FD", "2"))).as("standard error").isEmpty();
    assertThat(LauncherEnvironment.descriptors(Map.of("PMI_FD", "x"))).isEmpty();
    assertThat(LauncherEnvironment.descriptors(Map.of("PMI_PORT", "host:4000"))).isEmpty();
  }

  @Test
  void aRankThatIsNotANumberIsNamedInTheError() {
    assertThatThrownBy(() -> LauncherEnvironment.rank(Map.of("SLURM_PROCID", "x1"), "h"))
        .isInstanceOf(CaptureException.class).hasMessageContaining("SLURM_PROCID=x1");
  }

  @Test
  void percentRIsTheRankAndPercentPercentAPercentSign() throws Exception {
    Optional<JobRank> r = Optional.of(JobRank.newBuilder().setRank(12).build());
    assertThat(OutputPattern.expand(Path.of("out/trace.%r.apptrace"), r)).isEqualTo(Path.of("out/trace.12.apptrace"));
    assertThat(OutputPattern.expand(Path.of("a%%b.%r"), r)).isEqualTo(Path.of("a%b.12"));
    assertThat(OutputPattern.expand(Path.of("plain.apptrace"), Optional.empty())).isEqualTo(Path.of("plain.apptrace"));
    assertThatThrownBy(() -> OutputPattern.expand(Path.of("t.%r"), Optional.empty()))
        .isInstanceOf(CaptureException.class).hasMessageContaining("OMPI_COMM_WORLD_RANK");
    assertThatThrownBy(() -> OutputPattern.expand(Path.of("t.%h"), r)).hasMessageContaining("unknown %h");
  }
}
