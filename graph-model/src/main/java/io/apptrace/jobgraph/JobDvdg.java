package io.apptrace.jobgraph;

import io.apptrace.graph.Confidence;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OperationGraph;
import io.apptrace.graph.OperationLists;
import io.apptrace.graph.OperationTable;
import io.apptrace.job.Job;
import io.apptrace.job.RankTrace;
import io.apptrace.trace.Truncation;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * The dynamic value dependence graph of an MPI job: every rank's graph, its values and operations
 * tagged with the rank, joined by the job's MPI operations ({@link MpiOperation}) and NCCL
 * operations ({@link NcclOperation}), each reading the values its send buffers held and writing
 * new versions of the values in its receive buffers. Built by {@link JobDvdgBuilder}; immutable.
 *
 * <p>Ids: values are numbered rank after rank ({@link #value(int, int)}), and so are the ranks'
 * operations, then come the MPI operations in the order of {@link #mpiOperations()}, then the
 * NCCL operations in the order of {@link #ncclOperations()}. A rank's graph holds an operation for
 * each buffer access of its MPI and NCCL calls (the builder placed them there); those are not
 * operations of the job's graph but parts of its MPI and NCCL operations.
 */
public final class JobDvdg implements OperationLists {
  /**
   * One end of an MPI or NCCL operation: a value of a rank, read or written by one of its buffer
   * accesses.
   *
   * @param rankIndex the rank's index in {@link #ranks()}
   * @param access the buffer access's operation in the rank's graph
   * @param value the value's id in the job's graph
   * @param bytes an input's bytes read (of the range the value holds); an output's, its size
   * @param confidence how certain the edge is
   */
  public record End(int rankIndex, int access, int value, long bytes, Confidence confidence) {}

  private final Job job;
  private final List<RankGraph> ranks;
  private final MpiAccesses mpi;
  private final NcclAccesses nccl;
  private final List<List<End>> inputs;
  private final List<List<End>> outputs;
  private final int[] opBase;
  private final int[] valueBase;
  private final int rankOperations;
  private final int values;
  private OperationGraph view;

  JobDvdg(Job job, List<RankGraph> ranks, MpiAccesses mpi, NcclAccesses nccl, List<List<End>> inputs,
      List<List<End>> outputs) {
    this.job = job;
    this.ranks = List.copyOf(ranks);
    this.mpi = mpi;
    this.nccl = nccl;
    this.inputs = inputs.stream().map(List::copyOf).toList();
    this.outputs = outputs.stream().map(List::copyOf).toList();
    opBase = new int[ranks.size()];
    valueBase = new int[ranks.size()];
    int ops = 0;
    int vs = 0;
    for (int i = 0; i < ranks.size(); i++) {
      opBase[i] = ops;
      valueBase[i] = vs;
      ops += ranks.get(i).operations();
      vs += ranks.get(i).dvdg().values().size();
    }
    rankOperations = ops;
    values = vs;
  }

  /**
   * One rank's graph within the job's.
   *
   * @param trace the rank's trace
   * @param dvdg its graph, with an operation for each buffer access of its MPI and NCCL calls
   * @param truncation where reading its trace stopped early, if it did
   * @param jobOperation for each operation of {@code dvdg}, the job's operation it is: its own, or
   *     the MPI or NCCL operation a buffer access is part of
   * @param local for each of the rank's operations in the job's graph, in order, its operation in
   *     {@code dvdg}
   * @param accesses the operations of {@code dvdg} that are buffer accesses
   */
  public record RankGraph(RankTrace trace, Dvdg dvdg, Optional<Truncation> truncation, int[] jobOperation,
      int[] local, BitSet accesses) {
    public int rank() {
      return trace.rank();
    }

    /** The rank's own operations (copies, memsets, kernels), without its MPI and NCCL buffer accesses. */
    public int operations() {
      return local.length;
    }

    /** Whether operation {@code op} of {@link #dvdg()} is a buffer access of an MPI or NCCL call. */
    public boolean isAccess(int op) {
      return accesses.get(op);
    }
  }

  public Job job() {
    return job;
  }

  /** The ranks' graphs, in rank order. */
  public List<RankGraph> ranks() {
    return ranks;
  }

  /** The job's MPI operations, in the order of their ids. */
  public List<MpiOperation> mpiOperations() {
    return mpi.operations();
  }

  /** What the MPI operations were built from: their buffer accesses, and what could not be had. */
  public MpiAccesses accesses() {
    return mpi;
  }

  /** The job's NCCL operations, in the order of their ids. */
  public List<NcclOperation> ncclOperations() {
    return nccl.operations();
  }

  /** What the NCCL operations were built from: their buffer accesses, and what could not be had. */
  public NcclAccesses ncclAccesses() {
    return nccl;
  }

  /** The id of MPI operation {@code i} (of {@link #mpiOperations()}). */
  public int mpiOperationId(int i) {
    return rankOperations + i;
  }

  /** The id of NCCL operation {@code i} (of {@link #ncclOperations()}). */
  public int ncclOperationId(int i) {
    return rankOperations + mpi.operations().size() + i;
  }

  /** The MPI operation {@code op} is, or null when it is an operation of a rank or an NCCL operation. */
  public MpiOperation mpiOperation(int op) {
    int i = op - rankOperations;
    return i >= 0 && i < mpi.operations().size() ? mpi.operations().get(i) : null;
  }

  /** The NCCL operation {@code op} is, or null when it is an operation of a rank or an MPI operation. */
  public NcclOperation ncclOperation(int op) {
    int i = op - rankOperations - mpi.operations().size();
    return i >= 0 ? nccl.operations().get(i) : null;
  }

  /** The MPI or NCCL operation {@code op} is, or null when it is an operation of a rank. */
  public CommOperation commOperation(int op) {
    MpiOperation m = mpiOperation(op);
    return m != null ? m : ncclOperation(op);
  }

  /** The index of the rank (in {@link #ranks()}) whose operation {@code op} is; -1 for an MPI or NCCL operation. */
  public int rankOfOperation(int op) {
    if (op >= rankOperations) {
      return -1;
    }
    int i = Arrays.binarySearch(opBase, op);
    if (i < 0) {
      return -i - 2;
    }
    while (i + 1 < opBase.length && opBase[i + 1] == op) {
      i++; // ranks without operations share their base with the next
    }
    return i;
  }

  /** The operation of its rank's graph that job operation {@code op} is (an operation of a rank). */
  public int localOperation(int op) {
    int r = rankOfOperation(op);
    return ranks.get(r).local()[op - opBase[r]];
  }

  /** The index of the rank (in {@link #ranks()}) whose value {@code v} is. */
  public int rankOfValue(int v) {
    int i = Arrays.binarySearch(valueBase, v);
    if (i < 0) {
      return -i - 2;
    }
    while (i + 1 < valueBase.length && valueBase[i + 1] == v) {
      i++;
    }
    return i;
  }

  /** The job's id of value {@code v} of the rank at index {@code r}. */
  public int value(int r, int v) {
    return valueBase[r] + v;
  }

  /** The value of its rank's graph that job value {@code v} is. */
  public int localValue(int v) {
    return v - valueBase[rankOfValue(v)];
  }

  /** Input {@code k} of MPI or NCCL operation {@code op}. */
  public End commInput(int op, int k) {
    return inputs.get(op - rankOperations).get(k);
  }

  /** Output {@code k} of MPI or NCCL operation {@code op}. */
  public End commOutput(int op, int k) {
    return outputs.get(op - rankOperations).get(k);
  }

  /** The JGraphT view (built on first use, then kept). */
  public synchronized OperationGraph view() {
    if (view == null) {
      view = new OperationGraph(this);
    }
    return view;
  }

  // ---- OperationLists ----

  @Override
  public int operations() {
    return rankOperations + mpi.operations().size() + nccl.operations().size();
  }

  @Override
  public int values() {
    return values;
  }

  @Override
  public int inputCount(int op) {
    return op >= rankOperations ? inputs.get(op - rankOperations).size() : table(op).inputCount(localOperation(op));
  }

  @Override
  public int input(int op, int k) {
    return op >= rankOperations ? inputs.get(op - rankOperations).get(k).value()
        : valueBase[rankOfOperation(op)] + table(op).input(localOperation(op), k);
  }

  @Override
  public int outputCount(int op) {
    return op >= rankOperations ? outputs.get(op - rankOperations).size()
        : table(op).outputCount(localOperation(op));
  }

  @Override
  public int output(int op, int k) {
    return op >= rankOperations ? outputs.get(op - rankOperations).get(k).value()
        : valueBase[rankOfOperation(op)] + table(op).output(localOperation(op), k);
  }

  /** The operations of the rank whose operation {@code op} is. */
  private OperationTable table(int op) {
    return ranks.get(rankOfOperation(op)).dvdg().operations();
  }

  @Override
  public int producer(int v) {
    int r = rankOfValue(v);
    RankGraph g = ranks.get(r);
    int p = g.dvdg().values().producer(v - valueBase[r]);
    return p < 0 ? -1 : g.jobOperation()[p];
  }
}
