package io.apptrace.cli;

import com.google.protobuf.TextFormat;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace dump FILE}: every event of a trace, one line each, in file order. */
@Command(
    name = "dump",
    header = "Prints every record of a trace, one line each.",
    description =
        "Prints every record of a trace, one line each in file order: pid, tid, batch number,"
            + " function name, then the event in protobuf text form.")
final class DumpCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "A trace (.apptrace).")
  Path file;

  @Override
  public Integer call() throws IOException {
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    PrintWriter out = spec.commandLine().getOut();
    try (TraceReader r = TraceReader.open(file)) {
      out.println("header " + TextFormat.shortDebugString(r.header()));
      while (r.hasNext()) {
        TraceRecord rec = r.next();
        String fn = ApiNames.of(rec.event());
        out.println(rec.pid() + " " + rec.tid() + " " + rec.batchSeq() + " "
            + (fn.isEmpty() ? "-" : fn) + " " + TextFormat.shortDebugString(rec.event()));
      }
      r.truncation().ifPresent(t ->
          out.println("truncated at byte " + t.byteOffset() + ": " + t.reason()));
    } catch (TraceException e) {
      throw new UserException(e.getMessage());
    }
    out.flush();
    return ExitCodes.OK;
  }
}
