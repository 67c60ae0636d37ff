package io.apptrace.jobgraph;

import io.apptrace.job.MpiEvent;
import io.apptrace.job.NcclEvent;
import io.apptrace.job.RankTrace;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.StreamOp;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceReader;
import io.apptrace.trace.TraceRecord;
import io.apptrace.trace.TraceWriter;
import io.apptrace.trace.Truncation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A rank's trace with its MPI and NCCL calls' buffer accesses written in, for the graph builder to
 * place as it places every other access: right after each call, a copy from its send buffer
 * (nothing written) or to its receive buffer (nothing read), named after the MPI or NCCL function.
 * An MPI call's copy is synchronous, on a stream of its own that nothing else uses and that does
 * not wait for the legacy default stream: MPI touches the buffer on the host, during the call. An
 * NCCL call's copy is asynchronous, on the stream the call named: NCCL's work runs in that
 * stream's order, after the work queued there before and before the work queued after. The builder
 * then finds the allocation live at that moment (or makes an implicit region of the buffer, as for
 * a stack array a copy touches), reads the versions last written there, makes the received bytes
 * a new version that later operations of the rank (of the stream, for NCCL) read, and orders the
 * access after the work its thread (its stream) knew finished: a send of a buffer a kernel may
 * still be writing is a race.
 *
 * <p>Every record of the trace is written again in its batch, in its order; reads before writes
 * after one call (an in-place collective reads, then writes).
 */
final class AccessTrace {
  /** The stream handle of the accesses (no program's: stream handles are heap addresses). */
  static final long MPI_STREAM = 0x4d50_4900_0000_0001L;
  /** cudaStreamNonBlocking. */
  private static final int NON_BLOCKING = 1;

  private AccessTrace() {}

  /** An access as written, with the thread whose call made it. */
  record Written(BufferAccess access, int pid, int tid) {}

  /**
   * What was written: the accesses in the order they stand in the file (each thread's in its
   * order), and where reading the trace stopped early, if it did.
   */
  record Result(List<Written> written, Optional<Truncation> truncation) {}

  /** Writes {@code rank}'s trace to {@code out} with {@code accesses} (of its calls) after their calls. */
  static Result write(RankTrace rank, List<BufferAccess> accesses, Path out) throws IOException, TraceException {
    Map<Integer, List<BufferAccess>> byCall = new HashMap<>();
    Map<Integer, List<BufferAccess>> byNcclCall = new HashMap<>();
    for (BufferAccess a : accesses) {
      (a.nccl() ? byNcclCall : byCall).computeIfAbsent(a.call(), k -> new ArrayList<>()).add(a);
    }
    Comparator<BufferAccess> readsFirst = Comparator.comparing(BufferAccess::write)
        .thenComparingInt(BufferAccess::operation);
    byCall.values().forEach(l -> l.sort(readsFirst));
    byNcclCall.values().forEach(l -> l.sort(readsFirst));
    // the calls by what identifies their records (their index); ties in file order, as RankTrace numbers them
    Map<CallKey, ArrayDeque<Integer>> calls = new HashMap<>();
    for (MpiEvent e : rank.calls()) {
      calls.computeIfAbsent(new CallKey(e.pid(), e.tid(), e.entryNs(), e.durationNs(), e.call().getOpValue()),
          k -> new ArrayDeque<>()).add(e.index());
    }
    Map<CallKey, ArrayDeque<Integer>> ncclCalls = new HashMap<>();
    for (int i = 0; i < rank.ncclCalls().size(); i++) {
      NcclEvent e = rank.ncclCalls().get(i);
      ncclCalls.computeIfAbsent(new CallKey(e.pid(), e.tid(), e.entryNs(), e.durationNs(), e.call().getOpValue()),
          k -> new ArrayDeque<>()).add(i);
    }
    List<Written> written = new ArrayList<>();
    Set<Integer> streamCreated = new HashSet<>();
    try (TraceReader r = TraceReader.open(rank.file()); TraceWriter w = TraceWriter.create(out, r.header())) {
      Batch.Builder batch = null;
      while (r.hasNext()) {
        TraceRecord rec = r.next();
        if (batch == null || batch.getPid() != rec.pid() || batch.getTid() != rec.tid()
            || batch.getSeq() != rec.batchSeq()) {
          flush(w, batch);
          batch = Batch.newBuilder().setPid(rec.pid()).setTid(rec.tid()).setSeq(rec.batchSeq());
        }
        Event e = rec.event();
        batch.addEvents(e);
        if (!e.hasMpi() && !e.hasNccl()) {
          continue;
        }
        boolean nccl = e.hasNccl();
        ArrayDeque<Integer> q = (nccl ? ncclCalls : calls).get(new CallKey(rec.pid(), rec.tid(), e.getEntryNs(),
            e.getDurationNs(), nccl ? e.getNccl().getOpValue() : e.getMpi().getOpValue()));
        Integer call = q == null ? null : q.poll();
        List<BufferAccess> mine = call == null ? null : (nccl ? byNcclCall : byCall).get(call);
        if (mine == null) {
          continue;
        }
        long at = e.getEntryNs() + e.getDurationNs();
        if (!nccl && streamCreated.add(rec.pid())) {
          batch.addEvents(Event.newBuilder().setEntryNs(at).setApi(Api.cudaStreamCreateWithFlags)
              .setStream(StreamOp.newBuilder().setStream(MPI_STREAM).setFlags(NON_BLOCKING)));
        }
        for (BufferAccess a : mine) {
          batch.addEvents(copy(a, at, e.getCallSite()));
          written.add(new Written(a, rec.pid(), rec.tid()));
        }
      }
      flush(w, batch);
      return new Result(written, r.truncation());
    }
  }

  /**
   * The access as a copy from (or to) the buffer, at {@code at}: an MPI call's synchronous on the
   * accesses' stream, an NCCL call's asynchronous on its own stream.
   */
  private static Event copy(BufferAccess a, long at, long callSite) {
    MemoryKind kind = a.device() ? MemoryKind.DEVICE : MemoryKind.PAGEABLE;
    Copy.Builder c = Copy.newBuilder().setBytes(a.bytes()).setDims(1).setKindCalled(CopyKind.DEFAULT)
        .setKindResolved(CopyKind.DEFAULT).setSrcKind(kind).setDstKind(kind).setSrcDevice(-1).setDstDevice(-1)
        .setStream(a.nccl() ? a.stream() : MPI_STREAM).setAsync(a.nccl());
    if (a.write()) {
      c.setDst(a.address());
    } else {
      c.setSrc(a.address());
    }
    return Event.newBuilder().setEntryNs(at).setApi(Api.API_OTHER).setApiName(a.function()).setCallSite(callSite)
        .setCopy(c).build();
  }

  private static void flush(TraceWriter w, Batch.Builder batch) throws IOException {
    if (batch != null && batch.getEventsCount() > 0) {
      w.writeBatch(batch.build());
    }
  }

  /** What identifies an MPI or NCCL call's record: its thread, times and operation. */
  private record CallKey(int pid, int tid, long entryNs, long durationNs, int op) {}
}
