package io.apptrace.trace;

import io.apptrace.proto.JobRank;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rank of an MPI job, read from the variables job launchers set for each rank: Open MPI's
 * {@code mpirun} ({@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code
 * _LOCAL_SIZE}), MPICH's Hydra, Cray MPICH and other PMI launchers ({@code PMI_RANK}, {@code
 * PMI_SIZE}, {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS}), PMIx launchers ({@code
 * PMIX_RANK}) and Slurm's {@code srun} ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code
 * SLURM_LOCALID}), in that order. A rank a PMI or PMIx launcher names without its world size or
 * local rank takes them from Slurm's when {@code srun} started it (a Slurm step whose {@code
 * SLURM_PROCID} is that rank: {@code srun --mpi=pmix} sets only {@code PMIX_RANK} of PMIx's). Used
 * where a capture starts under a launcher and where an import finds the environment a profiler
 * recorded.
 */
public final class JobRanks {
  /** The names of the variables a rank is read from, for messages. */
  public static final String RANK_VARIABLES = "OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID";

  /** An entry of {@code SLURM_STEP_TASKS_PER_NODE}: tasks, and how many nodes in a row have them. */
  private static final Pattern TASKS = Pattern.compile("(\\d+)(?:\\(x(\\d+)\\))?");

  private JobRanks() {}

  /**
   * The rank {@code env} says this process is, if a launcher said; {@code host} is recorded with it.
   *
   * @throws IllegalArgumentException naming the variable whose value is not a rank or a count
   */
  public static Optional<JobRank> of(Map<String, String> env, String host) {
    if (env.containsKey("OMPI_COMM_WORLD_RANK")) {
      return Optional.of(build(env, host, "open-mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
          "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"));
    }
    if (env.containsKey("PMI_RANK")) {
      return Optional.of(withSlurmStep(env,
          build(env, host, "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS")));
    }
    if (env.containsKey("PMIX_RANK")) {
      return Optional.of(withSlurmStep(env, build(env, host, "pmix", "PMIX_RANK", null, null, null)));
    }
    if (env.containsKey("SLURM_PROCID")) {
      JobRank.Builder b = build(env, host, "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", null).toBuilder();
      if (slurmStep(env)) {
        b.setWorldSize(number(env, "SLURM_STEP_NUM_TASKS", 0)).setLocalSize(stepTasksOnThisNode(env));
      }
      return Optional.of(b.build());
    }
    return Optional.empty();
  }

  /** Whether {@code srun} started this process: a step's task, not a batch script or its children. */
  private static boolean slurmStep(Map<String, String> env) {
    return env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_STEP_NUM_TASKS");
  }

  /** {@code r} with what it does not say taken from the Slurm step that started it, if one did. */
  private static JobRank withSlurmStep(Map<String, String> env, JobRank r) {
    if (!slurmStep(env) || number(env, "SLURM_PROCID", -1) != r.getRank()
        || number(env, "SLURM_STEP_NUM_TASKS", 0) <= r.getRank()) {
      return r;
    }
    JobRank.Builder b = r.toBuilder();
    if (b.getWorldSize() == 0) {
      b.setWorldSize(number(env, "SLURM_STEP_NUM_TASKS", 0));
    }
    if (b.getLocalRank() < 0) {
      b.setLocalRank(number(env, "SLURM_LOCALID", -1));
    }
    if (b.getLocalSize() == 0) {
      b.setLocalSize(stepTasksOnThisNode(env));
    }
    JobRank completed = b.build();
    // the launcher named is the one whose variables said it all, or both when Slurm's said some
    return completed.equals(r) ? r : completed.toBuilder().setLauncher(r.getLauncher() + "+slurm").build();
  }

  /**
   * The step's tasks on this node: entry {@code SLURM_NODEID} of {@code SLURM_STEP_TASKS_PER_NODE},
   * which Slurm writes compressed ({@code "3(x2),2"}: 3, 3, 2); 0 when it does not say.
   */
  private static int stepTasksOnThisNode(Map<String, String> env) {
    String list = env.get("SLURM_STEP_TASKS_PER_NODE");
    int node = number(env, "SLURM_NODEID", -1);
    if (list == null || node < 0) {
      return 0;
    }
    int at = 0;
    for (String part : list.split(",")) {
      Matcher m = TASKS.matcher(part.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("the launcher's SLURM_STEP_TASKS_PER_NODE=" + list
            + " is not a list of task counts");
      }
      at += m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
      if (node < at) {
        return Integer.parseInt(m.group(1));
      }
    }
    return 0;
  }

  /** Whether {@code name} is one of the variables {@link #of} reads. */
  public static boolean reads(String name) {
    return name.startsWith("OMPI_COMM_WORLD_") || name.startsWith("PMI_") || name.startsWith("PMIX_")
        || name.startsWith("SLURM_") || name.startsWith("MPI_LOCAL");
  }

  private static JobRank build(Map<String, String> env, String host, String launcher, String rank,
      String size, String localRank, String localSize) {
    JobRank.Builder b = JobRank.newBuilder().setLauncher(launcher).setHost(host)
        .setRank(number(env, rank, 0));
    b.setWorldSize(size == null ? 0 : number(env, size, 0));
    b.setLocalRank(localRank == null ? -1 : number(env, localRank, -1));
    b.setLocalSize(localSize == null ? 0 : number(env, localSize, 0));
    return b.build();
  }

  private static int number(Map<String, String> env, String name, int otherwise) {
    String v = env.get(name);
    if (v == null) {
      return otherwise;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the launcher's " + name + "=" + v + " is not a rank or a count");
    }
  }
}
