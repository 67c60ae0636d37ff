package io.apptrace.trace;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a Batch event by event, so that a batch cut short or damaged still yields every complete
 * event before the damage, and says where the damage starts.
 */
final class BatchParser {
  /** What a batch held up to where it could be read. */
  record Result(int pid, int tid, long seq, List<Event> events, int goodBytes, String problem) {}

  private BatchParser() {}

  /** Parses {@code data[0..length)}; a whole, undamaged batch takes the fast path. */
  static Result parse(byte[] data, int length, boolean complete) {
    if (complete) {
      try {
        Batch b = Batch.parseFrom(CodedInputStream.newInstance(data, 0, length));
        return new Result(b.getPid(), b.getTid(), b.getSeq(), b.getEventsList(), length, null);
      } catch (IOException e) {
        // damaged: fall through to the salvaging parse below
      }
    }
    return salvage(data, length, complete);
  }

  private static Result salvage(byte[] data, int length, boolean complete) {
    int pid = 0;
    int tid = 0;
    long seq = 0;
    List<Event> events = new ArrayList<>();
    CodedInputStream in = CodedInputStream.newInstance(data, 0, length);
    int good = 0;
    try {
      while (!in.isAtEnd()) {
        int tag = in.readTag();
        int field = WireFormat.getTagFieldNumber(tag);
        if (field == Batch.PID_FIELD_NUMBER && WireFormat.getTagWireType(tag) == 0) {
          pid = in.readUInt32();
        } else if (field == Batch.TID_FIELD_NUMBER && WireFormat.getTagWireType(tag) == 0) {
          tid = in.readUInt32();
        } else if (field == Batch.SEQ_FIELD_NUMBER && WireFormat.getTagWireType(tag) == 0) {
          seq = in.readUInt64();
        } else if (field == Batch.EVENTS_FIELD_NUMBER
            && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          int size = in.readRawVarint32();
          if (size < 0 || size > length - in.getTotalBytesRead()) {
            return new Result(pid, tid, seq, events, good, complete ? "damaged event" : "cut short");
          }
          events.add(Event.parseFrom(in.readRawBytes(size)));
        } else if (!in.skipField(tag)) {
          break;
        }
        good = in.getTotalBytesRead();
      }
    } catch (IOException e) {
      return new Result(pid, tid, seq, events, good, complete ? "damaged event" : "cut short");
    }
    return new Result(pid, tid, seq, events, good, complete ? null : "cut short");
  }
}
