package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace graph} on captures of real CUDA programs, as a user sees it. */
class GraphCommandTest {
  @TempDir Path tmp;

  private Path capture(String program, String... args) {
    Path trace = tmp.resolve(program + String.join("-", args) + ".apptrace");
    String[] cmd = new String[5 + args.length];
    cmd[0] = "run";
    cmd[1] = "--sim";
    cmd[2] = "-q";
    cmd[3] = "--output=" + trace;
    cmd[4] = Cli.cudaTest(program);
    System.arraycopy(args, 0, cmd, 5, args.length);
    assertThat(Cli.run(cmd).exit()).as("capture of %s", program).isZero();
    return trace;
  }

  @Test
  void summaryOfTheVectorAddCountsFigure61() {
    Cli r = Cli.run("graph", capture("vecadd").toString());
    assertThat(r.exit()).isZero();
    // a_h, b_h (initial), a_d, b_d, s_d (written), s_h (copied back); 3 copies and a kernel
    assertThat(r.out()).contains("6 values in 6 allocations (0 implicit), 4 operations (3 copies, 0 memsets,"
            + " 1 kernel), 5 edges")
        .contains("h2d  pageable->device")
        .contains("d2h  device->pageable")
        .contains("races: 0 certain, 0 possible");
  }

  /**
   * race.cu: a kernel fills a buffer in one stream, another sums it in a second stream. Without an
   * event the race is reported as possible (the kernels' footprints are inferred, never measured);
   * with one, no race.
   */
  @Test
  void twoStreamsWithoutAnEventAreARaceAndWithOneAreNot() {
    Cli racy = Cli.run("graph", capture("race").toString());
    assertThat(racy.exit()).isZero();
    assertThat(racy.out()).contains("races: 0 certain, 1 possible (kernel footprints inferred")
        .containsPattern("possible: op 0 fill \\(stream 0x[0-9a-f]+\\) writes alloc 0; op 1 total \\(stream"
            + " 0x[0-9a-f]+\\) reads it");
    Cli safe = Cli.run("graph", capture("race", "safe").toString());
    assertThat(safe.exit()).isZero();
    assertThat(safe.out()).contains("races: 0 certain, 0 possible");
  }

  /** {@code --summary --json}: the summary as the JSON document docs/CLI.md describes. */
  @Test
  void summaryAsJsonCountsCertainAndPossibleRaces() throws Exception {
    Path trace = capture("race");
    for (String[] args : new String[][] {{"graph", trace.toString(), "--summary", "--json"},
        {"graph", "--json", trace.toString()}}) {
      Cli r = Cli.run(args);
      assertThat(r.exit()).as(String.join(" ", args)).isZero();
      JsonNode j = new ObjectMapper().readTree(r.out());
      assertThat(j.path("schema").asText()).isEqualTo("apptrace.graph-summary/1");
      assertThat(j.path("operations").path("kernel").asInt()).isEqualTo(2);
      assertThat(j.path("races").path("certain").asInt()).isZero();
      assertThat(j.path("races").path("possible").asInt()).isEqualTo(1);
      assertThat(j.path("races").path("list").get(0).path("confidence").asText()).isEqualTo("possible");
      assertThat(j.path("races").path("list").get(0).path("writer").path("name").asText()).isEqualTo("fill");
      assertThat(j.path("races").path("guesses").get(0).asText()).isEqualTo("kernel footprints inferred");
    }
    assertThat(Cli.run("graph", trace.toString()).exit()).as("the trace is still a trace, not JSON").isZero();
  }

  /**
   * constant_pointers.cu: scale() reaches memory through a __constant__ struct, so it has
   * accesses; idle() touches none, and the summary says its reads and writes are missing.
   */
  @Test
  void summaryCountsKernelsWithNoKnownMemoryAccess() throws Exception {
    Path trace = capture("constant_pointers");
    Cli r = Cli.run("graph", trace.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("1 kernel with no known memory access: their reads and writes are missing from"
        + " the graph").contains("  idle (1 launch)").doesNotContain("not analysed");
    JsonNode j = new ObjectMapper().readTree(Cli.run("graph", trace.toString(), "--summary", "--json").out());
    assertThat(j.path("kernels_without_access").path("idle").asInt()).isEqualTo(1);
    assertThat(j.path("kernels_without_access").has("scale")).isFalse();
  }

  @Test
  void writesGraphMlDotAndJsonWithTheDocumentedAttributes() throws Exception {
    Path trace = capture("vecadd");
    Path graphml = tmp.resolve("g.graphml");
    Path dot = tmp.resolve("g.dot");
    Path json = tmp.resolve("g.json");
    Cli r = Cli.run("graph", trace.toString(), "--graphml", graphml.toString(), "--dot", dot.toString(),
        "--json", json.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("wrote " + graphml).contains("wrote " + dot).contains("wrote " + json)
        .doesNotContain("values in"); // no summary unless asked for
    String xml = Files.readString(graphml);
    for (String node : new String[] {"alloc", "version", "location", "memory", "bytes"}) {
      assertThat(xml).containsPattern("for=\"(node|all)\" attr.name=\"" + node + "\"");
    }
    for (String edge : new String[] {"op", "kind", "name"}) {
      assertThat(xml).containsPattern("for=\"(edge|all)\" attr.name=\"" + edge + "\"");
    }
    assertThat(Files.readString(dot)).contains("digraph dvdg {").contains("vector_add");
    JsonNode j = new ObjectMapper().readTree(json.toFile());
    assertThat(j.path("nodes")).hasSize(6);
    assertThat(j.path("edges")).hasSize(5);
    assertThat(j.path("edges").findValuesAsText("kind")).containsOnly("copy", "kernel");
  }

  @Test
  void summaryAlsoPrintsWhenAskedAlongsideAFile() {
    Path trace = capture("vecadd");
    Cli r = Cli.run("graph", trace.toString(), "--summary", "--dot", tmp.resolve("x.dot").toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("6 values").contains("wrote ");
  }

  @Test
  void aTraceCutShortYieldsTheGraphBeforeTheCutAndSaysWhere() throws Exception {
    Path whole = capture("pipeline");
    byte[] bytes = Files.readAllBytes(whole);
    Path cut = tmp.resolve("cut.apptrace");
    Files.write(cut, Arrays.copyOf(bytes, bytes.length - 7));
    Cli r = Cli.run("graph", cut.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.out()).containsPattern("the trace is cut short at byte \\d+ \\(cut short\\): the graph holds"
        + " what came before");
  }

  @Test
  void aNewerSchemaIsExitOneNamingBothVersions() throws Exception {
    Path newer = tmp.resolve("newer.apptrace");
    TraceWriter.create(newer, TraceHeader.newBuilder().setSchemaVersion(7).build()).close();
    Cli r = Cli.run("graph", newer.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).contains("schema version 7").contains("versions up to 1")
        .doesNotContain("Exception").doesNotContain("\n");
  }

  /** OUT.gz holds exactly what OUT holds, compressed; nothing of the writing is left beside them. */
  @Test
  void gzipNamedExportsAreThePlainExportsCompressed() throws Exception {
    Path trace = capture("pipeline");
    Cli plain = Cli.run("graph", trace.toString(), "--graphml", tmp.resolve("g.graphml").toString(),
        "--dot", tmp.resolve("g.dot").toString(), "--json", tmp.resolve("g.json").toString());
    assertThat(plain.exit()).as(plain.err()).isZero();
    Cli gz = Cli.run("graph", trace.toString(), "--graphml", tmp.resolve("g.graphml.gz").toString(),
        "--dot", tmp.resolve("g.dot.GZ").toString(), "--json", tmp.resolve("g.json.gz").toString());
    assertThat(gz.exit()).as(gz.err()).isZero();
    assertThat(gz.out()).contains("wrote " + tmp.resolve("g.graphml.gz"));
    for (String[] pair : new String[][] {{"g.graphml", "g.graphml.gz"}, {"g.dot", "g.dot.GZ"}, {"g.json", "g.json.gz"}}) {
      byte[] expected = Files.readAllBytes(tmp.resolve(pair[0]));
      assertThat(expected.length).isGreaterThan(1000);
      assertThat(Gzip.decompress(tmp.resolve(pair[1]))).as(pair[1]).isEqualTo(expected);
      assertThat(Files.size(tmp.resolve(pair[1]))).isLessThan(expected.length / 3);
    }
    try (var files = Files.list(tmp)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".partial"));
    }
  }

  /**
   * A disk that fills during the export (a 64 KiB tmpfs; the graph of tests/cuda/threads is
   * megabytes in every format): one line, exit 1, and no file left that could pass for the graph.
   */
  @ParameterizedTest
  @ValueSource(strings = {"--graphml", "--dot", "--json"})
  void aDiskThatFillsFailsTheExportAndLeavesNoFile(String format) throws Exception {
    Path trace = capture("threads");
    Path disk = Files.createDirectories(tmp.resolve("disk"));
    assumeTrue(command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk.toString()) == 0,
        "mounting a small tmpfs needs root: a full disk is not tested here");
    try {
      Path out = disk.resolve("g.gz");
      Cli r = Cli.run("graph", "--no-symbols", trace.toString(), format, out.toString());
      assertThat(r.exit()).isEqualTo(1);
      assertThat(r.err().strip()).isEqualTo("apptrace graph: cannot write " + out
          + " (No space left on device); choose another path");
      try (var files = Files.list(disk)) {
        assertThat(files).isEmpty();
      }
    } finally {
      command("umount", disk.toString());
    }
  }

  private static int command(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) ? p.exitValue() : -1;
  }

  /** As for run's trace: an export never goes through a symbolic link; refused before any work. */
  @Test
  void anExportToASymbolicLinkIsRefused() throws Exception {
    Path victim = Files.writeString(tmp.resolve("victim"), "precious");
    Path link = Files.createSymbolicLink(tmp.resolve("g.json.gz"), victim);
    Cli r = Cli.run("graph", capture("vecadd").toString(), "--json", link.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("apptrace graph: cannot write " + link
        + ": it is a symbolic link, which apptrace never writes through");
    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(Files.isSymbolicLink(link)).isTrue();
  }

  @Test
  void aMissingFileOrAnUnwritableOutputIsExitOne() {
    Cli missing = Cli.run("graph", tmp.resolve("nope.apptrace").toString());
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).contains("nope.apptrace").contains("no such file");
    Path trace = capture("vecadd");
    Cli unwritable = Cli.run("graph", trace.toString(), "--graphml", tmp.resolve("no/such/dir/g.graphml").toString());
    assertThat(unwritable.exit()).isEqualTo(1);
    assertThat(unwritable.err()).contains("cannot write").contains("g.graphml").doesNotContain("Exception");
  }

  @Test
  void missingFileArgumentIsUsageExitTwo() {
    assertThat(Cli.run("graph").exit()).isEqualTo(2);
  }
}
