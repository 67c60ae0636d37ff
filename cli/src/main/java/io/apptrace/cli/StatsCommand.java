package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.stats.StatsJson;
import io.apptrace.stats.TraceStats;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace stats FILE [--json]}. */
@Command(
    name = "stats",
    header = "Counts what a trace holds.",
    description =
        "Counts what a trace holds, per process and thread and in total: API calls by name,"
            + " kernel launches by kernel, bytes copied by direction and memory kind, allocations by"
            + " kind, the wall time covered, and records dropped or cut off.")
final class StatsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A trace (.apptrace).")
  Path file;

  @Option(names = "--json", description = "Print the stable JSON document (docs/CLI.md).")
  boolean json;

  @Override
  public Integer call() throws IOException {
    TraceStats stats = read(file);
    PrintWriter out = spec.commandLine().getOut();
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
