package io.apptrace.bench;

import com.google.protobuf.ByteString;
import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.KernelParam;
import io.apptrace.proto.MemoryKind;
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
import java.util.List;

/**
 * A synthetic capture of a realistic shape for benchmarks: THREADS host threads, each driving two
 * streams through the canonical pipeline (a pinned host-to-device copy, a kernel with two
 * pointer arguments and a scalar, a device-to-host copy), recording an event every 16 iterations
 * and synchronizing its streams every 64, over 32 rotating chunks of its device buffers. Batches
 * of 2,000 events per thread interleave in the file as a collector would write them.
 */
public final class SyntheticTrace {
  static final int THREADS = 4;
  private static final int PID = 7000;

  private SyntheticTrace() {}

  /**
   * A kernel launch whose recorded arguments are {@code args} (as the interposer copies them), for
   * synthetic traces written elsewhere.
   */
  public static KernelLaunch.Builder launchWithArgs(byte[] args) {
    return KernelLaunch.newBuilder().setArgs(ByteString.copyFrom(args));
  }

  /** Writes about {@code events} events to {@code file}; returns the exact count. */
  public static long write(Path file, long events) throws IOException {
    long perThread = events / THREADS;
    long written = 0;
    try (TraceWriter w = TraceWriter.create(file, TraceHeader.newBuilder().setSchemaVersion(1)
        .setSourceFormat("capture").setProducer("synthetic benchmark trace").build())) {
      Worker[] workers = new Worker[THREADS];
      for (int t = 0; t < THREADS; t++) {
        workers[t] = new Worker(t);
      }
      boolean more = true;
      while (more) {
        more = false;
        for (Worker wk : workers) {
          if (wk.count < perThread) {
            Batch b = wk.batch(Math.min(2000, perThread - wk.count));
            written += b.getEventsCount();
            w.writeBatch(b);
            more |= wk.count < perThread;
          }
        }
      }
    }
    return written;
  }

  /** One host thread's calls. */
  private static final class Worker {
    final int tid;
    final long host;
    final long devIn;
    final long devOut;
    final long[] streams;
    long count;
    long seq;
    long iteration;
    long now;
    final List<Event> pending = new ArrayList<>();

    Worker(int t) {
      tid = PID + t;
      host = 0x7f00_0000_0000L + ((long) t << 32);
      devIn = 0x1000_0000_0000L + ((long) t << 32);
      devOut = devIn + (1L << 30);
      streams = new long[] {0x5000 + 2L * t, 0x5001 + 2L * t};
      now = 1_000_000_000L + t * 7;
      add(event(Api.cudaMallocHost).setAlloc(Alloc.newBuilder().setKind(MemoryKind.PINNED).setPtr(host)
          .setBytes(32L << 20).setDevice(-1)));
      add(event(Api.cudaMalloc).setAlloc(Alloc.newBuilder().setKind(MemoryKind.DEVICE).setPtr(devIn).setBytes(32L << 20)));
      add(event(Api.cudaMalloc).setAlloc(Alloc.newBuilder().setKind(MemoryKind.DEVICE).setPtr(devOut).setBytes(32L << 20)));
      for (long s : streams) {
        add(event(Api.cudaStreamCreateWithFlags).setStream(StreamOp.newBuilder().setStream(s).setFlags(1)));
      }
      KernelInfo.Builder k = KernelInfo.newBuilder().setKernelId(0x400000 + t).setMangledName("_Z5scalePfPKfi")
          .setDecode(ParamDecode.RUNTIME_PARAM_INFO).setParamsBytes(20);
      k.addParams(KernelParam.newBuilder().setIndex(0).setOffset(0).setSize(8).setType(ParamType.POINTER).setRecordedSize(8));
      k.addParams(KernelParam.newBuilder().setIndex(1).setOffset(8).setSize(8).setType(ParamType.CONST_POINTER)
          .setRecordedOffset(8).setRecordedSize(8));
      k.addParams(KernelParam.newBuilder().setIndex(2).setOffset(16).setSize(4).setType(ParamType.SCALAR)
          .setRecordedOffset(16).setRecordedSize(4));
      add(Event.newBuilder().setEntryNs(now).setKernelInfo(k));
    }

    Event.Builder event(Api api) {
      now += 850;
      return Event.newBuilder().setApi(api).setEntryNs(now).setDurationNs(300).setCallSite(0x401000 + api.getNumber());
    }

    void add(Event.Builder e) {
      pending.add(e.build());
      count++;
    }

    Batch batch(long n) {
      while (pending.size() < n) {
        iterate();
      }
      Batch b = Batch.newBuilder().setPid(PID).setTid(tid).setSeq(seq++).addAllEvents(pending.subList(0, (int) n)).build();
      pending.subList(0, (int) n).clear();
      return b;
    }

    void iterate() {
      long chunk = 1L << 20;
      long off = (iteration % 32) * chunk;
      long stream = streams[(int) (iteration % 2)];
      add(event(Api.cudaMemcpyAsync).setCopy(Copy.newBuilder().setDst(devIn + off).setSrc(host + off)
          .setBytes(chunk).setKindCalled(CopyKind.HOST_TO_DEVICE).setKindResolved(CopyKind.HOST_TO_DEVICE)
          .setAsync(true).setStream(stream).setDims(1).setDstDevice(0).setSrcDevice(-1)));
      ByteBuffer args = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
      args.putLong(devOut + off).putLong(devIn + off).putInt(262144);
      add(event(Api.rt__cudaLaunchKernel).setLaunch(KernelLaunch.newBuilder().setKernelId(0x400000 + (tid - PID))
          .setGridX(1024).setGridY(1).setGridZ(1).setBlockX(256).setBlockY(1).setBlockZ(1)
          .setStream(stream).setArgs(ByteString.copyFrom(args.array()))));
      add(event(Api.cudaMemcpyAsync).setCopy(Copy.newBuilder().setDst(host + off).setSrc(devOut + off)
          .setBytes(chunk).setKindCalled(CopyKind.DEVICE_TO_HOST).setKindResolved(CopyKind.DEVICE_TO_HOST)
          .setAsync(true).setStream(stream).setDims(1).setDstDevice(-1).setSrcDevice(0)));
      if (iteration % 16 == 15) {
        add(event(Api.cudaEventRecord).setEvent(EventOp.newBuilder().setEvent(0x9000 + tid).setStream(stream)));
      }
      if (iteration % 64 == 63) {
        for (long s : streams) {
          add(event(Api.cudaStreamSynchronize).setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE).setStream(s)));
        }
      }
      iteration++;
    }
  }
}
