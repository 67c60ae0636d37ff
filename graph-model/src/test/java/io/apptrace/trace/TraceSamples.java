package io.apptrace.trace;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.Memset;
import io.apptrace.proto.Note;
import io.apptrace.proto.ProcessStart;
import io.apptrace.proto.TraceHeader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Trace files for the damage tests and where their records lie: the offset, width and value of
 * every length field (the header's, each batch's, each event's inside its batch), and the byte
 * offsets where batches and events end.
 */
final class TraceSamples {
  /** Where a file's records are. */
  record Layout(long headerEnd, List<Long> batchEnds, List<Long> eventEnds, List<int[]> lengthFields) {}

  private TraceSamples() {}

  /** Two threads of one process, batches of 1 to 4 events of several kinds; returns the file's bytes. */
  static byte[] twoThreads(Path file) throws IOException {
    TraceHeader h = TraceHeader.newBuilder().setSchemaVersion(1).setSourceFormat("capture").addCommand("./app")
        .build();
    try (TraceWriter w = TraceWriter.create(file, h)) {
      w.writeBatch(Batch.newBuilder().setPid(10).setTid(10).setSeq(0)
          .addEvents(Event.newBuilder().setEntryNs(900).setProcessStart(ProcessStart.newBuilder().setPid(10)
              .addArgv("./app")))
          .addEvents(Event.newBuilder().setEntryNs(950).setKernelInfo(KernelInfo.newBuilder().setKernelId(1)
              .setMangledName("_Z1kPf").setDemangledName("k(float*)")))
          .build());
      int counter = 0;
      for (int b = 0; b < 4; b++) {
        Batch.Builder batch = Batch.newBuilder().setPid(10).setTid(10 + b % 2).setSeq(b / 2 + (b % 2 == 0 ? 1 : 0));
        for (int i = 0; i <= b; i++) {
          long t = 1000 + 10L * counter++;
          batch.addEvents(i % 2 == 0
              ? Event.newBuilder().setEntryNs(t).setDurationNs(5).setApi(Api.cudaMemsetAsync)
                  .setMemset(Memset.newBuilder().setPtr(0x7000 + t).setBytes(64).setValue(counter))
              : Event.newBuilder().setEntryNs(t).setDurationNs(3).setApi(Api.cudaLaunchKernel)
                  .setLaunch(KernelLaunch.newBuilder().setKernelId(1).setGridX(4).setBlockX(128)));
        }
        w.writeBatch(batch.build());
      }
      w.writeBatch(Batch.newBuilder().setPid(10).setTid(0).setSeq(0)
          .addEvents(Event.newBuilder().setEntryNs(2000).setNote(Note.newBuilder().setText("end"))).build());
    }
    return Files.readAllBytes(file);
  }

  /** The offset, width and value of every length field of a whole trace file. */
  static List<int[]> lengthFields(byte[] file) throws IOException {
    return layout(file).lengthFields();
  }

  /** Where the records of a whole, undamaged trace file are. */
  static Layout layout(byte[] file) throws IOException {
    List<int[]> fields = new ArrayList<>();
    List<Long> batchEnds = new ArrayList<>();
    List<Long> eventEnds = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(file);
    in.skipRawBytes(TraceFormat.MAGIC.length);
    int at = in.getTotalBytesRead();
    int len = in.readRawVarint32();
    fields.add(new int[] {at, in.getTotalBytesRead() - at, len});
    in.skipRawBytes(len);
    long headerEnd = in.getTotalBytesRead();
    while (!in.isAtEnd()) {
      at = in.getTotalBytesRead();
      len = in.readRawVarint32();
      int body = in.getTotalBytesRead();
      fields.add(new int[] {at, body - at, len});
      CodedInputStream b = CodedInputStream.newInstance(file, body, len);
      while (!b.isAtEnd()) {
        int tag = b.readTag();
        if (WireFormat.getTagFieldNumber(tag) == Batch.EVENTS_FIELD_NUMBER) {
          int e = body + b.getTotalBytesRead();
          int size = b.readRawVarint32();
          fields.add(new int[] {e, body + b.getTotalBytesRead() - e, size});
          b.skipRawBytes(size);
          eventEnds.add((long) body + b.getTotalBytesRead());
        } else {
          b.skipField(tag);
        }
      }
      in.skipRawBytes(len);
      batchEnds.add((long) in.getTotalBytesRead());
    }
    return new Layout(headerEnd, batchEnds, eventEnds, fields);
  }

  /**
   * Fails unless the time-ordered read holds every event of the read in file order, for each
   * thread (it may put a thread's batches in another order when their times say so, and it reads
   * other threads' batches past an event damaged inside), and both stop at the same damage.
   */
  static void sameEventsPerThread(TraceReader.Trace inFileOrder, List<TraceRecord> inTimeOrder,
      java.util.Optional<Truncation> timeOrderedStop) {
    Map<Long, Map<Event, Integer>> x = byThread(inFileOrder.records());
    Map<Long, Map<Event, Integer>> y = byThread(inTimeOrder);
    for (Map.Entry<Long, Map<Event, Integer>> t : x.entrySet()) {
      Map<Event, Integer> other = y.getOrDefault(t.getKey(), Map.of());
      for (Map.Entry<Event, Integer> e : t.getValue().entrySet()) {
        if (other.getOrDefault(e.getKey(), 0) < e.getValue()) {
          throw new AssertionError("the time-ordered reader lacks events the reader in file order returns ("
              + inFileOrder.records().size() + " in file order, " + inTimeOrder.size() + " in time order)");
        }
      }
    }
    if (!timeOrderedStop.map(Truncation::byteOffset).equals(inFileOrder.truncation().map(Truncation::byteOffset))) {
      throw new AssertionError("the readers stop at different places: " + inFileOrder.truncation() + " in file order, "
          + timeOrderedStop + " in time order");
    }
  }

  private static Map<Long, Map<Event, Integer>> byThread(List<TraceRecord> records) {
    Map<Long, Map<Event, Integer>> m = new HashMap<>();
    for (TraceRecord r : records) {
      m.computeIfAbsent((long) r.pid() << 32 | (r.tid() & 0xffffffffL), k -> new HashMap<>())
          .merge(r.event(), 1, Integer::sum);
    }
    return m;
  }
}
