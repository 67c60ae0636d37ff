package io.apptrace.jobgraph;

import static io.apptrace.graph.TraceFixture.constPtr;
import static io.apptrace.jobgraph.JobGraphs.value;
import static io.apptrace.jobgraph.JobGraphs.reads;
import static io.apptrace.jobgraph.JobGraphs.writes;
import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.graph.TraceFixture;
import io.apptrace.job.Job;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiCompletion;
import io.apptrace.proto.MpiOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A nonblocking collective in the graph of a job (docs/JOBS.md, "The DVDG of a job"): the same
 * operation as its blocking counterpart, its buffers read at each member's call and written at the
 * Wait that completed the member's request, as an MPI_Irecv's are.
 */
class JobDvdgNonblockingTest {
  @TempDir Path tmp;

  /**
   * Two ranks: a device buffer memset, MPI_Iallreduce in place on it (request 1), a kernel reading
   * it, MPI_Wait, the kernel again:
   *
   * <pre>
   *   r0, r1: memset -> v1 ; Iallreduce(v1) ; sum(v?) ; Wait ; sum(v?)
   * </pre>
   * The kernel before the Wait reads what the memset wrote, the one after it the reduced version.
   */
  @Test
  void anIallreduceWritesItsBuffersAtTheWaitThatCompletedIt() throws Exception {
    List<Path> files = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      TraceFixture t = new TraceFixture().rank(r, 2).cudaMalloc(0x10000, 4096).memsetAsync(0x10000, 4096, 0)
          .streamSynchronize(0).kernel(3, "_Z3sumPKf", constPtr())
          .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_IALLREDUCE).setCommSize(2).setBytes(4096).setDeviceBuffer(true)
              .setInPlace(true).setRecvBuffer(0x10000).setRequest(1))
          .launch(3, 0, 0x10000)
          .mpi(MpiCall.newBuilder().setOp(MpiOp.MPI_WAIT).addCompleted(MpiCompletion.newBuilder().setRequest(1)))
          .launch(3, 0, 0x10000);
      files.add(t.write(tmp.resolve("trace." + r + ".apptrace"), false));
    }
    JobDvdg g = JobDvdgBuilder.build(Job.read(files));
    assertThat(g.mpiOperations()).singleElement().satisfies(o -> {
      assertThat(o.kind()).isEqualTo(MpiOperation.Kind.COLLECTIVE);
      assertThat(o.name()).isEqualTo("MPI_Iallreduce");
    });
    int op = g.mpiOperationId(0);
    assertThat(reads(g, op)).containsExactly("r0:alloc0:v1", "r1:alloc0:v1");
    assertThat(writes(g, op)).containsExactly("r0:alloc0:v2", "r1:alloc0:v2");
    for (int r = 0; r < 2; r++) {
      assertThat(reads(g, kernel(g, r, 0))).as("rank %d before the Wait: the memset's", r)
          .containsExactly("r" + r + ":alloc0:v1");
      assertThat(reads(g, kernel(g, r, 1))).as("rank %d after the Wait: the reduction's", r)
          .containsExactly("r" + r + ":alloc0:v2");
    }
  }




  /** The job's id of the k-th launch of sum by a rank. */
  private static int kernel(JobDvdg g, int rank, int k) {
    return JobGraphs.op(g, rank, "sum", k);
  }
}
