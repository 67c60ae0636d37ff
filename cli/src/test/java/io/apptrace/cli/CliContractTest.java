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
    Cli r = Cli.run(line.isEmpty() ? new String[0] : line.split(" "));
    assertThat(r.exit()).as("exit of 'apptrace %s': %s", line, r.err()).isEqualTo(exit);
    String first = r.err().lines().findFirst().orElse("");
    assertThat(first).as("first line of stderr").contains(fill(says));
    assertThat(r.err()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    if (exit == 1) {
      assertThat(r.err().strip().lines().count()).as("bad input is one line: " + r.err()).isEqualTo(1);
    }
  }
}
