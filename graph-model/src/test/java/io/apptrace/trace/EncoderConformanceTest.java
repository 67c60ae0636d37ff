package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.apptrace.proto.Event;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.ModuleMap;
import io.apptrace.proto.ProcessStart;
import io.apptrace.testing.TestPaths;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C encoder (tracer-native/src/interposer/encode.c) against the generated Java decoder,
 * message type by message type. tests/native/encode_samples.c writes one Event of every body type
 * with every field set by a rule on its field number; here each field is decoded and checked
 * against the same rule, so a wrong field number or wire type in the C encoder fails here.
 */
class EncoderConformanceTest {
  @TempDir Path tmp;

  /** Fields the encoder sets to something else than the rule, checked one by one below. */
  private static final Set<String> SPECIAL =
      Set.of("apptrace.ProcessStart.clock", "apptrace.KernelLaunch.args", "apptrace.Copy.symbol_data");

  /**
   * Fields only importers write (memory kinds a profiler reported, Kineto's occupancy figures);
   * the interposer never does.
   */
  private static final Set<String> IMPORT_ONLY =
      Set.of("apptrace.Copy.src_kind", "apptrace.Copy.dst_kind", "apptrace.Memset.kind",
          "apptrace.GpuActivity.estimated_occupancy_pct", "apptrace.GpuActivity.blocks_per_sm",
          "apptrace.GpuActivity.warps_per_sm");

  @Test
  void everyEncodedMessageDecodesFieldByField() throws Exception {
    Path file = tmp.resolve("samples.apptrace");
    Process p = new ProcessBuilder(TestPaths.nativeTests().resolve("encode_samples").toString(),
        file.toString()).inheritIO().start();
    assertThat(p.waitFor()).isZero();

    TraceReader.Trace trace = TraceReader.readAll(file);
    assertThat(trace.truncation()).isEmpty();
    assertThat(trace.records()).allSatisfy(r -> {
      assertThat(r.pid()).isEqualTo(4242);
      assertThat(r.tid()).isEqualTo(4343);
      assertThat(r.batchSeq()).isEqualTo(7);
    });

    EnumSet<Event.BodyCase> seen = EnumSet.noneOf(Event.BodyCase.class);
    for (TraceRecord r : trace.records()) {
      Event e = r.event();
      if (e.hasAlloc() && e.getAlloc().getPtr() == 0x1000) {
        continue; // the NUMA-node-0 sample, checked below
      }
      checkFields(e);
      seen.add(e.getBodyCase());
      FieldDescriptor bodyField = Event.getDescriptor().findFieldByNumber(e.getBodyCase().getNumber());
      checkFields((Message) e.getField(bodyField));
    }
    // Every body the interposer writes (ProcessExit is written by the Java collector).
    EnumSet<Event.BodyCase> expected = EnumSet.allOf(Event.BodyCase.class);
    expected.removeAll(List.of(Event.BodyCase.BODY_NOT_SET, Event.BodyCase.PROCESS_EXIT));
    assertThat(seen).isEqualTo(expected);

    ProcessStart ps = find(trace, Event.BodyCase.PROCESS_START).getProcessStart();
    assertThat(ps.getArgvList()).containsExactly("prog", "--flag", "", "last");
    assertThat(ps.getClockValue()).isEqualTo(1);
    KernelLaunch launch = find(trace, Event.BodyCase.LAUNCH).getLaunch();
    assertThat(launch.getArgs()).isEqualTo(ByteString.copyFrom(new byte[] {1, 2, 3, 0, (byte) 255}));
    assertThat(find(trace, Event.BodyCase.COPY).getCopy().getSymbolData())
        .isEqualTo(ByteString.copyFrom(new byte[] {1, 2, 0, (byte) 255}));
    ModuleMap modules = find(trace, Event.BodyCase.MODULES).getModules();
    assertThat(modules.getModulesCount()).isEqualTo(2);
    checkFields(modules.getModules(0));
    assertThat(modules.getModules(1).getPath()).isEqualTo("second");
    List<io.apptrace.proto.Alloc> allocs = trace.records().stream().map(TraceRecord::event)
        .filter(Event::hasAlloc).map(Event::getAlloc).toList();
    assertThat(allocs).hasSize(2);
    assertThat(allocs.get(1).hasNumaNode()).as("an optional field set to 0 is present").isTrue();
    assertThat(allocs.get(1).getNumaNode()).isZero();
    io.apptrace.proto.MpiCall mpi = find(trace, Event.BodyCase.MPI).getMpi();
    assertThat(mpi.getCompletedCount()).isEqualTo(2);
    checkFields(mpi.getCompleted(0));
    assertThat(mpi.getCompleted(1).getRequest()).isEqualTo(2);
    assertThat(mpi.getCompleted(1).getReceive()).isFalse();
    assertThat(mpi.getUnrecordedCount()).isEqualTo(1);
    checkFields(mpi.getUnrecorded(0));
    io.apptrace.proto.GraphExec graph = find(trace, Event.BodyCase.GRAPH_EXEC).getGraphExec();
    assertThat(graph.getNodesCount()).isEqualTo(1);
    checkFields(graph.getNodes(0));
    checkFields(graph.getEdges(0));
    // a node's parameters are written by the same encoders as the calls' bodies
    checkFields(graph.getNodes(0).getCopy());
    checkFields(graph.getNodes(0).getMemset());
    checkFields(graph.getNodes(0).getLaunch());
    KernelInfo info = find(trace, Event.BodyCase.KERNEL_INFO).getKernelInfo();
    assertThat(info.getParamsCount()).isEqualTo(2);
    checkFields(info.getParams(0));
    assertThat(info.getParams(1).getSize()).isEqualTo(4);
  }

  private static Event find(TraceReader.Trace t, Event.BodyCase body) {
    return t.records().stream().map(TraceRecord::event).filter(e -> e.getBodyCase() == body)
        .findFirst().orElseThrow();
  }

  /** Checks every scalar field of {@code m} against the rule of encode_samples.c. */
  private static void checkFields(Message m) {
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      if (f.isRepeated() || f.getJavaType() == FieldDescriptor.JavaType.MESSAGE
          || SPECIAL.contains(f.getFullName())
          || (f.getContainingOneof() != null && !m.hasField(f))) {
        continue;
      }
      if ((m instanceof Event && f.getName().equals("api_name")) || IMPORT_ONLY.contains(f.getFullName())) {
        continue; // only imported traces set it
      }
      int n = f.getNumber();
      Object v = m.getField(f);
      String where = f.getFullName();
      switch (f.getType()) {
        case UINT32, UINT64, FIXED64 -> assertThat(((Number) v).longValue()).as(where).isEqualTo(1000L + n);
        case INT32, SINT32 -> assertThat(((Number) v).longValue()).as(where).isEqualTo(-(100L + n));
        case ENUM -> assertThat(((EnumValueDescriptor) v).getNumber()).as(where).isEqualTo(1000 + n);
        case STRING -> assertThat(v).as(where).isEqualTo("f" + n);
        case BOOL -> assertThat(v).as(where).isEqualTo(true);
        default -> throw new AssertionError("no rule for " + where + " of type " + f.getType());
      }
    }
  }
}
