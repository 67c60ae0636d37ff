package io.apptrace.cli;

import io.apptrace.replay.RegionOfInterest;
import io.apptrace.replay.ReplayProgram;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The region of interest {@code replay} projects (docs/REPLAY.md, "Regions of interest"): a range,
 * a span between two calls or marks, or everything after the set-up; at most one of them.
 */
final class RegionOptions {
  @Option(names = "--roi", paramLabel = "NAME", description = "Project only the range NAME (an NVTX range, a"
      + " profiler range, an imported annotation): every instance of it, or NAME#k the k-th (from 1).")
  String roi;

  @Option(names = "--roi-from", paramLabel = "CALL", description = "Project from the entry of the call or the time"
      + " of the mark named CALL (CALL#k: its k-th, from 1).")
  String roiFrom;

  @Option(names = "--roi-to", paramLabel = "CALL", description = "Project up to the end of the call or the time of"
      + " the mark named CALL (CALL#k: its k-th, from 1).")
  String roiTo;

  @Option(names = "--skip-setup", description = "Project from the first copy, memset or kernel on: leave out the"
      + " set-up before it.")
  boolean skipSetup;

  /** The region of interest the options name, if any. */
  Optional<RegionOfInterest> region(ReplayProgram program) {
    int given = (roi != null ? 1 : 0) + (roiFrom != null || roiTo != null ? 1 : 0) + (skipSetup ? 1 : 0);
    if (given > 1) {
      throw new UserException("--roi, --roi-from/--roi-to and --skip-setup each name a region: give one",
          ExitCodes.BAD_USAGE);
    }
    try {
      if (roi != null) {
        return Optional.of(RegionOfInterest.range(program, roi));
      }
      if (roiFrom != null || roiTo != null) {
        return Optional.of(RegionOfInterest.between(program, roiFrom, roiTo));
      }
      if (skipSetup) {
        return Optional.of(RegionOfInterest.skipSetup(program));
      }
    } catch (RegionOfInterest.NotFound e) {
      throw new UserException(e.getMessage());
    }
    return Optional.empty();
  }
}
