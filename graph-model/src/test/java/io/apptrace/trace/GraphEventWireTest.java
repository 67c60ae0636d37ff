package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.apptrace.proto.Api;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.Memset;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Sync;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The graph's wire decoder reads an event exactly as the protobuf parser and {@link GraphEvent#of}
 * do, or leaves it to them: on every field, on values at their limits, and on damaged encodings.
 */
class GraphEventWireTest {
  /** What the parser makes of an encoding: the graph's view, or null when it refuses it. */
  private static GraphEvent parsed(byte[] b) {
    try {
      return GraphEvent.of(3, 4, 5, Event.parser().parseFrom(b));
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  private static GraphEvent wire(byte[] b) {
    return GraphEventWire.decode(3, 4, b, 0, b.length);
  }

  /** Equal as the graph reads them (kernel arguments by content). */
  static boolean same(GraphEvent a, GraphEvent b) {
    if (a instanceof GraphEvent.LaunchCall x && b instanceof GraphEvent.LaunchCall y) {
      return Arrays.equals(x.args(), y.args()) && new GraphEvent.LaunchCall(x.call(), x.kernelId(), x.gridX(),
          x.gridY(), x.gridZ(), x.blockX(), x.blockY(), x.blockZ(), x.stream(), y.args(), x.device(),
          x.sharedMemBytes()).equals(y);
    }
    return a.equals(b);
  }

  private static void readAsTheParserDoes(Event e) {
    byte[] b = e.toByteArray();
    GraphEvent w = wire(b);
    assertThat(w).as("read on the wire: %s", e).isNotNull();
    assertThat(same(w, parsed(b))).as("%s%nwire:   %s%nparsed: %s", e, w, parsed(b)).isTrue();
  }

  private static Event.Builder call(Random r) {
    return Event.newBuilder().setEntryNs(r.nextLong()).setDurationNs(r.nextLong()).setApiValue(r.nextInt(600))
        .setResult(r.nextInt(5) - 2).setCallSite(r.nextLong()).setCorrelationId(r.nextLong());
  }

  private static Copy copy(Random r) {
    return Copy.newBuilder().setDst(r.nextLong()).setSrc(r.nextLong()).setBytes(r.nextLong())
        .setKindCalledValue(r.nextInt(7)).setKindResolvedValue(r.nextInt(7)).setResolutionValue(r.nextInt(5))
        .setStream(r.nextLong()).setAsync(r.nextBoolean()).setDstDevice(r.nextInt(9) - 4)
        .setSrcDevice(r.nextInt() >> r.nextInt(32)).setDims(r.nextInt(4)).setDpitch(r.nextLong())
        .setSpitch(r.nextLong()).setWidth(r.nextLong()).setHeight(r.nextLong()).setDepth(r.nextLong())
        .setSymbolHostAddress(r.nextLong()).setSymbolOffset(r.nextLong()).setDstMemoryType(r.nextInt() - 5)
        .setSrcMemoryType(r.nextInt(5) - 2).setDevice(r.nextInt()).setSrcKindValue(r.nextInt(11))
        .setDstKindValue(r.nextInt(11)).build();
  }

  private static Memset memset(Random r) {
    return Memset.newBuilder().setPtr(r.nextLong()).setValue(r.nextInt()).setBytes(r.nextLong())
        .setStream(r.nextLong()).setAsync(r.nextBoolean()).setDims(r.nextInt()).setPitch(r.nextLong())
        .setWidth(r.nextLong()).setHeight(r.nextLong()).setDepth(r.nextLong()).setDevice(r.nextInt(3) - 1)
        .setKindValue(r.nextInt(11)).build();
  }

  private static KernelLaunch launch(Random r) {
    byte[] args = new byte[r.nextInt(40)];
    r.nextBytes(args);
    return KernelLaunch.newBuilder().setKernelId(r.nextLong()).setGridX(r.nextInt()).setGridY(r.nextInt(3))
        .setGridZ(1).setBlockX(r.nextInt(1025)).setBlockY(-1).setBlockZ(r.nextInt()).setSharedMemBytes(r.nextLong())
        .setStream(r.nextLong()).setArgs(ByteString.copyFrom(args)).setDecodeValue(r.nextInt(5))
        .setArgsTruncated(r.nextBoolean()).setDevice(r.nextInt(5) - 1).setCooperative(r.nextBoolean()).build();
  }

  private static GpuActivity gpu(Random r) {
    return GpuActivity.newBuilder().setCorrelationId(r.nextLong()).setKindValue(r.nextInt(5))
        .setStartNs(r.nextLong()).setEndNs(r.nextLong()).setDevice(r.nextInt(3) - 1).setStreamId(r.nextLong())
        .setContext(r.nextInt()).setCopyKindValue(r.nextInt(6)).setSrcKindValue(r.nextInt(10))
        .setDstKindValue(r.nextInt(10)).setBytes(r.nextLong()).setSrcDevice(-1).setDstDevice(r.nextInt())
        .setGridX(r.nextInt()).setGridY(2).setGridZ(3).setBlockX(4).setBlockY(5).setBlockZ(6).setValue(r.nextInt())
        .setFlags(r.nextInt()).build();
  }

  private static Event hot(Random r) {
    return switch (r.nextInt(4)) {
      case 0 -> call(r).setCopy(copy(r)).build();
      case 1 -> call(r).setMemset(memset(r)).build();
      case 2 -> call(r).setLaunch(launch(r)).build();
      default -> call(r).setGpu(gpu(r)).build();
    };
  }

  @Test
  void everyFieldOfCopiesMemsetsLaunchesAndGpuSpansIsReadAsTheParserReadsIt() {
    Random r = new Random(1);
    for (int i = 0; i < 4000; i++) {
      readAsTheParserDoes(hot(r));
    }
    // defaults (fields absent), and an unknown enum value, which the getters give as UNRECOGNIZED
    readAsTheParserDoes(Event.newBuilder().setCopy(Copy.getDefaultInstance()).build());
    readAsTheParserDoes(Event.newBuilder().setLaunch(KernelLaunch.getDefaultInstance()).build());
    Event odd = Event.newBuilder().setResult(-7).setCopy(Copy.newBuilder().setKindResolvedValue(99)
        .setSrcKindValue(-3).setDstDevice(Integer.MIN_VALUE).setSrcDevice(Integer.MAX_VALUE)).build();
    readAsTheParserDoes(odd);
    assertThat(wire(odd.toByteArray())).isInstanceOfSatisfying(GraphEvent.CopyCall.class, c -> {
      assertThat(c.kindResolved()).isEqualTo(CopyKind.UNRECOGNIZED);
      assertThat(c.srcKind()).isEqualTo(MemoryKind.UNRECOGNIZED);
      assertThat(c.call().result()).isEqualTo(-7);
    });
  }

  @Test
  void whatItDoesNotReadExactlyIsLeftToTheParser() throws IOException {
    Random r = new Random(2);
    // a name (a string the parser checks), another kind of body, a copy naming its symbol
    assertThat(wire(call(r).setApiName("cuMemcpy").setCopy(copy(r)).build().toByteArray())).isNull();
    assertThat(wire(call(r).setSync(Sync.newBuilder().setStream(5)).build().toByteArray())).isNull();
    assertThat(wire(call(r).setCopy(copy(r).toBuilder().setSymbol("table")).build().toByteArray())).isNull();
    assertThat(wire(call(r).setGpu(gpu(r).toBuilder().setName("k")).build().toByteArray())).isNull();
    assertThat(wire(call(r).build().toByteArray())).as("no body").isNull();
    // two bodies: the parser merges or replaces them by protobuf's rules
    byte[] two = concat(call(r).setCopy(copy(r)).build().toByteArray(),
        Event.newBuilder().setCopy(Copy.newBuilder().setBytes(5)).build().toByteArray());
    assertThat(wire(two)).isNull();
    assertThat(parsed(two)).isInstanceOfSatisfying(GraphEvent.CopyCall.class, c -> assertThat(c.bytes()).isEqualTo(5));
    // an unknown field, field number 0, and a varint of 11 bytes
    assertThat(wire(concat(hot(r).toByteArray(), field(200, 7)))).isNull();
    assertThat(wire(concat(hot(r).toByteArray(), new byte[] {0, 1}))).isNull();
    byte[] eleven = {0x10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1};
    assertThat(wire(eleven)).isNull();
    assertThat(parsed(eleven)).isNull();
  }

  @Test
  void aFieldGivenTwiceKeepsItsLastValueAsInTheParser() throws IOException {
    Random r = new Random(3);
    Event e = call(r).setLaunch(launch(r)).build();
    byte[] b = concat(field(2, 77), e.toByteArray(), field(2, 99)); // duration_ns before and after
    assertThat(same(wire(b), parsed(b))).isTrue();
    assertThat(wire(b).call().durationNs()).isEqualTo(99);
  }

  @Test
  void damagedEncodingsAreReadAsTheParserReadsThemOrLeftToIt() {
    Random r = new Random(4);
    int read = 0;
    for (int i = 0; i < 30000; i++) {
      byte[] b = hot(r).toByteArray();
      int how = r.nextInt(4);
      if (how == 0) {
        b = Arrays.copyOf(b, r.nextInt(b.length + 1));
      } else if (how == 1) {
        b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
      } else if (how == 2) {
        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      } else {
        int at = r.nextInt(b.length + 1);
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, at);
        c[at] = (byte) r.nextInt(256);
        System.arraycopy(b, at, c, at + 1, b.length - at);
        b = c;
      }
      GraphEvent w = wire(b);
      if (w != null) {
        GraphEvent p = parsed(b);
        assertThat(p).as("the parser refuses what the wire decoder read: %s", Arrays.toString(b)).isNotNull();
        assertThat(same(w, p)).as("%s%nwire:   %s%nparsed: %s", Arrays.toString(b), w, p).isTrue();
        read++;
      }
    }
    assertThat(read).as("damaged events still well-formed are read on the wire").isGreaterThan(3000);
  }

  @Test
  void aSliceIsReadWithinItsBounds() {
    Event e = hot(new Random(5));
    byte[] b = e.toByteArray();
    byte[] padded = concat(new byte[] {9, 9, 9}, b, new byte[] {0x08});
    GraphEvent w = GraphEventWire.decode(3, 4, padded, 3, b.length);
    assertThat(same(w, parsed(b))).isTrue();
    assertThat(GraphEventWire.decode(3, 4, padded, 3, padded.length)).as("a slice past the end").isNull();
  }

  private static byte[] field(int number, long varint) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    c.writeUInt64(number, varint);
    c.flush();
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void theGraphsDecoderReadsTheRestParsed() {
    Event sync = Event.newBuilder().setApi(Api.cudaStreamSynchronize).setSync(Sync.newBuilder().setStream(5)).build();
    assertThat(GraphEvent.DECODER.decode(7, 8, 9, sync)).isEqualTo(GraphEvent.of(7, 8, 9, sync));
    assertThat(GraphEvent.DECODER.entryNs(GraphEvent.of(7, 8, 9, sync.toBuilder().setEntryNs(42).build())))
        .isEqualTo(42);
  }
}
