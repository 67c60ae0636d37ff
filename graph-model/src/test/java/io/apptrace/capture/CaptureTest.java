package io.apptrace.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.ParamDecode;
import io.apptrace.proto.ParamType;
import io.apptrace.proto.SymbolInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real CUDA programs (tracer-native/tests/cuda, built with nvcc -cudart shared) captured on the
 * simulated device, with exact expectations on what the trace records.
 */
class CaptureTest {
  @TempDir Path tmp;

  /**
   * The vector add of Pearson 2018, Fig. 6.1.
   *
   * <pre>
   *   a_h --cudaMemcpy--> a_d --\
   *   b_h --cudaMemcpy--> b_d ----vector_add--> s_d --cudaMemcpy--> s_h
   * </pre>
   */
  @Test
  void vectorAddOfFigure61() throws Exception {
    Captured c = Captured.run(tmp, "vecadd");
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.trace().truncation()).isEmpty();
    assertThat(c.callCounts()).containsOnly(
        entry("__cudaRegisterFatBinary", 1L), entry("__cudaRegisterFunction", 1L),
        entry("cudaMalloc", 3L), entry("cudaMemcpy", 3L), entry("__cudaGetKernel", 1L),
        entry("__cudaLaunchKernel", 1L), entry("cudaGetLastError", 1L), entry("cudaFree", 3L));

    List<Long> hostBuffers = c.events(e -> e.hasAlloc() && e.getAlloc().getKind() == MemoryKind.PAGEABLE)
        .stream().map(e -> e.getAlloc().getPtr()).toList();
    assertThat(hostBuffers).hasSize(3);
    List<Long> deviceBuffers = c.calls(Api.cudaMalloc).stream().map(e -> e.getAlloc().getPtr()).toList();
    assertThat(deviceBuffers).hasSize(3).doesNotContain(0L);

    List<Copy> copies = c.calls(Api.cudaMemcpy).stream().map(Event::getCopy).toList();
    assertThat(copies).extracting(Copy::getKindCalled).containsOnly(CopyKind.DEFAULT);
    assertThat(copies).extracting(Copy::getKindResolved).containsExactly(
        CopyKind.HOST_TO_DEVICE, CopyKind.HOST_TO_DEVICE, CopyKind.DEVICE_TO_HOST);
    assertThat(copies).extracting(Copy::getSrc).containsExactly(hostBuffers.get(0), hostBuffers.get(1), deviceBuffers.get(2));
    assertThat(copies).extracting(Copy::getDst).containsExactly(deviceBuffers.get(0), deviceBuffers.get(1), hostBuffers.get(2));
    assertThat(copies).extracting(Copy::getBytes).containsOnly(4096L);

    KernelInfo info = c.events(Event::hasKernelInfo).get(0).getKernelInfo();
    assertThat(info.getMangledName()).isEqualTo("_Z10vector_addPfPKfS1_i");
    assertThat(info.getDecode()).isEqualTo(ParamDecode.RUNTIME_PARAM_INFO);
    assertThat(info.getParamsList()).extracting(p -> p.getType()).containsExactly(
        ParamType.POINTER, ParamType.CONST_POINTER, ParamType.CONST_POINTER, ParamType.SCALAR);
    KernelLaunch launch = c.calls(Api.rt__cudaLaunchKernel).get(0).getLaunch();
    assertThat(launch.getKernelId()).isEqualTo(info.getKernelId());
    assertThat(launch.getGridX()).isEqualTo(4);
    assertThat(launch.getBlockX()).isEqualTo(256);
    ByteBuffer args = ByteBuffer.wrap(launch.getArgs().toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(args.getLong(0)).isEqualTo(deviceBuffers.get(2)); // s_d
    assertThat(args.getLong(8)).isEqualTo(deviceBuffers.get(0)); // a_d
    assertThat(args.getLong(16)).isEqualTo(deviceBuffers.get(1)); // b_d
    assertThat(args.getInt(24)).isEqualTo(1024);

    assertThat(c.events(Event::hasProcessEnd)).hasSize(1);
    assertThat(c.events(Event::hasProcessExit).get(0).getProcessExit().getClean()).isTrue();
  }

  /** Four non-blocking streams feed a fifth through events; pinned memory throughout. */
  @Test
  void multiStreamPipelineWithEventsAndStreamWaitEvent() throws Exception {
    Captured c = Captured.run(tmp, "pipeline");
    assertThat(c.result().exitCode()).isZero();
    List<Event> created = c.calls(Api.cudaStreamCreateWithFlags);
    assertThat(created).hasSize(4).allSatisfy(e -> assertThat(e.getStream().getFlags()).isEqualTo(1));
    List<Long> streams = created.stream().map(e -> e.getStream().getStream()).toList();
    long gather = c.calls(Api.cudaStreamCreate).get(0).getStream().getStream();
    List<Event> events = c.calls(Api.cudaEventCreateWithFlags);
    assertThat(events).hasSize(4).allSatisfy(e -> assertThat(e.getEvent().getFlags()).isEqualTo(2));

    Alloc pinned = c.calls(Api.cudaHostAlloc).get(0).getAlloc();
    assertThat(pinned.getKind()).isEqualTo(MemoryKind.PINNED);
    assertThat(pinned.getBytes()).isEqualTo(256 * 1024);

    List<Copy> copies = c.calls(Api.cudaMemcpyAsync).stream().map(Event::getCopy).toList();
    assertThat(copies).hasSize(5);
    assertThat(copies.subList(0, 4)).extracting(Copy::getStream).containsExactlyElementsOf(streams);
    assertThat(copies.subList(0, 4)).allSatisfy(k -> {
      assertThat(k.getKindResolved()).isEqualTo(CopyKind.HOST_TO_DEVICE);
      assertThat(k.getBytes()).isEqualTo(64 * 1024);
      assertThat(k.getAsync()).isTrue();
    });
    assertThat(copies.get(4).getStream()).isEqualTo(gather);
    assertThat(copies.get(4).getBytes()).isEqualTo(256 * 1024);

    assertThat(c.calls(Api.rt__cudaLaunchKernel)).extracting(e -> e.getLaunch().getStream())
        .containsExactlyElementsOf(streams);
    List<Event> records = c.calls(Api.cudaEventRecord);
    assertThat(records).extracting(e -> e.getEvent().getStream()).containsExactlyElementsOf(streams);
    List<Long> eventHandles = events.stream().map(e -> e.getEvent().getEvent()).toList();
    assertThat(records).extracting(e -> e.getEvent().getEvent()).containsExactlyElementsOf(eventHandles);
    List<Event> waits = c.calls(Api.cudaStreamWaitEvent);
    assertThat(waits).extracting(e -> e.getEvent().getStream()).containsOnly(gather);
    assertThat(waits).extracting(e -> e.getEvent().getEvent()).containsExactlyElementsOf(eventHandles);
    assertThat(c.calls(Api.cudaStreamSynchronize)).singleElement()
        .satisfies(e -> assertThat(e.getSync().getStream()).isEqualTo(gather));
  }

  /** Every kind of host memory, with sizes the program states in its header comment. */
  @Test
  void pageableAndPinnedCopies() throws Exception {
    Captured c = Captured.run(tmp, "copies");
    assertThat(c.result().exitCode()).isZero();
    Map<MemoryKind, Long> allocated = c.events(Event::hasAlloc).stream()
        .filter(e -> e.getAlloc().getKind() != MemoryKind.PAGEABLE)
        .collect(Collectors.toMap(e -> e.getAlloc().getKind(), e -> e.getAlloc().getBytes(), Long::sum));
    assertThat(allocated).containsOnly(entry(MemoryKind.PINNED, 32768L),
        entry(MemoryKind.WRITE_COMBINED, 8192L), entry(MemoryKind.REGISTERED, 16384L),
        entry(MemoryKind.DEVICE, 131072L));
    List<Copy> copies = c.events(Event::hasCopy).stream().map(Event::getCopy).toList();
    assertThat(copies).extracting(Copy::getKindResolved, Copy::getBytes).containsExactly(
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_DEVICE, 65536L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.DEVICE_TO_HOST, 65536L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_DEVICE, 32768L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.DEVICE_TO_HOST, 32768L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_DEVICE, 8192L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_DEVICE, 16384L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.DEVICE_TO_DEVICE, 4096L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_HOST, 1024L),
        org.assertj.core.groups.Tuple.tuple(CopyKind.HOST_TO_DEVICE, 2048L));
    Copy twoD = copies.get(8);
    assertThat(twoD.getDims()).isEqualTo(2);
    assertThat(twoD.getDpitch()).isEqualTo(512);
    assertThat(twoD.getSpitch()).isEqualTo(256);
    assertThat(twoD.getHeight()).isEqualTo(8);
    assertThat(c.calls(Api.cudaMemset)).singleElement()
        .satisfies(e -> assertThat(e.getMemset().getBytes()).isEqualTo(65536));
  }

  /** cudaMemcpyToSymbol/FromSymbol resolve to the variable's device memory; a non-symbol fails. */
  @Test
  void copiesToAndFromSymbols() throws Exception {
    Captured c = Captured.run(tmp, "symbol");
    assertThat(c.result().exitCode()).isZero();
    Map<String, SymbolInfo> symbols = c.events(e -> e.hasSymbol() && e.getSymbol().getDeviceAddress() != 0)
        .stream().map(Event::getSymbol).collect(Collectors.toMap(SymbolInfo::getName, s -> s, (a, b) -> a));
    assertThat(symbols).containsKeys("table", "coeffs");
    assertThat(symbols.get("table").getBytes()).isEqualTo(1024);
    assertThat(symbols.get("coeffs").getConstant()).isTrue();

    List<Event> to = c.calls(Api.cudaMemcpyToSymbol);
    assertThat(to).hasSize(3);
    Copy table = to.get(0).getCopy();
    assertThat(table.getSymbol()).isEqualTo("table");
    assertThat(table.getDst()).isEqualTo(symbols.get("table").getDeviceAddress());
    assertThat(table.getBytes()).isEqualTo(1024);
    assertThat(table.getKindResolved()).isEqualTo(CopyKind.HOST_TO_DEVICE);
    // the bytes copied into the variable are recorded, for the pointers a kernel may reach
    java.nio.FloatBuffer copied = table.getSymbolData().asReadOnlyByteBuffer()
        .order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    assertThat(copied.limit()).isEqualTo(256);
    assertThat(copied.get(255)).isEqualTo(255f);
    Copy coeffs = to.get(1).getCopy();
    assertThat(coeffs.getSymbolOffset()).isEqualTo(32);
    assertThat(coeffs.getSymbolData().size()).isEqualTo(32);
    assertThat(coeffs.getDst()).isEqualTo(symbols.get("coeffs").getDeviceAddress() + 32);
    assertThat(to.get(2).getResult()).isEqualTo(13); // cudaErrorInvalidSymbol

    Copy from = c.calls(Api.cudaMemcpyFromSymbol).get(0).getCopy();
    assertThat(from.getSrc()).isEqualTo(symbols.get("table").getDeviceAddress());
    assertThat(from.getKindResolved()).isEqualTo(CopyKind.DEVICE_TO_HOST);
  }

  /** Managed memory with advice and prefetches to the device and back to the host. */
  @Test
  void managedMemoryWithPrefetch() throws Exception {
    Captured c = Captured.run(tmp, "managed");
    assertThat(c.result().exitCode()).isZero();
    Alloc managed = c.calls(Api.cudaMallocManaged).get(0).getAlloc();
    assertThat(managed.getKind()).isEqualTo(MemoryKind.MANAGED);
    assertThat(managed.getBytes()).isEqualTo(1 << 20);
    assertThat(c.calls(Api.cudaMemAdvise)).singleElement().satisfies(e -> {
      assertThat(e.getAdvise().getPtr()).isEqualTo(managed.getPtr());
      assertThat(e.getAdvise().getAdvice()).isEqualTo(3); // cudaMemAdviseSetPreferredLocation
      assertThat(e.getAdvise().getDevice()).isZero();
    });
    List<Event> prefetches = c.calls(Api.cudaMemPrefetchAsync);
    assertThat(prefetches).extracting(e -> e.getPrefetch().getDevice()).containsExactly(0, -1);
    assertThat(prefetches).extracting(e -> e.getPrefetch().getBytes()).containsOnly(1L << 20);
    KernelLaunch inc = c.calls(Api.rt__cudaLaunchKernel).get(0).getLaunch();
    assertThat(ByteBuffer.wrap(inc.getArgs().toByteArray()).order(ByteOrder.LITTLE_ENDIAN).getLong(0))
        .isEqualTo(managed.getPtr());
  }

  /**
   * Interior pointers, a struct by value holding a device pointer, an extern "C" kernel (decoded
   * from the runtime's parameter info, with no signature to say which parameters are pointers),
   * and a template kernel.
   */
  @Test
  void kernelArgumentsOfEveryShape() throws Exception {
    Captured c = Captured.run(tmp, "kernel_args");
    assertThat(c.result().exitCode()).isZero();
    Map<String, Long> printed = c.stdout().lines().map(l -> l.split("="))
        .collect(Collectors.toMap(p -> p[0], p -> Long.decode(p[1])));
    Map<Long, KernelInfo> infos = c.events(Event::hasKernelInfo).stream().map(Event::getKernelInfo)
        .collect(Collectors.toMap(KernelInfo::getKernelId, k -> k));
    List<KernelLaunch> launches = c.calls(Api.rt__cudaLaunchKernel).stream().map(Event::getLaunch).toList();
    assertThat(launches).hasSize(4);

    KernelLaunch interior = launches.get(0);
    assertThat(firstPointer(interior)).isEqualTo(printed.get("inside"));
    assertThat(printed.get("inside") - printed.get("a")).isEqualTo(4000);

    KernelInfo structInfo = infos.get(launches.get(1).getKernelId());
    assertThat(structInfo.getParamsList()).singleElement().satisfies(p -> {
      assertThat(p.getType()).isEqualTo(ParamType.AGGREGATE);
      assertThat(p.getSize()).isEqualTo(16);
      assertThat(p.getRecordedSize()).isEqualTo(16);
    });
    assertThat(firstPointer(launches.get(1))).isEqualTo(printed.get("b"));

    KernelInfo plain = infos.get(launches.get(2).getKernelId());
    assertThat(plain.getMangledName()).isEqualTo("plain_c");
    assertThat(plain.getDecode()).isEqualTo(ParamDecode.RUNTIME_PARAM_INFO);
    assertThat(plain.getParamsList()).extracting(p -> p.getType(), p -> p.getSize()).containsExactly(
        org.assertj.core.groups.Tuple.tuple(ParamType.OPAQUE, 8),
        org.assertj.core.groups.Tuple.tuple(ParamType.OPAQUE, 8),
        org.assertj.core.groups.Tuple.tuple(ParamType.OPAQUE, 4));
    ByteBuffer args = ByteBuffer.wrap(launches.get(2).getArgs().toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(args.getLong(0)).isEqualTo(printed.get("a"));
    assertThat(args.getLong(8)).isEqualTo(printed.get("b"));
    assertThat(args.getInt(16)).isEqualTo(128);

    KernelInfo axpy = infos.get(launches.get(3).getKernelId());
    assertThat(axpy.getDemangledName()).isEqualTo("void axpy<float>(float*, float const*, float, int)");
    assertThat(axpy.getParamsList()).extracting(p -> p.getType()).containsExactly(
        ParamType.POINTER, ParamType.CONST_POINTER, ParamType.SCALAR, ParamType.SCALAR);
  }

  /** Thrust and CUB: a real library's launches, every one with a typed parameter layout. */
  @Test
  void thrustAndCubProgramRunsWithEveryKernelDecoded() throws Exception {
    Captured c = Captured.run(tmp, "thrust_ops");
    assertThat(c.result().exitCode()).isZero();
    assertThat(c.stdout()).startsWith("thrust: sum");
    List<KernelLaunch> launches = c.calls(Api.rt__cudaLaunchKernel).stream().map(Event::getLaunch).toList();
    assertThat(launches).hasSizeGreaterThanOrEqualTo(8);
    Map<Long, KernelInfo> infos = c.events(Event::hasKernelInfo).stream().map(Event::getKernelInfo)
        .collect(Collectors.toMap(KernelInfo::getKernelId, k -> k));
    assertThat(launches).allSatisfy(l -> {
      KernelInfo k = infos.get(l.getKernelId());
      assertThat(k).isNotNull();
      assertThat(k.getDecode()).isEqualTo(ParamDecode.RUNTIME_PARAM_INFO);
      assertThat(k.getDemangledName()).startsWith("void cub::");
      assertThat(k.getParamsList()).allSatisfy(p -> assertThat(p.getType()).isNotEqualTo(ParamType.OPAQUE));
      assertThat(l.getArgs().size()).isEqualTo(k.getParamsList().stream().mapToInt(p -> p.getRecordedSize()).sum());
    });
    assertThat(c.events(e -> e.getResult() != 0)).isEmpty();
  }

  private static long firstPointer(KernelLaunch l) {
    return ByteBuffer.wrap(l.getArgs().toByteArray()).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
  }
}
