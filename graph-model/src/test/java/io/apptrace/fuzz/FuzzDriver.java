package io.apptrace.fuzz;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@link FuzzTarget} on COUNT mutated inputs, each under a time limit (an input that
 * takes longer is a hang), and counts crashes, hangs and outcomes. Input {@code i} of seed
 * {@code s} is always the same bytes, so a crash is reproduced by its number; with a crash
 * directory, each crashing or hanging input is also saved there with its stack trace.
 *
 * <p>The benchmark harness is {@code tools/fuzz TARGET COUNT}; the test suite runs a few
 * thousand inputs per target (the {@code Fuzz*Test} classes).
 */
public final class FuzzDriver {
  /** The targets by name, as classes with a no-argument constructor (the node files' is in replay). */
  static final Map<String, String> TARGETS = Map.of(
      "trace", "io.apptrace.trace.TraceFuzzTarget",
      "kineto", "io.apptrace.imports.KinetoFuzzTarget",
      "nsys", "io.apptrace.imports.NsysFuzzTarget",
      "nvprof", "io.apptrace.imports.NvprofFuzzTarget",
      "node", "io.apptrace.node.NodeFileFuzzTarget");

  /** Crashes and hangs kept in detail. */
  private static final int KEEP = 20;
  /** Hangs after which a run gives up (each leaves a thread spinning). */
  private static final int MAX_HANGS = 5;

  /** The state of the run in progress, every ten seconds: what a run stopped early reports. */
  private static volatile Report latest;

  /** A crash or hang: which input, and what it threw. */
  public record Finding(long input, String kind, String trace) {}

  /** What a run found. */
  public record Report(String target, long seed, long inputs, long crashes, long hangs, double seconds,
      long slowestNanos, long slowestInput, Map<String, Long> outcomes, List<Finding> findings) {

    public double inputsPerSecond() {
      return inputs / Math.max(seconds, 1e-9);
    }

    /** The summary line the harness prints. */
    public String summary(Duration timeout) {
      return String.format(Locale.ROOT, "%s: %d inputs (seed %d) in %.1f s, %.0f inputs/s; %d crashes, %d hangs"
          + " (limit %d ms an input); slowest input %.1f ms (#%d)", target, inputs, seed, seconds, inputsPerSecond(),
          crashes, hangs, timeout.toMillis(), slowestNanos / 1e6, slowestInput);
    }

    /** Each finding, for a failed test. */
    public String details() {
      StringBuilder s = new StringBuilder();
      for (Finding f : findings) {
        s.append("input #").append(f.input()).append(" of seed ").append(seed).append(": ").append(f.kind())
            .append('\n').append(f.trace()).append('\n');
      }
      return s.toString();
    }
  }

  private FuzzDriver() {}

  /** The random state input {@code i} of seed {@code seed} is made from. */
  static Random random(long seed, long i) {
    return new Random(seed * 0x9E3779B97F4A7C15L + i * 0xBF58476D1CE4E5B9L);
  }

  /**
   * Runs {@code count} inputs.
   *
   * @param crashDir where to save crashing and hanging inputs, or null
   * @param progress where to print progress every ten seconds, or null
   */
  public static Report run(FuzzTarget target, long count, long seed, Duration timeout, Path crashDir,
      PrintStream progress) throws Exception {
    List<byte[]> seeds = target.seeds();
    Map<String, Long> outcomes = new TreeMap<>();
    Map<String, Long> kinds = new LinkedHashMap<>();
    List<Finding> findings = new ArrayList<>();
    long crashes = 0;
    long hangs = 0;
    long slowest = 0;
    long slowestInput = -1;
    ExecutorService worker = newWorker();
    long start = System.nanoTime();
    long lastReport = start;
    long done = 0;
    try {
      for (long i = 0; i < count; i++) {
        byte[] input = target.mutate(seeds, random(seed, i));
        long t0 = System.nanoTime();
        Future<String> f = worker.submit(() -> {
          try {
            return target.run(input);
          } catch (Exception | Error e) {
            throw e;
          } catch (Throwable t) {
            throw new ExecutionException(t);
          }
        });
        String outcome = null;
        Throwable crash = null;
        boolean hung = false;
        try {
          outcome = await(f, timeout.toNanos());
        } catch (ExecutionException e) {
          crash = e.getCause();
        } catch (TimeoutException e) {
          hung = true;
        }
        long took = System.nanoTime() - t0;
        done++;
        if (took > slowest) {
          slowest = took;
          slowestInput = i;
        }
        if (hung) {
          hangs++;
          f.cancel(true);
          worker.shutdownNow();
          worker = newWorker();
          findings.add(new Finding(i, "hang (over " + timeout.toMillis() + " ms)", ""));
          save(crashDir, target, seed, i, input, "hang");
          if (hangs >= MAX_HANGS) {
            break;
          }
        } else if (crash != null) {
          crashes++;
          String kind = kind(crash);
          if (kinds.merge(kind, 1L, Long::sum) == 1 && findings.size() < KEEP) {
            findings.add(new Finding(i, kind, stack(crash)));
            save(crashDir, target, seed, i, input, stack(crash));
          }
        } else {
          outcomes.merge(outcome, 1L, Long::sum);
        }
        long now = System.nanoTime();
        if (progress != null && now - lastReport > 10_000_000_000L) {
          lastReport = now;
          latest = new Report(target.name(), seed, done, crashes, hangs, (now - start) / 1e9, slowest, slowestInput,
              new TreeMap<>(outcomes), List.copyOf(findings));
          progress.printf(Locale.ROOT, "%s: %d of %d inputs, %.0f inputs/s, %d crashes, %d hangs%n", target.name(),
              done, count, done / ((now - start) / 1e9), crashes, hangs);
        }
      }
    } finally {
      worker.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Report(target.name(), seed, done, crashes, hangs, seconds, slowest, slowestInput, outcomes, findings);
  }

  /** A waiting slice; a slice seen to last longer was a suspension, counted as {@link #SLICE_COUNTED_MAX}. */
  private static final long SLICE = 50_000_000L;
  private static final long SLICE_COUNTED_MAX = 250_000_000L;

  /**
   * The input's outcome, or a TimeoutException once it has run {@code limit} nanoseconds. Time
   * the JVM spent suspended (SIGSTOP, a laptop asleep) is not counted: a long benchmark run can be
   * paused with {@code kill -STOP} while the machine is needed, without false hangs.
   */
  private static String await(Future<String> f, long limit)
      throws ExecutionException, InterruptedException, TimeoutException {
    long counted = 0;
    while (true) {
      long t = System.nanoTime();
      try {
        return f.get(SLICE, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        counted += Math.min(System.nanoTime() - t, SLICE_COUNTED_MAX);
        if (counted >= limit) {
          throw e;
        }
      }
    }
  }

  private static ExecutorService newWorker() {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "fuzz-input");
      t.setDaemon(true);
      return t;
    });
  }

  /** The exception's class and the first frame of apptrace code it went through. */
  private static String kind(Throwable t) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().startsWith("io.apptrace.") && !e.getClassName().startsWith("io.apptrace.fuzz.")) {
        return t.getClass().getName() + " at " + e;
      }
    }
    return t.getClass().getName() + ": " + t.getMessage();
  }

  /** The stack trace, cut to its first 40 lines (a stack overflow's is thousands). */
  private static String stack(Throwable t) {
    StringWriter s = new StringWriter();
    t.printStackTrace(new PrintWriter(s));
    String[] lines = s.toString().split("\n");
    return String.join("\n", java.util.Arrays.copyOf(lines, Math.min(lines.length, 40)));
  }

  private static void save(Path dir, FuzzTarget target, long seed, long i, byte[] input, String why)
      throws IOException {
    if (dir == null) {
      return;
    }
    Files.createDirectories(dir);
    String base = target.name() + "-" + seed + "-" + i;
    Files.write(dir.resolve(base + ".bin"), input);
    Files.writeString(dir.resolve(base + ".txt"), why);
  }

  /** Makes a target by name. */
  static FuzzTarget target(String name) throws ReflectiveOperationException {
    String cls = TARGETS.get(name);
    if (cls == null) {
      throw new IllegalArgumentException("no fuzz target '" + name + "' (targets: "
          + String.join(", ", new TreeMap<>(TARGETS).keySet()) + ")");
    }
    return (FuzzTarget) Class.forName(cls).getDeclaredConstructor().newInstance();
  }

  /**
   * {@code FuzzDriver TARGET COUNT [SEED] [TIMEOUT_MS] [CRASH_DIR]}: prints the summary line and
   * the outcomes; exits 1 when an input crashed or hung.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: FuzzDriver TARGET COUNT [SEED] [TIMEOUT_MS] [CRASH_DIR]");
      System.exit(2);
    }
    long count = Long.parseLong(args[1].replace("_", ""));
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    Duration timeout = Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 2000);
    Path crashDir = args.length > 4 ? Path.of(args[4]) : null;
    Report r;
    // stopped early (Ctrl-C, kill): the figures of the inputs run so far, ten seconds old at most
    Thread early = new Thread(() -> {
      Report l = latest;
      if (l != null) {
        System.out.println("stopped early: " + l.summary(timeout));
        System.out.println("outcomes: " + l.outcomes());
      }
    });
    Runtime.getRuntime().addShutdownHook(early);
    try (FuzzTarget t = target(args[0])) {
      r = run(t, count, seed, timeout, crashDir, System.err);
    }
    Runtime.getRuntime().removeShutdownHook(early);
    System.out.println(r.summary(timeout));
    System.out.println("outcomes: " + r.outcomes());
    if (!r.findings().isEmpty()) {
      System.out.print(r.details());
    }
    System.exit(r.crashes() + r.hangs() == 0 ? 0 : 1);
  }
}
