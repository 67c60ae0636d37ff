package io.apptrace.jobgraph;

import io.apptrace.graph.Dvdg;
import io.apptrace.graph.DvdgBuilder;
import io.apptrace.graph.OperationTable;
import io.apptrace.job.Job;
import io.apptrace.job.RankTrace;
import io.apptrace.trace.TraceException;
import io.apptrace.trace.Truncation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds a job's graph ({@link JobDvdg}): finds its MPI and NCCL operations and the buffers they
 * read and write ({@link MpiAccesses}, {@link NcclAccesses}); builds each rank's graph with
 * {@link DvdgBuilder} from its trace with those accesses written in after their calls
 * ({@link AccessTrace}: a copy of the trace, written to a temporary file and deleted once read);
 * then joins the ranks' graphs through the accesses.
 */
public final class JobDvdgBuilder {
  private JobDvdgBuilder() {}

  public static JobDvdg build(Job job) throws IOException, TraceException {
    MpiAccesses mpi = MpiAccesses.of(job);
    NcclAccesses nccl = NcclAccesses.of(job);
    int mpiOperations = mpi.operations().size();
    Map<Integer, List<BufferAccess>> byRank = new HashMap<>();
    for (List<BufferAccess> all : List.of(mpi.accesses(), nccl.accesses())) {
      for (BufferAccess a : all) {
        byRank.computeIfAbsent(a.rank(), k -> new ArrayList<>()).add(a);
      }
    }
    List<List<JobDvdg.End>> inputs = new ArrayList<>();
    List<List<JobDvdg.End>> outputs = new ArrayList<>();
    for (int i = 0; i < mpiOperations + nccl.operations().size(); i++) {
      inputs.add(new ArrayList<>());
      outputs.add(new ArrayList<>());
    }
    int rankOperations = 0;
    List<Built> built = new ArrayList<>();
    for (RankTrace t : job.ranks()) {
      Built b = rank(t, byRank.getOrDefault(t.rank(), List.of()));
      built.add(b);
      rankOperations += b.dvdg.operations().size() - b.written.size();
    }
    List<JobDvdg.RankGraph> ranks = new ArrayList<>();
    int opBase = 0;
    int valueBase = 0;
    for (int r = 0; r < built.size(); r++) {
      Built b = built.get(r);
      OperationTable ops = b.dvdg.operations();
      int accessOps = 0;
      for (int op = 0; op < ops.size(); op++) {
        accessOps += ops.isCommBufferAccess(op) ? 1 : 0;
      }
      if (accessOps != b.written.size()) {
        throw new IllegalStateException(b.trace.file() + ": " + b.written.size() + " MPI and NCCL buffer accesses"
            + " written into the trace, " + accessOps + " in its graph");
      }
      int[] jobOp = new int[ops.size()];
      int[] local = new int[ops.size() - accessOps];
      BitSet accesses = new BitSet(ops.size());
      Map<Long, ArrayDeque<AccessTrace.Written>> byThread = new HashMap<>();
      for (AccessTrace.Written w : b.written) {
        byThread.computeIfAbsent(thread(w.pid(), w.tid()), k -> new ArrayDeque<>()).add(w);
      }
      int own = 0;
      for (int op = 0; op < ops.size(); op++) {
        if (!ops.isCommBufferAccess(op)) {
          local[own] = op;
          jobOp[op] = opBase + own++;
          continue;
        }
        ArrayDeque<AccessTrace.Written> q = byThread.get(thread(ops.pid(op), ops.tid(op)));
        AccessTrace.Written w = q == null ? null : q.poll();
        if (w == null) {
          throw new IllegalStateException(b.trace.file() + ": op " + op + " is a buffer access of a thread"
              + " whose calls were given none");
        }
        accesses.set(op);
        int m = (w.access().nccl() ? mpiOperations : 0) + w.access().operation();
        jobOp[op] = rankOperations + m;
        for (int k = 0; k < ops.inputCount(op); k++) {
          inputs.get(m).add(new JobDvdg.End(r, op, valueBase + ops.input(op, k), ops.inputBytes(op, k),
              ops.inputConfidence(op, k)));
        }
        for (int k = 0; k < ops.outputCount(op); k++) {
          int v = ops.output(op, k);
          outputs.get(m).add(new JobDvdg.End(r, op, valueBase + v, b.dvdg.values().bytes(v),
              ops.outputConfidence(op, k)));
        }
      }
      ranks.add(new JobDvdg.RankGraph(b.trace, b.dvdg, b.truncation, jobOp, local, accesses));
      opBase += own;
      valueBase += b.dvdg.values().size();
    }
    return new JobDvdg(job, ranks, mpi, nccl, inputs, outputs);
  }

  /** A rank's graph, the accesses written into its trace, and where reading the trace stopped early. */
  private record Built(RankTrace trace, Dvdg dvdg, List<AccessTrace.Written> written,
      Optional<Truncation> truncation) {}

  /** A rank's graph with its buffer accesses. */
  private static Built rank(RankTrace t, List<BufferAccess> accesses) throws IOException, TraceException {
    if (accesses.isEmpty()) {
      Dvdg g = DvdgBuilder.build(t.file());
      return new Built(t, g, List.of(), g.truncation());
    }
    Path copy = Files.createTempFile("apptrace-rank" + t.rank() + "-", ".apptrace");
    try {
      AccessTrace.Result written = AccessTrace.write(t, accesses, copy);
      return new Built(t, DvdgBuilder.build(copy), written.written(), written.truncation());
    } finally {
      Files.deleteIfExists(copy);
    }
  }

  private static long thread(int pid, int tid) {
    return ((long) pid << 32) | (tid & 0xffffffffL);
  }
}
