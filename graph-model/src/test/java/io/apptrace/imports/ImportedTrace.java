package io.apptrace.imports;

import io.apptrace.proto.Event;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Path;
import java.util.List;

/** An imported trace read back, with the views the import tests assert on. */
record ImportedTrace(TraceReader.Trace trace) {
  static ImportedTrace read(Path file) throws Exception {
    return new ImportedTrace(TraceReader.readAll(file));
  }

  /** The API calls of one thread, in order. */
  List<Event> calls(int tid) {
    return trace.records().stream().filter(r -> r.tid() == tid).map(TraceRecord::event)
        .filter(e -> !ApiNames.of(e).isEmpty()).toList();
  }

  List<String> callNames(int tid) {
    return calls(tid).stream().map(ApiNames::of).toList();
  }

  /** The GPU record that follows a call in its thread. */
  Event gpuAfter(Event call) {
    List<Event> all = trace.records().stream().map(TraceRecord::event).toList();
    int i = all.indexOf(call);
    return all.get(i + 1);
  }

  List<Event> all(Event.BodyCase body) {
    return trace.records().stream().map(TraceRecord::event).filter(e -> e.getBodyCase() == body).toList();
  }

  List<Integer> tids() {
    return trace.records().stream().map(TraceRecord::tid).distinct().sorted().toList();
  }
}
