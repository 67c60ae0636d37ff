package io.apptrace.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.imports.Importer;
import io.apptrace.node.BundledNodes;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code apptrace import FILE [-o OUT.apptrace]}. */
@Command(
    name = "import",
    header = "Imports a trace another profiler took on a real GPU.",
    description = {
      "Reads an Nsight Systems SQLite export (nsys export --type sqlite), an nvprof SQLite profile"
          + " (nvprof --export-profile FILE.nvvp) or a PyTorch profiler / Kineto JSON trace, gzipped or not"
          + " (the format is detected), and writes an apptrace trace:"
          + " API calls with their CPU times, GPU operations with their measured GPU times, memory kinds,"
          + " streams and correlation. stats, graph and replay then work on it.",
      "These formats carry no addresses: the graph has one value per copy endpoint, and its order"
          + " comes from streams and synchronization (docs/IMPORT.md)."
    })
final class ImportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE",
      description = "An nsys SQLite export, an nvprof .nvvp profile or a Kineto JSON trace.")
  Path file;

  @Option(names = {"-o", "--output"}, paramLabel = "OUT",
      description = "The trace to write (default: FILE's name with .apptrace, in the current directory).")
  Path output;

  @Option(names = "--json", description = "Print what was imported as JSON.")
  boolean json;

  @Option(names = "--tmp-dir", paramLabel = "DIR",
      description = "Where temporary files go while the records are sorted (default: the system's).")
  Path tmpDir;

  @Option(names = "--kineto-default-stream", paramLabel = "ID", defaultValue = "7",
      description = "Kineto traces do not say which stream is the legacy default stream; CUPTI numbers it 7."
          + " Default: ${DEFAULT-VALUE}.")
  long kinetoDefaultStream;

  @Override
  public Integer call() throws IOException {
    java.util.Optional<String> unreadable = io.apptrace.trace.InputFiles.problem(file);
    if (unreadable.isPresent()) {
      throw new UserException("cannot read " + file + ": " + unreadable.get());
    }
    if (!Files.isReadable(file)) {
      throw new UserException("cannot read " + file + ": permission denied");
    }
    Path out = output != null ? output : Path.of(defaultName(file.getFileName().toString()));
    ExportFile.checkFile(out, "-o", "a trace is binary, and import prints its report on standard output");
    Importer.Options o = Importer.Options.defaults().withKinetoDefaultStream(kinetoDefaultStream);
    if (tmpDir != null) {
      if (!Files.isDirectory(tmpDir)) {
        throw new UserException("--tmp-dir " + tmpDir + ": no such directory");
      }
      o = o.withTmpDir(tmpDir);
    }
    long t0 = System.nanoTime();
    Importer.Result r;
    java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
    StatusLine progress = new StatusLine(spec.commandLine().getErr(), System.console() != null);
    java.util.concurrent.ScheduledExecutorService ticker = progress.live() ? java.util.concurrent.Executors
        .newSingleThreadScheduledExecutor(task -> {
          Thread t = new Thread(task, "apptrace-import-progress");
          t.setDaemon(true);
          return t;
        }) : null;
    if (ticker != null) {
      ticker.scheduleAtFixedRate(() -> progress.show(String.format(java.util.Locale.ROOT,
          "apptrace: importing %s: %,d source records read (%,.0f/s)", file.getFileName(), read.get(),
          read.get() / Math.max(1e-9, progress.seconds()))), 250, 250, java.util.concurrent.TimeUnit.MILLISECONDS);
    }
    try {
      r = Importer.run(file, out, o.withProgress(read));
    } catch (Importer.ImportException e) {
      throw new UserException(file + ": " + e.getMessage());
    } catch (java.nio.file.AccessDeniedException e) {
      throw new UserException("cannot write " + out + ": permission denied");
    } catch (IOException e) {
      throw new UserException("cannot import " + file + ": " + e.getMessage());
    } finally {
      if (ticker != null) {
        ticker.shutdownNow();
        try {
          ticker.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      progress.clear();
    }
    double seconds = (System.nanoTime() - t0) * 1e-9;
    PrintWriter pw = spec.commandLine().getOut();
    String node = suggestNode(r);
    if (json) {
      pw.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(json(r, node)));
    } else {
      text(pw, r, seconds, node);
    }
    pw.flush();
    return ExitCodes.OK;
  }

  /** "trace.json.gz" -> "trace.apptrace", "run.nvvp.gz" -> "run.apptrace". */
  static String defaultName(String in) {
    String s = in;
    for (String ext : new String[] {".gz", ".sqlite", ".json", ".nvvp", ".db"}) {
      if (s.toLowerCase(Locale.ROOT).endsWith(ext) && s.length() > ext.length()) {
        s = s.substring(0, s.length() - ext.length());
      }
    }
    return s + ".apptrace";
  }

  /** A bundled node the trace came from: by host name (aliases), else by GPU model. */
  static String suggestNode(Importer.Result r) {
    try {
      for (Node n : BundledNodes.all()) {
        if (!r.host().isEmpty() && (n.aliases().contains(r.host()) || n.name().equals(r.host()))) {
          return n.name();
        }
      }
      for (String note : r.notes()) {
        if (!note.startsWith("GPU ")) {
          continue;
        }
        String model = note.substring(note.indexOf(": ") + 2).split(",")[0].trim();
        for (Node n : BundledNodes.all()) {
          if (!n.gpus().isEmpty() && n.gpus().get(0).model().equalsIgnoreCase(model)) {
            return n.name();
          }
        }
      }
    } catch (NodeFileException e) {
      return null;
    }
    return null;
  }

  private static void text(PrintWriter pw, Importer.Result r, double seconds, String node) {
    pw.printf(Locale.ROOT, "imported %s (%s%s) into %s%n", r.command(), r.format().id(),
        r.host().isEmpty() ? "" : ", host " + r.host(), r.output());
    for (String n : r.notes()) {
      pw.println("  " + n);
    }
    pw.printf(Locale.ROOT, "  %-30s %12s %12s%n", "", "in the file", "imported");
    for (Map.Entry<String, Long> e : r.source().entrySet()) {
      long imported = r.imported().getOrDefault(e.getKey(), -1L);
      pw.printf(Locale.ROOT, "  %-30s %12d %12s%n", e.getKey(), e.getValue(), imported < 0 ? "" : String.valueOf(imported));
    }
    long orphans = r.imported().getOrDefault("GPU work with no traced call", 0L);
    if (orphans > 0) {
      pw.printf(Locale.ROOT, "  %-30s %12s %12d%n", "GPU work with no traced call", "", orphans);
    }
    if (!r.warnings().isEmpty()) {
      pw.println("warnings:");
      r.warnings().forEach((k, v) -> pw.printf(Locale.ROOT, "  %6d x %s%n", v, k));
    }
    pw.printf(Locale.ROOT, "%d host threads, %d trace events, in %.2f s (%.0f events/s)%n", r.threads(), r.events(),
        seconds, r.events() / Math.max(seconds, 1e-9));
    pw.println("the file has no addresses: the graph has one value per copy endpoint; its order comes from streams"
        + " and synchronization.");
    if (node != null) {
      pw.printf("next: apptrace replay %s --node %s --keep-measured   (the self-check: the measured timeline)%n",
          r.output(), node);
    } else {
      pw.printf("next: apptrace replay %s --node NODE   (apptrace nodes lists the bundled nodes)%n", r.output());
    }
  }

  private static ObjectNode json(Importer.Result r, String node) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode o = m.createObjectNode();
    o.put("schema", "apptrace.import/1");
    o.put("input", r.command());
    o.put("output", r.output().toString());
    o.put("format", r.format().id());
    o.put("host", r.host());
    o.putPOJO("notes", r.notes());
    ObjectNode counts = o.putObject("counts");
    r.source().forEach((k, v) -> {
      ObjectNode c = counts.putObject(k);
      c.put("source", v);
      long imported = r.imported().getOrDefault(k, -1L);
      if (imported >= 0) {
        c.put("imported", imported);
      }
    });
    o.put("gpu_work_with_no_traced_call", r.imported().getOrDefault("GPU work with no traced call", 0L));
    ObjectNode w = o.putObject("warnings");
    r.warnings().forEach(w::put);
    if (r.truncatedAt() != null) {
      o.put("truncated_at", r.truncatedAt());
    }
    o.put("threads", r.threads());
    o.put("events", r.events());
    if (node != null) {
      o.put("suggested_node", node);
    }
    return o;
  }
}
