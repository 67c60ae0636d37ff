package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.stats.StatsJson;
import io.apptrace.stats.TraceStats;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import io.apptrace.job.JobTraffic;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace stats FILE [--json]}; {@code apptrace stats RANK-FILES...|FOLDER} for a job. */
@Command(
    name = "stats",
    header = "Counts what a trace holds.",
    description =
        "Counts what a trace holds, per process and thread and in total: API calls by name,"
            + " kernel launches by kernel, bytes copied by direction and memory kind, allocations by"
            + " kind, the wall time covered, and records dropped or cut off. Given the traces of an MPI"
            + " job's ranks (several files, or a folder), counts the job's messages per rank and per pair of"
            + " ranks, and its collectives (docs/JOBS.md).")
final class StatsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE",
      description = "A trace (.apptrace); or the traces of a job's ranks, or a folder holding them.")
  List<Path> files;

  @Option(names = "--json", description = "Print the stable JSON document (docs/CLI.md).")
  boolean json;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    if (JobInput.isJob(files)) {
      JobTraffic traffic = JobTraffic.of(JobInput.read(files));
      if (json) {
        out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(traffic));
      } else {
        new JobStatsText(out).print(traffic);
      }
      out.flush();
      return ExitCodes.OK;
    }
    Path file = files.get(0);
    TraceStats stats = read(file);
    if (json) {
      out.println(new ObjectMapper().writerWithDefaultPrettyPrinter()
          .writeValueAsString(StatsJson.of(stats, file.toString())));
    } else {
      new StatsText(out).print(stats, file.toString());
    }
    out.flush();
    return ExitCodes.OK;
  }

  /** Reads a trace's statistics, turning unreadable files into user errors. */
  static TraceStats read(Path file) throws IOException {
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    try (TraceReader r = TraceReader.open(file)) {
      return TraceStats.compute(r);
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserException("cannot read " + file + ": no such file");
    }
  }
}
