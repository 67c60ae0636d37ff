package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.Event;
import io.apptrace.proto.JobRank;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.MpiCall;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code apptrace replay RANKS --cluster}: a two-rank job (rank 0 allocates device memory and
 * sends 1 MiB to rank 1) replayed with each rank's program on the cluster's node, or as traced; a
 * bad --between-calls is a usage error.
 */
class JobReplayCommandTest {
  @TempDir Path tmp;

  private void rank(int r, MpiOp op) throws Exception {
    TraceHeader h = TraceHeader.newBuilder().setSchemaVersion(1).setSourceFormat("capture").setHost("h")
        .setJob(JobRank.newBuilder().setRank(r).setWorldSize(2).setLocalRank(r).setLocalSize(2).setHost("h")).build();
    try (TraceWriter w = TraceWriter.create(tmp.resolve("trace." + r + ".apptrace"), h)) {
      long t = 1_000_000;
      Batch.Builder b = Batch.newBuilder().setPid(100 + r).setTid(100 + r);
      b.addEvents(Event.newBuilder().setEntryNs(t).setDurationNs(50_000).setMpi(MpiCall.newBuilder()
          .setOp(MpiOp.MPI_INIT).setRank(r).setCommSize(2)));
      b.addEvents(Event.newBuilder().setApi(Api.cudaMalloc).setEntryNs(t + 100_000).setDurationNs(1_000)
          .setAlloc(Alloc.newBuilder().setKind(MemoryKind.DEVICE).setPtr(0x1000_0000L).setBytes(1 << 20)));
      b.addEvents(Event.newBuilder().setEntryNs(t + 200_000).setDurationNs(3_000_000).setMpi(MpiCall.newBuilder()
          .setOp(op).setRank(r).setCommSize(2).setPeer(1 - r).setBytes(1 << 20).setDeviceBuffer(true)));
      b.addEvents(Event.newBuilder().setEntryNs(t + 3_300_000).setDurationNs(10_000).setMpi(MpiCall.newBuilder()
          .setOp(MpiOp.MPI_FINALIZE).setRank(r).setCommSize(2)));
      w.writeBatch(b.build());
    }
  }

  private void job() throws Exception {
    rank(0, MpiOp.MPI_SEND);
    rank(1, MpiOp.MPI_RECV);
  }

  @Test
  void eachRanksProgramRunsOnTheClustersNodeAndItsMessageCrossesTheNodesGpuLinks() throws Exception {
    job();
    Cli c = Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks");
    assertThat(c.exit()).as(c.err()).isZero();
    assertThat(c.out()).contains("between MPI calls: each rank's program replayed on summit")
        .containsPattern("makespan [0-9.]+ ms \\(node and network replays agree after [12] iterations?\\)")
        .contains("communication ").contains(" while the ranks' own GPU work ran")
        .contains("messages within nodes: 1, 1 MiB").contains("note: every rank leaves MPI_Init at 0")
        .contains("note: the ranks a node holds are replayed together on it");
    JsonNode j = new ObjectMapper().readTree(Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks",
        "--json").out());
    assertThat(j.get("betweenCalls").asText()).isEqualTo("node");
    assertThat(j.get("node").asText()).isEqualTo("summit");
    JsonNode r1 = j.get("ranks").get(1);
    assertThat(r1.get("startup").asDouble()).as("the traced MPI_Init and MPI_Finalize, apart")
        .isCloseTo(60e-6, org.assertj.core.api.Assertions.within(1e-12));
    assertThat(r1.get("end").asDouble()).as("not the traced 3 ms receive").isLessThan(1e-3);
    assertThat(r1.get("kernels").asDouble()).isZero();
    assertThat(r1.get("hidden").asDouble()).as("no GPU work ran during its receive").isZero();
    assertThat(j.get("converged").asBoolean()).isTrue();
    assertThat(j.get("iterations").asInt()).isBetween(1, 2);
  }

  @Test
  void asTracedTheRanksKeepTheirMeasuredTimeAndReportNoKernels() throws Exception {
    job();
    Cli c = Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks", "--between-calls", "traced", "--json");
    assertThat(c.exit()).as(c.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(c.out());
    assertThat(j.get("betweenCalls").asText()).isEqualTo("traced");
    assertThat(j.get("ranks").get(0).get("kernels").isNull()).isTrue();
    assertThat(j.get("ranks").get(0).get("hidden").isNull()).isTrue();
    assertThat(j.get("iterations").asInt()).as("no node replay").isZero();
  }

  @Test
  void anUnknownBetweenCallsIsAUsageErrorOnOneLine() throws Exception {
    job();
    Cli c = Cli.run("replay", tmp.toString(), "--cluster", "summit-2racks", "--between-calls", "measured");
    assertThat(c.exit()).isEqualTo(2);
    assertThat(c.err().strip()).isEqualTo("apptrace replay: --between-calls measured: node or traced");
  }
}
