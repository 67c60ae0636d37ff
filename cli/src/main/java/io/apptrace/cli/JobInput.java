package io.apptrace.cli;

import io.apptrace.job.Job;
import io.apptrace.job.JobException;
import io.apptrace.trace.InputFiles;
import io.apptrace.trace.TraceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The traces of a job's ranks named on the command line (files, or folders holding them), read as one job. */
final class JobInput {
  private JobInput() {}

  /** Whether the inputs are a job's traces: several files, or a folder (else one trace). */
  static boolean isJob(List<Path> inputs) {
    return inputs.size() > 1 || Files.isDirectory(inputs.get(0));
  }

  static Job read(List<Path> inputs) throws IOException {
    for (Path p : inputs) {
      if (!Files.isDirectory(p)) {
        Optional<String> problem = InputFiles.problem(p);
        if (problem.isPresent()) {
          throw new UserException("cannot read " + p + ": " + problem.get());
        }
      }
    }
    List<Path> files = Job.files(inputs);
    if (files.isEmpty()) {
      throw new UserException("cannot read " + inputs.get(0) + ": a directory, not a file, and no rank traces"
          + " (.apptrace) in it");
    }
    try {
      return Job.read(files);
    } catch (JobException | TraceException e) {
      throw new UserException(e.getMessage());
    }
  }
}
