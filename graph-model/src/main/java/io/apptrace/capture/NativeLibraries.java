package io.apptrace.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the native parts are: {@code libapptrace.so} (the interposer) and the simulated runtime
 * {@code sim/libcudart.so.13}. The launcher sets {@code apptrace.home} to the distribution
 * folder (whose {@code native/} holds them); tests set {@code apptrace.native.dir} to the build's
 * output. {@code APPTRACE_HOME} in the environment works like {@code apptrace.home}.
 *
 * @param dir the folder holding libapptrace.so and sim/
 */
public record NativeLibraries(Path dir) {

  /** The interposer. */
  public Path interposer() {
    return dir.resolve("libapptrace.so");
  }

  /** The folder of the simulated runtime (for LD_LIBRARY_PATH). */
  public Path simulatorDir() {
    return dir.resolve("sim");
  }

  /** The simulated CUDA runtime. */
  public Path simulator() {
    return simulatorDir().resolve("libcudart.so.13");
  }

  /** Finds the native folder from the system properties or the environment. */
  public static Optional<NativeLibraries> locate() {
    String dir = System.getProperty("apptrace.native.dir");
    if (dir != null && Files.isRegularFile(Path.of(dir, "libapptrace.so"))) {
      return Optional.of(new NativeLibraries(Path.of(dir)));
    }
    String home = System.getProperty("apptrace.home", System.getenv("APPTRACE_HOME"));
    if (home != null && Files.isRegularFile(Path.of(home, "native", "libapptrace.so"))) {
      return Optional.of(new NativeLibraries(Path.of(home, "native")));
    }
    return Optional.empty();
  }
}
