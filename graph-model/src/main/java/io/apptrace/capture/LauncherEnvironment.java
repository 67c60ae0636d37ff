package io.apptrace.capture;

import io.apptrace.trace.JobRanks;
import io.apptrace.proto.JobRank;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The rank of an MPI job that the job launcher which started {@code apptrace run} gave it, from
 * the variables launchers set for each rank ({@link JobRanks}); a value that is not a number is
 * bad usage of the launcher.
 */
public final class LauncherEnvironment {
  private LauncherEnvironment() {}

  /** The rank this process is, if a launcher said; {@code host} is recorded with it ({@link JobRanks}). */
  public static Optional<JobRank> rank(Map<String, String> env, String host) throws CaptureException {
    try {
      return JobRanks.of(env, host);
    } catch (IllegalArgumentException e) {
      throw new CaptureException(e.getMessage(), 2);
    }
  }

  /** The names of the variables a rank is read from, for messages. */
  public static final String RANK_VARIABLES = JobRanks.RANK_VARIABLES;

  /**
   * The descriptors the launcher handed this rank, which the program must inherit: the PMI
   * connection of MPICH's Hydra and of Slurm's PMI-2 ({@code PMI_FD}), through which MPI_Init
   * reaches the launcher. A value that is not a descriptor above 2 is left alone.
   */
  public static Set<Integer> descriptors(Map<String, String> env) {
    String fd = env.get("PMI_FD");
    if (fd == null) {
      return Set.of();
    }
    try {
      int n = Integer.parseInt(fd.trim());
      return n > 2 ? Set.of(n) : Set.of();
    } catch (NumberFormatException e) {
      return Set.of();
    }
  }
}
