package io.apptrace.trace;

import io.apptrace.proto.JobRank;
import java.util.Map;
import java.util.Optional;

/**
 * The rank of an MPI job, read from the variables job launchers set for each rank: Open MPI's
 * {@code mpirun} ({@code OMPI_COMM_WORLD_RANK}, {@code _SIZE}, {@code _LOCAL_RANK}, {@code
 * _LOCAL_SIZE}), MPICH's Hydra, Cray MPICH and other PMI launchers ({@code PMI_RANK}, {@code
 * PMI_SIZE}, {@code MPI_LOCALRANKID}, {@code MPI_LOCALNRANKS}), PMIx launchers ({@code
 * PMIX_RANK}) and Slurm's {@code srun} ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code
 * SLURM_LOCALID}), in that order. Used where a capture starts under a launcher and where an import
 * finds the environment a profiler recorded.
 */
public final class JobRanks {
  /** The names of the variables a rank is read from, for messages. */
  public static final String RANK_VARIABLES = "OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID";

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
      return Optional.of(build(env, host, "pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"));
    }
    if (env.containsKey("PMIX_RANK")) {
      return Optional.of(build(env, host, "pmix", "PMIX_RANK", null, null, null));
    }
    if (env.containsKey("SLURM_PROCID")) {
      return Optional.of(build(env, host, "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", null));
    }
    return Optional.empty();
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
