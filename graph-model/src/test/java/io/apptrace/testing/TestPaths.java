package io.apptrace.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the build put the native parts and test programs (set by the Maven build). */
public final class TestPaths {
  private TestPaths() {}

  public static Path root() {
    return Path.of(required("apptrace.root"));
  }

  public static Path nativeDir() {
    return Path.of(required("apptrace.native.dir"));
  }

  public static Path nativeTests() {
    return Path.of(required("apptrace.native.tests.dir"));
  }

  public static Path cudaTests() {
    return Path.of(required("apptrace.cuda.tests.dir"));
  }

  /** A CUDA test program built by tracer-native's Makefile; fails clearly when it is missing. */
  public static Path cudaTest(String name) {
    Path p = cudaTests().resolve(name);
    if (!Files.isExecutable(p)) {
      throw new IllegalStateException(p + " is missing: build tracer-native first (mvn install)");
    }
    return p;
  }

  private static String required(String property) {
    String v = System.getProperty(property);
    if (v == null) {
      throw new IllegalStateException("system property " + property + " is not set: run the"
          + " tests through Maven (mvn verify)");
    }
    return v;
  }
}
