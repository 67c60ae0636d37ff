package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.graph.Allocation;
import io.apptrace.graph.Dvdg;
import io.apptrace.job.Job;
import io.apptrace.job.RankTrace;
import io.apptrace.jobgraph.JobDvdg;
import io.apptrace.jobgraph.JobDvdgBuilder;
import io.apptrace.jobgraph.MpiOperation;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.MpiCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The graph of real MPI jobs captured under Open MPI's mpirun on the simulated device ({@link
 * MpiLaunch}): the halo exchange of tracer-native/tests/mpi/halo.cu on 4 ranks, every message an
 * edge from the sender's device buffer to the receiver's halo, which its next kernel reads; the
 * allreduce loop of allreduce.cu on 3 ranks, one collective per iteration over every rank's
 * device vector. Skipped (with a message) where Open MPI is not installed.
 */
class JobGraphCaptureTest {
  @TempDir static Path tmp;
  private static Path halo;
  private static Path allreduce;

  /** halo.cu: ranks, iterations, halo and interior cells (doubles). */
  private static final int RANKS = 4;
  private static final int ITERS = 5;
  private static final long H = 256 * 8;
  private static final long N = 4096 * 8;

  @BeforeAll
  static void capture() throws Exception {
    halo = Files.createDirectories(tmp.resolve("halo"));
    MpiLaunch.captured(halo, MpiLaunch.Mpi.OPEN_MPI, "halo", RANKS);
    allreduce = Files.createDirectories(tmp.resolve("allreduce"));
    MpiLaunch.captured(allreduce, MpiLaunch.Mpi.OPEN_MPI, "allreduce", 3);
  }

  private static JobDvdg graph(Path dir) throws Exception {
    return JobDvdgBuilder.build(Job.read(Job.files(List.of(dir))));
  }

  /** The allocation a value of the job's graph is a version of. */
  private static Allocation allocation(JobDvdg g, int v) {
    Dvdg d = g.ranks().get(g.rankOfValue(v)).dvdg();
    return d.allocation(d.values().allocation(g.localValue(v)));
  }

  private static long start(JobDvdg g, int v) {
    Dvdg d = g.ranks().get(g.rankOfValue(v)).dvdg();
    return allocation(g, v).start() + d.values().offset(g.localValue(v));
  }

  private static long bytes(JobDvdg g, int v) {
    return g.ranks().get(g.rankOfValue(v)).dvdg().values().bytes(g.localValue(v));
  }

  /** u and v of halo.cu: cudaMalloc'd, N + 2H doubles. */
  private static boolean haloBuffer(Allocation a) {
    return a.kind() == MemoryKind.DEVICE && a.label().equals("cudaMalloc") && a.bytes() == N + 2 * H;
  }

  @Test
  void everyHaloMessageIsAnEdgeFromTheSendersBufferToTheReceiversHalo() throws Exception {
    JobDvdg g = graph(halo);
    Map<String, Integer> edges = new TreeMap<>(); // "source->dest" to message edges
    for (int i = 0; i < g.mpiOperations().size(); i++) {
      MpiOperation m = g.mpiOperations().get(i);
      if (m.kind() != MpiOperation.Kind.MESSAGE) {
        assertThat(m.kind()).as(m.toString()).isEqualTo(MpiOperation.Kind.COLLECTIVE);
        continue;
      }
      int op = g.mpiOperationId(i);
      assertThat(g.inputCount(op)).as("%s reads one value", m).isEqualTo(1);
      assertThat(g.outputCount(op)).as("%s writes one value", m).isEqualTo(1);
      edges.merge(m.source() + "->" + m.dest(), 1, Integer::sum);
      if (m.bytes() != H) {
        continue; // the host messages: the Sendrecv of an int, and rank 0's 100 doubles to the last rank
      }
      int in = g.input(op, 0);
      int out = g.output(op, 0);
      assertThat(allocation(g, in)).as("%s reads the sender's u or v", m).matches(JobGraphCaptureTest::haloBuffer);
      assertThat(allocation(g, out)).as("%s writes the receiver's u or v", m).matches(JobGraphCaptureTest::haloBuffer);
      // tag 1 goes right and lands in the receiver's left halo; tag 0 goes left, into its right halo
      long offset = m.tag() == 1 ? 0 : H + N;
      assertThat(start(g, out) - allocation(g, out).start()).as("%s lands in its halo", m).isEqualTo(offset);
      assertThat(bytes(g, out)).isEqualTo(H);
      // the value read holds the bytes sent: u + H (to the left) or u + N (to the right)
      long sent = allocation(g, in).start() + (m.tag() == 1 ? N : H);
      assertThat(start(g, in)).isLessThanOrEqualTo(sent);
      assertThat(start(g, in) + bytes(g, in)).isGreaterThanOrEqualTo(sent + H);
    }
    Map<String, Integer> expected = new TreeMap<>();
    for (int r = 0; r < RANKS; r++) {
      int left = (r + RANKS - 1) % RANKS;
      int right = (r + 1) % RANKS;
      // ITERS halos each way; the Sendrecv ring goes right; rank 0 sends 100 doubles to the last rank
      expected.put(r + "->" + left, ITERS + (r == 0 ? 1 : 0));
      expected.put(r + "->" + right, ITERS + 1);
    }
    assertThat(edges).isEqualTo(expected);
  }

  @Test
  void eachRelaxKernelReadsTheTwoHalosItsRankReceived() throws Exception {
    JobDvdg g = graph(halo);
    for (JobDvdg.RankGraph r : g.ranks()) {
      int relaxes = 0;
      for (int local : r.local()) {
        if (!r.dvdg().operations().name(local).equals("relax")) {
          continue;
        }
        int op = r.jobOperation()[local];
        List<Long> received = new ArrayList<>();
        for (int k = 0; k < g.inputCount(op); k++) {
          int v = g.input(op, k);
          MpiOperation by = g.producer(v) < 0 ? null : g.mpiOperation(g.producer(v));
          if (by != null) {
            assertThat(by.dest()).isEqualTo(r.rank());
            received.add(start(g, v) - allocation(g, v).start());
          }
        }
        assertThat(received).as("rank %d, relax %d", r.rank(), relaxes).containsExactlyInAnyOrder(0L, H + N);
        relaxes++;
      }
      assertThat(relaxes).isEqualTo(ITERS);
    }
  }

  @Test
  void theAllreduceLoopIsOneCollectivePerIterationOverEveryRanksVector() throws Exception {
    JobDvdg g = graph(allreduce);
    List<Integer> device = new ArrayList<>();
    for (int i = 0; i < g.mpiOperations().size(); i++) {
      MpiOperation m = g.mpiOperations().get(i);
      assertThat(m.kind()).isEqualTo(MpiOperation.Kind.COLLECTIVE);
      assertThat(m.members()).containsExactly(0, 1, 2);
      if (m.name().equals("MPI_Allreduce") && m.bytes() == 4096) {
        device.add(g.mpiOperationId(i));
      }
    }
    assertThat(g.mpiOperations()).extracting(MpiOperation::name).containsExactly("MPI_Allreduce", "MPI_Allreduce",
        "MPI_Allreduce", "MPI_Allreduce", "MPI_Allreduce", "MPI_Allreduce", "MPI_Allreduce", "MPI_Allreduce",
        "MPI_Bcast", "MPI_Barrier");
    assertThat(device).as("one in-place reduction of x per iteration").hasSize(4);
    for (int op : device) {
      List<Integer> readFrom = new ArrayList<>();
      List<Integer> wroteTo = new ArrayList<>();
      for (int k = 0; k < g.inputCount(op); k++) {
        readFrom.add(g.ranks().get(g.rankOfValue(g.input(op, k))).rank());
        assertThat(allocation(g, g.input(op, k)).kind()).isEqualTo(MemoryKind.DEVICE);
      }
      for (int k = 0; k < g.outputCount(op); k++) {
        wroteTo.add(g.ranks().get(g.rankOfValue(g.output(op, k))).rank());
        assertThat(bytes(g, g.output(op, k))).isEqualTo(4096);
      }
      assertThat(readFrom).containsExactlyInAnyOrder(0, 1, 2);
      assertThat(wroteTo).containsExactlyInAnyOrder(0, 1, 2);
    }
    // each iteration's kernel reads what the previous iteration's reduction wrote
    for (JobDvdg.RankGraph r : g.ranks()) {
      List<Integer> producers = new ArrayList<>();
      for (int local : r.local()) {
        if (r.dvdg().operations().name(local).equals("scale")) {
          int op = r.jobOperation()[local];
          assertThat(g.inputCount(op)).isEqualTo(1);
          producers.add(g.producer(g.input(op, 0)));
        }
      }
      assertThat(producers.subList(1, producers.size())).as("rank %d", r.rank())
          .isEqualTo(device.subList(0, device.size() - 1));
    }
  }

  @Test
  void graphOfTheJobsTracesPrintsItsSummaryAndExportsEveryVertexWithItsRank() throws Exception {
    Cli text = Cli.run("graph", halo.toString());
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out()).startsWith("job: 4 of 4 ranks").contains("45 MPI messages, 1 MPI collective)")
        .contains("messages: 45 matched (80.8 KiB)").contains("collectives: MPI_Allreduce 1");
    Path out = tmp.resolve("halo.json");
    Cli export = Cli.run("graph", halo.resolve("trace.0.apptrace").toString(), halo.resolve("trace.1.apptrace")
        .toString(), halo.resolve("trace.2.apptrace").toString(), halo.resolve("trace.3.apptrace").toString(),
        "--json", out.toString(), "--no-symbols");
    assertThat(export.exit()).as(export.err()).isZero();
    JsonNode graph = new ObjectMapper().readTree(out.toFile());
    assertThat(graph.path("nodes")).allSatisfy(n -> assertThat(n.path("rank").asText()).isIn("0", "1", "2", "3"));
    List<JsonNode> messages = new ArrayList<>();
    graph.path("edges").forEach(e -> {
      if (e.path("kind").asText().equals("mpi_message")) {
        messages.add(e);
      } else if (!e.path("kind").asText().equals("mpi_collective")) {
        assertThat(e.has("rank")).as("a rank's operation: %s", e).isTrue();
      }
    });
    assertThat(messages).hasSize(45).allSatisfy(e -> assertThat(e.path("matched").asBoolean()).isTrue())
        .allSatisfy(e -> assertThat(e.path("src_rank").asInt()).isNotEqualTo(e.path("dst_rank").asInt()));

    Cli json = Cli.run("graph", halo.toString(), "--json");
    assertThat(json.out()).contains("\"schema\" : \"apptrace.job-graph-summary/1\"");
    Cli one = Cli.run("graph", halo.resolve("trace.1.apptrace").toString(), "--json");
    assertThat(one.out()).as("one trace: its own graph, as before").contains("apptrace.graph-summary/1");
  }

  @Test
  void theCapturedCallsCarryTheirBuffers() throws Exception {
    for (RankTrace t : Job.read(Job.files(List.of(allreduce))).ranks()) {
      for (var e : t.calls()) {
        MpiCall c = e.call();
        switch (c.getOp()) {
          case MPI_ALLREDUCE -> {
            assertThat(c.getRecvBuffer()).isNotZero();
            assertThat(c.getInPlace()).as("the device vector is reduced in place").isEqualTo(c.getDeviceBuffer());
            assertThat(c.getSendBuffer() == 0).isEqualTo(c.getInPlace());
          }
          case MPI_BCAST -> assertThat(c.getSendBuffer()).isNotZero().isEqualTo(c.getRecvBuffer());
          default -> { }
        }
      }
    }
  }
}
