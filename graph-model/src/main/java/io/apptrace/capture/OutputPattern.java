package io.apptrace.capture;

import io.apptrace.proto.JobRank;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The trace file name of one rank of a job: {@code %r} in the name given with {@code -o} becomes
 * the rank the launcher gave the process, and {@code %%} a percent sign, so that
 * {@code mpirun -n 4 apptrace run -o trace.%r.apptrace -- ./app} writes one trace per rank.
 */
public final class OutputPattern {
  private OutputPattern() {}

  /** {@code pattern} with its {@code %r} and {@code %%} replaced. */
  public static Path expand(Path pattern, Optional<JobRank> rank) throws CaptureException {
    String s = pattern.toString();
    if (s.indexOf('%') < 0) {
      return pattern;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '%') {
        out.append(c);
        continue;
      }
      char next = i + 1 < s.length() ? s.charAt(i + 1) : '\0';
      if (next == '%') {
        out.append('%');
      } else if (next == 'r') {
        if (rank.isEmpty()) {
          throw new CaptureException("-o " + s + ": %r is the rank a job launcher gives (" + LauncherEnvironment.RANK_VARIABLES
              + "), and none of them is set; run apptrace under mpirun or srun, or name the file without %r", 2);
        }
        out.append(rank.get().getRank());
      } else {
        throw new CaptureException("-o " + s + ": unknown %" + (next == '\0' ? "" : String.valueOf(next))
            + " (%r is the rank, %% a percent sign)", 2);
      }
      i++;
    }
    return Path.of(out.toString());
  }
}
