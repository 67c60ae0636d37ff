package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Whatever a user types, apptrace answers with its documented exit codes and a line that says
 * what is wrong, never an internal error: every option and argument of every command, given
 * values drawn from what users type (numbers, sizes, names, paths to special files, nothing at
 * all). Commands that would run for minutes (calibrate, demo) or run programs (run's CMD) are
 * given their options with a command line that fails fast.
 */
class CliFuzzTest {
  @TempDir static Path tmp;
  static Path trace;
  static List<String> values;

  @BeforeAll
  static void fixtures() throws Exception {
    trace = tmp.resolve("copies.apptrace");
    assertThat(Cli.run("run", "--sim", "-q", "-o", trace.toString(), Cli.cudaTest("copies")).exit()).isZero();
    Files.createDirectories(tmp.resolve("dir"));
    Files.writeString(tmp.resolve("text.yaml"), "name: [unclosed\n");
    Files.write(tmp.resolve("binary.bin"), new byte[] {0, 1, 2, (byte) 0xff, 0x1f, (byte) 0x8b});
    Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere"));
    new ProcessBuilder("mkfifo", tmp.resolve("fifo").toString()).start().waitFor();
    // every path given is in the test's own folder: an output option that wrote where it should not
    // (a regression) damages nothing of the machine's; a device node of our own where mknod works
    new ProcessBuilder("mknod", tmp.resolve("device").toString(), "c", "1", "7").start().waitFor();
    Files.writeString(tmp.resolve("regular"), "root:x:0:0:root:/root:/bin/bash\n");
    values = List.of("", " ", "-", "--", "0", "-1", "1", "2", "1.5", "-0.0", "NaN", "Infinity", "1e308", "1e-320",
        "99999999999999999999", "9223372036854775807", "-9223372036854775808", "4096", "4KiB", "1.5GiB", "4 XB",
        "KiB", "16777216 TiB", "dgx1", "DGX-1", "cray-1", "gpu0", "gpu1=gpu0", "gpu99=gpu0", "1:0", "gpus.gpu0.sms=0",
        "x=", "=1", "measured", "datasheet", "scale-flops", "h2d", "p2p", "pinned", "fp64", "%s%n%x", "\u00e9\u4e2d",
        "a".repeat(5000), tmp.resolve("device").toString(), tmp.resolve("regular").toString(),
        tmp.resolve("fifo").toString(), tmp.resolve("dir").toString(), tmp.resolve("text.yaml").toString(),
        tmp.resolve("binary.bin").toString(), tmp.resolve("dangling").toString(), tmp.resolve("nowhere/x").toString(),
        tmp.resolve("out.json").toString(), tmp.resolve("out.gz").toString(), trace.toString());
  }

  /** Commands and what every line of each must start with so that it ends quickly. */
  private static final List<String> COMMANDS = List.of("stats", "dump", "graph", "replay", "nodes", "model",
      "topo", "validate transfers", "import", "run", "calibrate");
  private static final Set<Integer> DOCUMENTED = Set.of(0, 1, 2);

  @Test
  void noInputAUserCanTypeIsAnInternalError() {
    SplittableRandom random = new SplittableRandom(17);
    CommandLine model = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    int runs = 0;
    for (int i = 0; i < 900; i++) {
      String name = COMMANDS.get(i % COMMANDS.size());
      CommandLine cl = model;
      for (String w : name.split(" ")) {
        cl = cl.getSubcommands().get(w);
      }
      List<OptionSpec> options = cl.getCommandSpec().options();
      List<String> args = new ArrayList<>(List.of(name.split(" ")));
      if (List.of("stats", "dump", "graph", "replay", "import").contains(name)) {
        args.add(random.nextInt(4) == 0 ? pick(random) : trace.toString());
      }
      if (name.equals("import")) { // never import's default output, a file in the working folder
        args.addAll(List.of("-o", inTmp(pick(random))));
      }
      int n = 1 + random.nextInt(3);
      for (int k = 0; k < n; k++) {
        OptionSpec o = options.get(random.nextInt(options.size()));
        if (o.usageHelp() || o.versionHelp()) {
          continue;
        }
        args.add(o.longestName());
        if (o.arity().max() > 0) {
          args.add(OUTPUTS.contains(o.longestName()) ? inTmp(pick(random)) : pick(random));
        }
      }
      switch (name) {
        case "replay" -> {
          if (!args.contains("--node")) {
            args.addAll(List.of("--node", random.nextBoolean() ? "dgx1" : pick(random)));
          }
        }
        // never minutes of benchmarks: a calibrate line must fail on its options before it measures
        case "calibrate" -> args.addAll(List.of("-o", tmp.resolve("dir").toString()));
        case "run" -> args.addAll(List.of("--", tmp.resolve("no-such-program").toString()));
        default -> { }
      }
      Cli r = Cli.run(args.toArray(new String[0]));
      runs++;
      String line = String.join(" ", args);
      assertThat(r.err()).as("apptrace %s", line).doesNotContain("internal error").doesNotContain("\tat ");
      if (!name.equals("run")) {
        assertThat(DOCUMENTED).as("exit %d of apptrace %s: %s", r.exit(), line, r.err()).contains(r.exit());
      }
    }
    assertThat(runs).isEqualTo(900);
  }

  /** Options that name a file to write: their values are kept inside the test's folder. */
  private static final Set<String> OUTPUTS = Set.of("--output", "--csv", "--graphml", "--dot", "--json",
      "--timeline", "--ops-csv", "--dir", "--tmp-dir", "--predictions");

  /** A value for an output option: a relative one resolved in the test's folder, never the working folder. */
  private static String inTmp(String value) {
    try {
      Path p = Path.of(value);
      return p.isAbsolute() || value.isEmpty() || value.equals("-") ? value : tmp.resolve(p).toString();
    } catch (java.nio.file.InvalidPathException e) {
      return value;
    }
  }

  private static String pick(SplittableRandom random) {
    return values.get(random.nextInt(values.size()));
  }
}
