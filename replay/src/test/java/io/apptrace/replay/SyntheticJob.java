package io.apptrace.replay;

import io.apptrace.bench.SyntheticTrace;
import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.JobRank;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelParam;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
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
 * Synthetic rank traces of a MiniFE-like iteration (Choi, Bhatele and Richards 2020 model MiniFE's
 * CG loop): each rank of a job of RANKS launches a kernel over its two 32 MiB device buffers,
 * synchronizes its stream, exchanges a halo of HALO_BYTES of device memory with its left and right
 * neighbours (Irecv, Irecv, Isend, Isend, Waitall; none on one rank) and reduces a dot product
 * (MPI_Allreduce of 8 bytes), every rank the same work whatever the job's size: weak scaling.
 * Each call takes 300 ns and follows the previous one by 850 ns; the kernels have no measured
 * time (the replay prices them at their lower bound on the node's GPU).
 *
 * <p>Usage (the job benchmark of docs/BENCHMARKS.md): SyntheticJob DIR RANKS EVENTS_PER_RANK.
 */
public final class SyntheticJob {
  static final long HALO_BYTES = 64 * 1024;
  private static final long BUFFER = 32L << 20;

  private SyntheticJob() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    int ranks = Integer.parseInt(args[1]);
    long events = Long.parseLong(args[2]);
    java.nio.file.Files.createDirectories(dir);
    write(dir, ranks, iterationsFor(events, ranks));
  }

  /** Writes {@code ranks} traces {@code trace.R.apptrace} into {@code dir}, each of {@code iterations}; returns them. */
  static List<Path> write(Path dir, int ranks, int iterations) throws IOException {
    List<Path> out = new ArrayList<>();
    for (int r = 0; r < ranks; r++) {
      Path f = dir.resolve("trace." + r + ".apptrace");
      writeRank(f, r, ranks, iterations);
      out.add(f);
    }
    return out;
  }

  /** The iterations that give a rank about {@code events} events. */
  static int iterationsFor(long events, int ranks) {
    return (int) Math.max(1, (events - 8) / (ranks > 1 ? 8 : 3));
  }

  private static void writeRank(Path file, int rank, int size, int iterations) throws IOException {
    TraceHeader h = TraceHeader.newBuilder().setSchemaVersion(1).setSourceFormat("capture")
        .setProducer("synthetic job trace").setHost("node" + rank).setJob(JobRank.newBuilder().setRank(rank)
            .setWorldSize(size).setLocalRank(0).setLocalSize(1).setHost("node" + rank).setLauncher("synthetic"))
        .build();
    try (TraceWriter w = TraceWriter.create(file, h)) {
      Rank k = new Rank(rank, size, w);
      k.start();
      for (int i = 0; i < iterations; i++) {
        k.iterate();
      }
      k.mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_FINALIZE));
      k.flush();
    }
  }

  /** One rank's single thread. */
  private static final class Rank {
    final int rank;
    final int size;
    final TraceWriter w;
    final int pid;
    final long devIn = 0x1000_0000_0000L;
    final long devOut = devIn + (1L << 30);
    final long stream = 0x5000;
    final List<Event> pending = new ArrayList<>();
    long seq;
    long now = 1_000_000_000L;
    long request;

    Rank(int rank, int size, TraceWriter w) {
      this.rank = rank;
      this.size = size;
      this.w = w;
      this.pid = 9000 + rank;
    }

    Event.Builder event() {
      now += 850;
      Event.Builder e = Event.newBuilder().setEntryNs(now).setDurationNs(300);
      now += 300;
      return e;
    }

    void add(Event.Builder e) throws IOException {
      pending.add(e.build());
      if (pending.size() == 2000) {
        flush();
      }
    }

    void flush() throws IOException {
      if (!pending.isEmpty()) {
        w.writeBatch(Batch.newBuilder().setPid(pid).setTid(pid).setSeq(seq++).addAllEvents(pending).build());
        pending.clear();
      }
    }

    void mpi(MpiCall.Builder c) throws IOException {
      add(event().setMpi(c.setRank(rank).setCommSize(size)));
    }

    void start() throws IOException {
      mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_INIT));
      add(event().setApi(Api.cudaMalloc).setAlloc(Alloc.newBuilder().setKind(MemoryKind.DEVICE).setPtr(devIn)
          .setBytes(BUFFER)));
      add(event().setApi(Api.cudaMalloc).setAlloc(Alloc.newBuilder().setKind(MemoryKind.DEVICE).setPtr(devOut)
          .setBytes(BUFFER)));
      add(event().setApi(Api.cudaStreamCreateWithFlags).setStream(StreamOp.newBuilder().setStream(stream)
          .setFlags(1)));
      KernelInfo.Builder k = KernelInfo.newBuilder().setKernelId(0x400000).setMangledName("_Z6spmvPfPKfi")
          .setDecode(ParamDecode.RUNTIME_PARAM_INFO).setParamsBytes(20);
      k.addParams(KernelParam.newBuilder().setIndex(0).setOffset(0).setSize(8).setType(ParamType.POINTER)
          .setRecordedSize(8));
      k.addParams(KernelParam.newBuilder().setIndex(1).setOffset(8).setSize(8).setType(ParamType.CONST_POINTER)
          .setRecordedOffset(8).setRecordedSize(8));
      k.addParams(KernelParam.newBuilder().setIndex(2).setOffset(16).setSize(4).setType(ParamType.SCALAR)
          .setRecordedOffset(16).setRecordedSize(4));
      add(Event.newBuilder().setEntryNs(now).setKernelInfo(k));
    }

    void iterate() throws IOException {
      ByteBuffer args = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
      args.putLong(devOut).putLong(devIn).putInt(1 << 22);
      add(event().setApi(Api.rt__cudaLaunchKernel).setLaunch(SyntheticTrace.launchWithArgs(args.array())
          .setKernelId(0x400000).setGridX(4096).setGridY(1).setGridZ(1).setBlockX(256).setBlockY(1).setBlockZ(1)
          .setStream(stream)));
      add(event().setApi(Api.cudaStreamSynchronize).setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE)
          .setStream(stream)));
      if (size > 1) {
        int left = (rank + size - 1) % size;
        int right = (rank + 1) % size;
        long fromLeft = ++request;
        long fromRight = ++request;
        long toLeft = ++request;
        long toRight = ++request;
        mpi(halo(MpiOp.MPI_IRECV, left, 0, fromLeft));
        mpi(halo(MpiOp.MPI_IRECV, right, 1, fromRight));
        mpi(halo(MpiOp.MPI_ISEND, left, 1, toLeft));
        mpi(halo(MpiOp.MPI_ISEND, right, 0, toRight));
        mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_WAITALL)
            .addCompleted(MpiCompletion.newBuilder().setRequest(fromLeft).setReceive(true).setSource(left).setTag(0)
                .setBytes(HALO_BYTES))
            .addCompleted(MpiCompletion.newBuilder().setRequest(fromRight).setReceive(true).setSource(right).setTag(1)
                .setBytes(HALO_BYTES))
            .addCompleted(MpiCompletion.newBuilder().setRequest(toLeft))
            .addCompleted(MpiCompletion.newBuilder().setRequest(toRight)));
      }
      mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_ALLREDUCE).setBytes(8).setTotalBytes(8));
    }

    private static MpiCall.Builder halo(MpiOp op, int peer, int tag, long request) {
      return MpiCall.newBuilder().setOp(op).setPeer(peer).setTag(tag).setBytes(HALO_BYTES).setDeviceBuffer(true)
          .setRequest(request);
    }
  }
}
