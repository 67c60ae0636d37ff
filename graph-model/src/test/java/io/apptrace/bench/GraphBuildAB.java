package io.apptrace.bench;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Two builds of the graph code timed in one JVM, round after round in turn (A B B A ...), so that
 * both see the same moments of a machine whose speed drifts by a factor of two over minutes.
 * Each build is loaded from its own classpath by its own class loader (its own protobuf and
 * JGraphT too). Usage: GraphBuildAB CLASSPATH_A CLASSPATH_B TRACE ROUNDS; prints each round's
 * seconds and, at the end, the medians and their ratio.
 */
public final class GraphBuildAB {
  private GraphBuildAB() {}

  /** One build of the code: {@code DvdgBuilder.build(trace).graph().edgeSet().size()}. */
  private record Build(String label, Method build, Method graph) {
    static Build load(String label, String classpath) throws Exception {
      List<URL> urls = new ArrayList<>();
      for (String p : classpath.split(":")) {
        if (!p.isEmpty()) {
          urls.add(Path.of(p).toUri().toURL());
        }
      }
      ClassLoader loader = new URLClassLoader(label, urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
      Class<?> builder = Class.forName("io.apptrace.graph.DvdgBuilder", true, loader);
      Class<?> dvdg = Class.forName("io.apptrace.graph.Dvdg", true, loader);
      return new Build(label, builder.getMethod("build", Path.class), dvdg.getMethod("graph"));
    }

    double seconds(Path trace) throws Exception {
      System.gc();
      long t0 = System.nanoTime();
      Object g = build.invoke(null, trace);
      Object view = graph.invoke(g);
      int edges = edgeCount(view);
      double s = (System.nanoTime() - t0) / 1e9;
      if (edges <= 0) {
        throw new IllegalStateException(label + " built no edges");
      }
      return s;
    }

    private static int edgeCount(Object view) throws Exception {
      Object edges = view.getClass().getMethod("edgeSet").invoke(view);
      return ((java.util.Set<?>) edges).size();
    }
  }

  public static void main(String[] args) throws Exception {
    Build a = Build.load("A", args[0]);
    Build b = Build.load("B", args[1]);
    Path trace = Path.of(args[2]);
    int rounds = Integer.parseInt(args[3]);
    double[] ta = new double[rounds];
    double[] tb = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      boolean aFirst = r % 2 == 0;
      if (aFirst) {
        ta[r] = a.seconds(trace);
        tb[r] = b.seconds(trace);
      } else {
        tb[r] = b.seconds(trace);
        ta[r] = a.seconds(trace);
      }
      System.out.printf(Locale.ROOT, "round %d: A %.2f s, B %.2f s%n", r + 1, ta[r], tb[r]);
    }
    int skip = Math.min(2, rounds - 1); // the first rounds warm the JIT up
    double ma = median(Arrays.copyOfRange(ta, skip, rounds));
    double mb = median(Arrays.copyOfRange(tb, skip, rounds));
    System.out.printf(Locale.ROOT, "median of rounds %d-%d: A %.2f s, B %.2f s; B/A %.3f%n", skip + 1, rounds, ma,
        mb, mb / ma);
  }

  private static double median(double[] v) {
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
