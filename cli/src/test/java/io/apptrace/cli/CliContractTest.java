package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The documented exit codes and messages of every command (docs/CLI.md): bad input is exit 1 with
 * one line {@code apptrace <command>: <message>} naming the file or value; bad usage is exit 2,
 * the message then the usage; never a stack trace. Each row: the command line ({@code DIR} is an
 * existing directory, {@code TRACE} a small captured trace, {@code TMP} a scratch folder), the exit
 * code, and what the first line of stderr says.
 */
class CliContractTest {
  @TempDir static Path tmp;
  static Path dir;
  static Path trace;

  @BeforeAll
  static void fixtures() throws Exception {
    dir = Files.createDirectories(tmp.resolve("somedir"));
    trace = tmp.resolve("copies.apptrace");
    Cli r = Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("copies"));
    assertThat(r.exit()).as(r.err()).isZero();
    // an Nsight Systems report begins as its Tegra forebear's did
    Files.write(tmp.resolve("copy.nsys-rep"), "NVIDIA Tegra Profiler data\0\0\0\1".getBytes(StandardCharsets.ISO_8859_1));
    Files.write(tmp.resolve("old.qdrep"), new byte[] {1, 2, 3, 4});
    String cpuOnly = "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\":"
        + " \"aten::add\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1}, {\"ph\": \"X\", \"cat\": \"cpu_op\","
        + " \"name\": \"aten::mul\", \"ts\": 5, \"dur\": 2, \"pid\": 1, \"tid\": 1}]}";
    Files.writeString(tmp.resolve("cpu-only.json"), cpuOnly);
    Files.writeString(tmp.resolve("cpu-only-cut.json"), cpuOnly.substring(0, 100));
    Files.createSymbolicLink(tmp.resolve("link.yaml"), tmp.resolve("elsewhere.yaml"));
    new ProcessBuilder("mkfifo", tmp.resolve("fifo").toString()).start().waitFor();
    // a device node of our own (root only, as in CI): a refusal that failed would replace it, not /dev/full
    new ProcessBuilder("mknod", tmp.resolve("device").toString(), "c", "1", "7").start().waitFor();
    Files.writeString(tmp.resolve("not-executable"), "#!/bin/sh\necho hi\n");
  }

  static Stream<Arguments> contract() {
    List<Arguments> rows = new ArrayList<>();
    // bad usage: the message, then the usage
    row(rows, "", 2, "apptrace: Missing required subcommand");
    row(rows, "frobnicate", 2, "apptrace: Unmatched argument");
    row(rows, "stats", 2, "apptrace stats: Missing required parameter: 'FILE'");
    row(rows, "replay TRACE", 2, "apptrace replay: Missing required option: '--node=NODE'");
    row(rows, "model --node dgx1", 2, "apptrace model: give --bytes SIZE");
    row(rows, "model --node dgx1 --bytes 4 XB", 2, "apptrace model: Unmatched argument");
    row(rows, "model --node dgx1 --bytes 4XB", 2, "apptrace model: --bytes '4XB' is not a size");
    row(rows, "model --node dgx1 --bytes 0", 2, "at least 1 byte");
    row(rows, "model --node dgx1 --bytes 99999999999999999999", 2, "is too large");
    row(rows, "model --node dgx1 --kernel --bytes 1MiB --flops -1", 2, "--flops -1.0");
    row(rows, "model --node dgx1 --copy p2p --to 0 --bytes 1MiB", 2, "use --copy d2d");
    row(rows, "model --node dgx1 --csv --bytes 1MiB", 2, "--csv formats the --sweep table");
    row(rows, "model --node dgx1 --sweep --bytes 1MiB", 2, "drop --bytes 1MiB");
    row(rows, "run --malloc-threshold 1.5 -- /bin/true", 2, "--malloc-threshold '1.5' is not a size");
    // bad input: one line naming the file or value
    for (String cmd : new String[] {"stats", "graph", "dump", "import", "replay --node dgx1"}) {
      String[] w = cmd.split(" ", 2);
      String rest = w.length > 1 ? " " + w[1] : "";
      row(rows, w[0] + " DIR" + rest, 1, "apptrace " + w[0] + ": cannot read DIR: a directory, not a file");
      row(rows, w[0] + " TMP/none.apptrace" + rest, 1, "apptrace " + w[0] + ": cannot read TMP/none.apptrace: no such file");
      row(rows, w[0] + " /dev/null" + rest, 1, "apptrace " + w[0] + ": cannot read /dev/null: not a regular file");
    }
    row(rows, "validate transfers --node dgx1 --data DIR", 1, "DIR: a directory, not a file");
    row(rows, "model --node DIR/x.yaml --bytes 1", 1, "DIR/x.yaml: no such file");
    row(rows, "model --node TMP --bytes 1", 1, "apptrace model: TMP: a directory, not a file");
    row(rows, "model --node dgx-h10 --bytes 1", 1, "did you mean dgx-h100?");
    row(rows, "nodes --show cray-1", 1, "apptrace nodes: no bundled node named 'cray-1'");
    row(rows, "import TMP/copy.nsys-rep", 1, "an Nsight Systems report, which apptrace reads through its SQLite"
        + " export: export it with 'nsys export --type sqlite -o copy.sqlite copy.nsys-rep', then import copy.sqlite");
    row(rows, "import TMP/old.qdrep", 1, "'nsys export --type sqlite -o old.sqlite old.qdrep'");
    row(rows, "import TMP/cpu-only.json", 1, "a Chrome trace with no CUDA events");
    row(rows, "run -- TMP/not-executable", 126, "apptrace run: cannot execute TMP/not-executable: permission denied");
    row(rows, "run -- TMP/no-such-program", 127, "apptrace run: command not found: TMP/no-such-program");
    // files to write: a regular file or a new path, never a link, device or FIFO; - only where it fits
    for (String write : new String[] {"topo -o", "graph TRACE --graphml", "graph TRACE --dot", "graph TRACE --json",
        "replay TRACE --node dgx1 --timeline", "replay TRACE --node dgx1 --ops-csv", "import TMP/cpu-only.json -o",
        "run -o"}) {
      String tail = write.startsWith("run") ? " -- /bin/true" : "";
      String cmd = write.split(" ")[0];
      row(rows, write + " TMP/device" + tail, 1, "apptrace " + cmd + ": cannot write TMP/device: it is a device, FIFO"
          + " or socket, not a regular file");
      row(rows, write + " TMP/fifo" + tail, 1, "cannot write TMP/fifo: it is a device, FIFO or socket");
      row(rows, write + " TMP/link.yaml" + tail, 1, "cannot write TMP/link.yaml: it is a symbolic link, which"
          + " apptrace never writes through");
      row(rows, write + " DIR" + tail, 1, "cannot write DIR: it is a folder");
    }
    row(rows, "run -o - -- /bin/true", 2, "apptrace run: -o -: the trace is binary");
    row(rows, "import TMP/cpu-only.json -o -", 2, "apptrace import: -o -: a trace is binary");
    row(rows, "calibrate --sim -o -", 2, "apptrace calibrate: -o -: calibrate prints its summary");
    row(rows, "graph TRACE --graphml - --dot -", 2, "only one export can go to standard output (-)");
    row(rows, "graph TRACE --graphml - --json", 2, "--json without OUT (the summary) prints on standard output");
    row(rows, "replay TRACE --node dgx1 --timeline - --json", 2, "--json prints on standard output");
    row(rows, "import TMP/cpu-only-cut.json", 1, "the file ends early (at byte 100 of the decompressed JSON), before"
        + " any CUDA event");
    return rows.stream();
  }

  private static void row(List<Arguments> rows, String args, int exit, String says) {
    rows.add(Arguments.of(args, exit, says));
  }

  private static String fill(String s) {
    return s.replace("TRACE", trace.toString()).replace("DIR", dir.toString()).replace("TMP", tmp.toString());
  }

  @ParameterizedTest(name = "apptrace {0} -> exit {1}")
  @MethodSource("contract")
  void everyCommandExitsAsDocumented(String args, int exit, String says) {
    String line = fill(args);
    org.junit.jupiter.api.Assumptions.assumeTrue(!args.contains("TMP/device") || Files.exists(tmp.resolve("device")),
        "no device node of our own here (mknod needs root)");
    Cli r = Cli.run(line.isEmpty() ? new String[0] : line.split(" "));
    assertThat(r.exit()).as("exit of 'apptrace %s': %s", line, r.err()).isEqualTo(exit);
    String first = r.err().lines().findFirst().orElse("");
    assertThat(first).as("first line of stderr").contains(fill(says));
    assertThat(r.err()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    if (exit == 1) {
      assertThat(r.err().strip().lines().count()).as("bad input is one line: " + r.err()).isEqualTo(1);
    }
  }

  /** An export to - goes to standard output alone: what was written, and any summary, go to stderr. */
  @org.junit.jupiter.api.Test
  void anExportToDashIsStandardOutput() throws Exception {
    Cli g = Cli.run("graph", trace.toString(), "--graphml", "-");
    assertThat(g.exit()).as(g.err()).isZero();
    assertThat(g.out()).startsWith("<?xml").contains("<graphml").doesNotContain("wrote");
    Path file = tmp.resolve("same.graphml");
    assertThat(Cli.run("graph", trace.toString(), "--graphml", file.toString()).exit()).isZero();
    assertThat(g.out()).isEqualTo(Files.readString(file));
    Cli r = Cli.run("replay", trace.toString(), "--node", "dgx1", "--timeline", "-");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("{").contains("traceEvents");
    assertThat(r.err()).contains("on dgx1: projected makespan");
    Cli t = Cli.run("topo", "-o", "-", "--no-hwloc");
    assertThat(t.exit()).as(t.err()).isZero();
    assertThat(t.out()).contains("name: ");
  }

  /** A full disk under standard output is exit 1 with one line, not exit 0 with the output lost. */
  @org.junit.jupiter.api.Test
  void aFailedWriteToStandardOutputIsExitOne() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "no /dev/full here");
    for (String[] args : new String[][] {{"nodes"}, {"stats", trace.toString(), "--json"},
        {"replay", trace.toString(), "--node", "dgx1"}, {"model", "--node", "dgx1", "--sweep"}}) {
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"), "io.apptrace.cli.Main"));
      cmd.addAll(List.of(args));
      Path err = tmp.resolve("err.txt");
      Process p = new ProcessBuilder(cmd).redirectOutput(new java.io.File("/dev/full")).redirectError(err.toFile())
          .start();
      assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(String.join(" ", args)).isEqualTo(1);
      assertThat(Files.readString(err).strip()).isEqualTo("apptrace " + args[0] + ": cannot write to standard output"
          + " (a full disk, or a closed pipe): what was printed is incomplete");
    }
  }
}
