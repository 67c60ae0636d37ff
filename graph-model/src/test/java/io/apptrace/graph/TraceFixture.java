package io.apptrace.graph;

import com.google.protobuf.ByteString;
import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.proto.Free;
import io.apptrace.proto.JobRank;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.KernelParam;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Memset;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.NcclCall;
import io.apptrace.proto.ParamDecode;
import io.apptrace.proto.ParamType;
import io.apptrace.proto.StreamOp;
import io.apptrace.proto.Sync;
import io.apptrace.proto.SyncScope;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Synthetic traces for graph tests: one process, calls on threads of our choosing, fixed
 * addresses and times (so exported graphs can be compared with golden files). Each call takes
 * 1,000 ns of a shared clock, in the order the fixture is told about them. A rank of an MPI job
 * ({@link #rank}) records its MPI calls ({@link #mpi}) and NCCL calls ({@link #nccl}) too.
 */
public final class TraceFixture {
  static final int PID = 4000;
  private final Map<Integer, List<Event>> byThread = new LinkedHashMap<>();
  private int tid = PID;
  private JobRank job;
  private long now = 1_000_000;

  /** Subsequent calls come from thread {@code t}. */
  public TraceFixture thread(int t) {
    tid = t;
    return this;
  }

  private TraceFixture call(Api api, Event.Builder e) {
    now += 1000;
    byThread.computeIfAbsent(tid, k -> new ArrayList<>())
        .add(e.setApi(api).setEntryNs(now).setDurationNs(500).setCallSite(0x400000 + now % 0x1000).build());
    return this;
  }

  /** The trace is rank {@code rank} of a job of {@code worldSize} ranks launched by mpirun. */
  public TraceFixture rank(int rank, int worldSize) {
    job = JobRank.newBuilder().setRank(rank).setWorldSize(worldSize).setLocalRank(rank).setLocalSize(worldSize)
        .setHost("node").setLauncher("open-mpi").build();
    return this;
  }

  /** An MPI call (successful), as the interposer records it. */
  public TraceFixture mpi(MpiCall.Builder m) {
    now += 1000;
    byThread.computeIfAbsent(tid, k -> new ArrayList<>())
        .add(Event.newBuilder().setEntryNs(now).setDurationNs(500).setCallSite(0x400000 + now % 0x1000).setMpi(m)
            .build());
    return this;
  }

  /** An NCCL call (successful), as the interposer records it. */
  public TraceFixture nccl(NcclCall.Builder n) {
    now += 1000;
    byThread.computeIfAbsent(tid, k -> new ArrayList<>())
        .add(Event.newBuilder().setEntryNs(now).setDurationNs(500).setCallSite(0x400000 + now % 0x1000).setNccl(n)
            .build());
    return this;
  }

  private TraceFixture record(Event.Builder e) {
    now += 1000;
    byThread.computeIfAbsent(tid, k -> new ArrayList<>()).add(e.setEntryNs(now).build());
    return this;
  }

  public TraceFixture malloc(long ptr, long bytes) {
    return record(Event.newBuilder().setAlloc(Alloc.newBuilder().setKind(MemoryKind.PAGEABLE)
        .setPtr(ptr).setBytes(bytes).setDevice(-1).setHostFunction("malloc")));
  }

  public TraceFixture cudaMalloc(long ptr, long bytes) {
    return call(Api.cudaMalloc, Event.newBuilder().setAlloc(Alloc.newBuilder()
        .setKind(MemoryKind.DEVICE).setPtr(ptr).setBytes(bytes)));
  }

  public TraceFixture cudaMallocHost(long ptr, long bytes) {
    return call(Api.cudaMallocHost, Event.newBuilder().setAlloc(Alloc.newBuilder()
        .setKind(MemoryKind.PINNED).setPtr(ptr).setBytes(bytes).setDevice(-1)));
  }

  public TraceFixture cudaMallocHost(long ptr, long bytes, int numaNode) {
    return call(Api.cudaMallocHost, Event.newBuilder().setAlloc(Alloc.newBuilder()
        .setKind(MemoryKind.PINNED).setPtr(ptr).setBytes(bytes).setDevice(-1).setNumaNode(numaNode)));
  }

  public TraceFixture cudaMallocManaged(long ptr, long bytes) {
    return call(Api.cudaMallocManaged, Event.newBuilder().setAlloc(Alloc.newBuilder()
        .setKind(MemoryKind.MANAGED).setPtr(ptr).setBytes(bytes)));
  }

  public TraceFixture cudaFree(long ptr) {
    return call(Api.cudaFree, Event.newBuilder().setFree(Free.newBuilder().setKind(MemoryKind.DEVICE).setPtr(ptr)));
  }

  public TraceFixture memcpy(long dst, long src, long bytes, CopyKind kind) {
    return call(Api.cudaMemcpy, Event.newBuilder().setCopy(Copy.newBuilder().setDst(dst).setSrc(src)
        .setBytes(bytes).setKindCalled(kind).setKindResolved(kind).setDims(1).setDstDevice(-1).setSrcDevice(-1)));
  }

  public TraceFixture memcpyAsync(long dst, long src, long bytes, CopyKind kind, long stream) {
    return call(Api.cudaMemcpyAsync, Event.newBuilder().setCopy(Copy.newBuilder().setDst(dst).setSrc(src)
        .setBytes(bytes).setKindCalled(kind).setKindResolved(kind).setDims(1).setAsync(true)
        .setStream(stream).setDstDevice(-1).setSrcDevice(-1)));
  }

  public TraceFixture memsetAsync(long ptr, long bytes, long stream) {
    return call(Api.cudaMemsetAsync, Event.newBuilder().setMemset(Memset.newBuilder().setPtr(ptr)
        .setBytes(bytes).setStream(stream).setAsync(true).setDims(1)));
  }

  public TraceFixture streamCreate(long handle, int flags) {
    return call(Api.cudaStreamCreateWithFlags, Event.newBuilder().setStream(StreamOp.newBuilder()
        .setStream(handle).setFlags(flags)));
  }

  public TraceFixture eventRecord(long event, long stream) {
    return call(Api.cudaEventRecord, Event.newBuilder().setEvent(EventOp.newBuilder().setEvent(event).setStream(stream)));
  }

  public TraceFixture streamWaitEvent(long stream, long event) {
    return call(Api.cudaStreamWaitEvent, Event.newBuilder().setEvent(EventOp.newBuilder().setEvent(event).setStream(stream)));
  }

  public TraceFixture streamSynchronize(long stream) {
    return call(Api.cudaStreamSynchronize, Event.newBuilder().setSync(Sync.newBuilder()
        .setScope(SyncScope.STREAM_SCOPE).setStream(stream)));
  }

  /** A parameter of a kernel's layout. */
  public record Param(ParamType type, int size, String typeName) {}

  public static Param ptr() {
    return new Param(ParamType.POINTER, 8, "float*");
  }

  public static Param constPtr() {
    return new Param(ParamType.CONST_POINTER, 8, "float const*");
  }

  public static Param scalar(int size) {
    return new Param(ParamType.SCALAR, size, "int");
  }

  static Param struct(int size) {
    return new Param(ParamType.AGGREGATE, size, "Params");
  }

  static Param opaque(int size) {
    return new Param(ParamType.OPAQUE, size, "");
  }

  /** A kernel's layout: parameters packed at their natural alignment. */
  public TraceFixture kernel(long id, String name, Param... params) {
    KernelInfo.Builder k = KernelInfo.newBuilder().setKernelId(id).setMangledName(name)
        .setDecode(ParamDecode.RUNTIME_PARAM_INFO);
    int offset = 0;
    for (int i = 0; i < params.length; i++) {
      Param p = params[i];
      int align = Math.min(8, p.size());
      offset = (offset + align - 1) / align * align;
      k.addParams(KernelParam.newBuilder().setIndex(i).setOffset(offset).setSize(p.size())
          .setType(p.type()).setTypeName(p.typeName()).setRecordedOffset(offset).setRecordedSize(p.size()));
      offset += p.size();
    }
    k.setParamsBytes(offset);
    return record(Event.newBuilder().setKernelInfo(k));
  }

  /** A launch with argument words: each long fills the next 8 bytes of the parameter buffer. */
  public TraceFixture launch(long id, long stream, long... words) {
    ByteBuffer args = ByteBuffer.allocate(8 * words.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long w : words) {
      args.putLong(w);
    }
    return call(Api.rt__cudaLaunchKernel, Event.newBuilder().setLaunch(KernelLaunch.newBuilder()
        .setKernelId(id).setStream(stream).setGridX(1).setGridY(1).setGridZ(1).setBlockX(256)
        .setBlockY(1).setBlockZ(1).setArgs(ByteString.copyFrom(args.array()))));
  }

  /** A launch of {@code gridX} blocks (of 256 threads), with argument words as {@link #launch}. */
  public TraceFixture launchGrid(long id, long stream, int gridX, long... words) {
    ByteBuffer args = ByteBuffer.allocate(8 * words.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long w : words) {
      args.putLong(w);
    }
    return call(Api.rt__cudaLaunchKernel, Event.newBuilder().setLaunch(KernelLaunch.newBuilder()
        .setKernelId(id).setStream(stream).setGridX(gridX).setGridY(1).setGridZ(1).setBlockX(256)
        .setBlockY(1).setBlockZ(1).setArgs(ByteString.copyFrom(args.array()))));
  }

  /** Writes the trace: one batch per thread, threads in the order given (or reversed). */
  public Path write(Path file, boolean reverseThreads) throws IOException {
    List<Integer> tids = new ArrayList<>(byThread.keySet());
    if (reverseThreads) {
      java.util.Collections.reverse(tids);
    }
    TraceHeader.Builder header = TraceHeader.newBuilder().setSchemaVersion(1).setSourceFormat("capture");
    if (job != null) {
      header.setJob(job);
    }
    try (TraceWriter w = TraceWriter.create(file, header.build())) {
      for (int t : tids) {
        w.writeBatch(Batch.newBuilder().setPid(PID).setTid(t).addAllEvents(byThread.get(t)).build());
      }
    }
    return file;
  }

  Dvdg build(Path dir) throws Exception {
    return DvdgBuilder.build(write(dir.resolve("fixture.apptrace"), false));
  }
}
