package io.apptrace.imports;

import io.apptrace.proto.Event;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.NvtxRanges;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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

  /** The NVTX ranges the trace's annotations make, paired as a trace's reader pairs them, by start. */
  List<NvtxRanges.Range> ranges() {
    List<NvtxRanges.Range> ranges = new ArrayList<>();
    nvtx(ranges, new ArrayList<>());
    ranges.sort(Comparator.comparingLong(NvtxRanges.Range::startNs).thenComparing(NvtxRanges.Range::name));
    return ranges;
  }

  /** The NVTX marks, by time. */
  List<NvtxRanges.Mark> marks() {
    List<NvtxRanges.Mark> marks = new ArrayList<>();
    nvtx(new ArrayList<>(), marks);
    marks.sort(Comparator.comparingLong(NvtxRanges.Mark::ns));
    return marks;
  }

  private void nvtx(List<NvtxRanges.Range> ranges, List<NvtxRanges.Mark> marks) {
    NvtxRanges n = new NvtxRanges(ranges::add, marks::add);
    for (TraceRecord r : trace.records()) {
      Event e = r.event();
      if (e.hasAnnotation()) {
        n.annotation(r.pid(), r.tid(), e.getEntryNs(), e.getAnnotation());
      } else {
        n.seen(r.pid(), r.tid(), e.getEntryNs() + e.getDurationNs());
      }
    }
    n.finish();
  }

  List<Integer> tids() {
    return trace.records().stream().map(TraceRecord::tid).distinct().sorted().toList();
  }
}
