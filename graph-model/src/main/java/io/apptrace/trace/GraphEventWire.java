package io.apptrace.trace;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.MemoryKind;
import java.util.Arrays;

/**
 * Reads the events the graph build sees most (copies, memsets, kernel launches, GPU spans) straight
 * from their encoding into {@link GraphEvent}s, without building their protobuf messages: on a
 * trace of millions of operations, building those messages cost the decoding core more than the
 * graph build itself.
 *
 * <p>It reads only what it reads exactly as the protobuf parser would, and leaves everything else
 * to the parser: an event with a name (a string, which the parser checks is UTF-8), a field it
 * does not know or in an unexpected wire type, more than one body, or a malformed or cut value
 * gives null, and the caller parses that event as an {@code Event}. So what a trace says, and
 * where damage is reported, stay the parser's; GraphEventWireTest checks this field by field and
 * on damaged encodings. The field numbers are those of proto/apptrace.proto.
 */
final class GraphEventWire extends WireCursor {
  private GraphEventWire(byte[] data, int pos, int end) {
    super(data, pos, end);
  }

  /**
   * The event encoded in {@code data[offset, offset + length)} (an Event message) as the graph
   * reads it, or null when it is not one read here or is not read here exactly as the parser
   * would read it.
   */
  static GraphEvent decode(int pid, int tid, byte[] data, int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > data.length) {
      return null;
    }
    return new GraphEventWire(data, offset, offset + length).event(pid, tid);
  }

  private GraphEvent event(int pid, int tid) {
    long entry = 0;
    long duration = 0;
    int api = 0;
    int result = 0;
    long callSite = 0;
    long correlation = 0;
    long cpuEntry = 0;
    long cpuExit = 0;
    long collector = 0;
    int body = 0;
    int bodyStart = 0;
    int bodyEnd = 0;
    while (pos < end && !refused) {
      int tag = tag();
      switch (tag) {
        case 1 << 3 | FIXED64 -> entry = fixed64();
        case 2 << 3 | VARINT -> duration = varint();
        case 3 << 3 | VARINT -> api = (int) varint();
        case 4 << 3 | VARINT -> result = (int) varint();
        case 5 << 3 | FIXED64 -> callSite = fixed64();
        case 6 << 3 | VARINT -> correlation = varint();
        case 8 << 3 | VARINT -> cpuEntry = varint();
        case 9 << 3 | VARINT -> cpuExit = varint();
        case 50 << 3 | VARINT -> collector = varint();
        case 16 << 3 | BYTES, 17 << 3 | BYTES, 19 << 3 | BYTES, 27 << 3 | BYTES -> {
          if (body != 0) {
            return null; // a second body: protobuf's oneof and merge rules are the parser's
          }
          body = tag >>> 3;
          int n = length();
          bodyStart = pos;
          bodyEnd = pos + n;
          pos = bodyEnd;
        }
        default -> refused = true; // the name, other bodies, unknown fields
      }
    }
    if (refused || body == 0) {
      return null;
    }
    GraphEvent.Call c = new GraphEvent.Call(pid, tid, api, "", result, entry, duration, correlation, callSite,
        cpuEntry, cpuExit, collector);
    pos = bodyStart;
    end = bodyEnd;
    GraphEvent e = switch (body) {
      case 16 -> copy(c);
      case 17 -> memset(c);
      case 19 -> launch(c);
      default -> gpu(c);
    };
    return refused ? null : e;
  }

  /** A Copy message. */
  private GraphEvent copy(GraphEvent.Call c) {
    long dst = 0;
    long src = 0;
    long bytes = 0;
    int kindResolved = 0;
    long stream = 0;
    boolean async = false;
    int dstDevice = 0;
    int srcDevice = 0;
    int dims = 0;
    long dpitch = 0;
    long spitch = 0;
    long width = 0;
    long height = 0;
    long depth = 0;
    int srcKind = 0;
    int dstKind = 0;
    while (pos < end && !refused) {
      switch (tag()) {
        case 1 << 3 | FIXED64 -> dst = fixed64();
        case 2 << 3 | FIXED64 -> src = fixed64();
        case 3 << 3 | VARINT -> bytes = varint();
        case 5 << 3 | VARINT -> kindResolved = (int) varint();
        case 7 << 3 | FIXED64 -> stream = fixed64();
        case 8 << 3 | VARINT -> async = varint() != 0;
        case 9 << 3 | VARINT -> dstDevice = zigZag(varint());
        case 10 << 3 | VARINT -> srcDevice = zigZag(varint());
        case 11 << 3 | VARINT -> dims = (int) varint();
        case 12 << 3 | VARINT -> dpitch = varint();
        case 13 << 3 | VARINT -> spitch = varint();
        case 14 << 3 | VARINT -> width = varint();
        case 15 << 3 | VARINT -> height = varint();
        case 16 << 3 | VARINT -> depth = varint();
        case 23 << 3 | VARINT -> srcKind = (int) varint();
        case 24 << 3 | VARINT -> dstKind = (int) varint();
        // kind_called, resolution, symbol_offset, the memory types, device: not in the graph
        case 4 << 3 | VARINT, 6 << 3 | VARINT, 19 << 3 | VARINT, 20 << 3 | VARINT, 21 << 3 | VARINT,
            22 << 3 | VARINT -> varint();
        case 18 << 3 | FIXED64 -> fixed64(); // symbol_host_address
        default -> refused = true; // the symbol's name and bytes, unknown fields
      }
    }
    return new GraphEvent.CopyCall(c, dst, src, bytes, copyKind(kindResolved), stream, async, dstDevice,
        srcDevice, dims, dpitch, spitch, width, height, depth, memoryKind(srcKind), memoryKind(dstKind), null);
  }

  /** A Memset message. */
  private GraphEvent memset(GraphEvent.Call c) {
    long ptr = 0;
    long bytes = 0;
    long stream = 0;
    boolean async = false;
    int dims = 0;
    long pitch = 0;
    long width = 0;
    long height = 0;
    long depth = 0;
    int kind = 0;
    while (pos < end && !refused) {
      switch (tag()) {
        case 1 << 3 | FIXED64 -> ptr = fixed64();
        case 3 << 3 | VARINT -> bytes = varint();
        case 4 << 3 | FIXED64 -> stream = fixed64();
        case 5 << 3 | VARINT -> async = varint() != 0;
        case 6 << 3 | VARINT -> dims = (int) varint();
        case 7 << 3 | VARINT -> pitch = varint();
        case 8 << 3 | VARINT -> width = varint();
        case 9 << 3 | VARINT -> height = varint();
        case 10 << 3 | VARINT -> depth = varint();
        case 12 << 3 | VARINT -> kind = (int) varint();
        case 2 << 3 | VARINT, 11 << 3 | VARINT -> varint(); // value, device: not in the graph
        default -> refused = true; // unknown fields: the parser decides
      }
    }
    return new GraphEvent.MemsetCall(c, ptr, bytes, stream, async, dims, pitch, width, height, depth,
        memoryKind(kind));
  }

  /** A KernelLaunch message. */
  private GraphEvent launch(GraphEvent.Call c) {
    long kernelId = 0;
    int gridX = 0;
    int gridY = 0;
    int gridZ = 0;
    int blockX = 0;
    int blockY = 0;
    int blockZ = 0;
    long stream = 0;
    int argsStart = 0;
    int argsLength = 0;
    int device = 0;
    long sharedMem = 0;
    while (pos < end && !refused) {
      switch (tag()) {
        case 1 << 3 | FIXED64 -> kernelId = fixed64();
        case 2 << 3 | VARINT -> gridX = (int) varint();
        case 3 << 3 | VARINT -> gridY = (int) varint();
        case 4 << 3 | VARINT -> gridZ = (int) varint();
        case 5 << 3 | VARINT -> blockX = (int) varint();
        case 6 << 3 | VARINT -> blockY = (int) varint();
        case 7 << 3 | VARINT -> blockZ = (int) varint();
        case 9 << 3 | FIXED64 -> stream = fixed64();
        case 10 << 3 | BYTES -> {
          argsLength = length();
          argsStart = pos;
          pos += argsLength;
        }
        case 13 << 3 | VARINT -> device = zigZag(varint());
        case 8 << 3 | VARINT -> sharedMem = varint();
        // decode, args_truncated, cooperative: not in the graph
        case 11 << 3 | VARINT, 12 << 3 | VARINT, 14 << 3 | VARINT -> varint();
        default -> refused = true; // unknown fields: the parser decides
      }
    }
    if (refused) {
      return null;
    }
    return new GraphEvent.LaunchCall(c, kernelId, gridX, gridY, gridZ, blockX, blockY, blockZ, stream,
        Arrays.copyOfRange(data, argsStart, argsStart + argsLength), device, sharedMem);
  }

  /** A GpuActivity message. */
  private GraphEvent gpu(GraphEvent.Call c) {
    long correlation = 0;
    long start = 0;
    long stop = 0;
    while (pos < end && !refused) {
      int tag = tag();
      switch (tag) {
        case 1 << 3 | VARINT -> correlation = varint();
        case 3 << 3 | VARINT -> start = varint();
        case 4 << 3 | VARINT -> stop = varint();
        default -> {
          int field = tag >>> 3;
          // every other field but the name (12, a string) is a varint not in the graph; a
          // kernel's resources (23 on) are the parser's
          if ((tag & 7) == VARINT && field >= 2 && field <= 22 && field != 12) {
            varint();
          } else {
            refused = true;
          }
        }
      }
    }
    return new GraphEvent.GpuSpan(c, correlation, start, stop, null);
  }

  private static CopyKind copyKind(int n) {
    CopyKind k = CopyKind.forNumber(n);
    return k != null ? k : CopyKind.UNRECOGNIZED;
  }

  private static MemoryKind memoryKind(int n) {
    MemoryKind k = MemoryKind.forNumber(n);
    return k != null ? k : MemoryKind.UNRECOGNIZED;
  }

}
