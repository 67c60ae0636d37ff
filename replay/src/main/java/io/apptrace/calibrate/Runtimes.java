package io.apptrace.calibrate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Finds the CUDA runtime to calibrate: the system's ({@code libcudart.so.13}) when it sees a GPU,
 * else, saying so loudly, apptrace's simulated runtime; and describes the machine it sees.
 */
final class Runtimes {
  private Runtimes() {}

  /** A runtime with at least one device; {@code simulatedWhy} is null for the system's runtime. */
  record Loaded(Cuda cuda, int devices, String simulatedWhy) {}

  /**
   * The simulated runtime.
   *
   * @throws CalibrationException if it is missing or does not start (a bad APPTRACE_SIM_CONFIG)
   */
  static Loaded simulated(Optional<Path> where, String why) throws CalibrationException {
    Path library = where.orElseThrow(() -> new CalibrationException("cannot find the simulated CUDA runtime: run"
        + " apptrace through its launcher, or set APPTRACE_HOME to the distribution folder"));
    if (!Files.isRegularFile(library)) {
      throw new CalibrationException("the simulated CUDA runtime is not at " + library + "; build apptrace"
          + " (mvn package) or run it through its launcher");
    }
    Cuda cuda;
    try {
      cuda = Cuda.load(library, true);
    } catch (UnsatisfiedLinkError e) {
      throw new CalibrationException("cannot load the simulated CUDA runtime " + library + ": " + e.getMessage());
    }
    try {
      return new Loaded(cuda, cuda.deviceCount(), why);
    } catch (CudaException e) {
      throw new CalibrationException("the simulated CUDA runtime does not start (" + e.getMessage() + "); its"
          + " message above names the problem, such as a line of APPTRACE_SIM_CONFIG");
    }
  }

  /**
   * The system's runtime if it sees a GPU; else the simulated one, after {@code warn} has been told
   * why ("no CUDA GPU here (...): calibrating the simulated runtime instead; the numbers are not real").
   */
  static Loaded systemOrSimulated(Optional<Path> simulator, Consumer<String> warn) throws CalibrationException {
    List<String> tried = new ArrayList<>();
    String why = null;
    for (String candidate : candidates()) {
      Cuda cuda;
      try {
        cuda = Cuda.load(candidate, false);
      } catch (UnsatisfiedLinkError e) {
        tried.add(candidate);
        continue;
      }
      try {
        int n = cuda.deviceCount();
        if (n > 0) {
          return new Loaded(cuda, n, null);
        }
        why = cuda.library + " sees no device";
      } catch (CudaException e) {
        why = cuda.library + ": " + e.getMessage();
      }
      break;
    }
    if (why == null) {
      why = "no CUDA 13 runtime found; looked for " + String.join(", ", tried);
    }
    String reason = "no CUDA GPU here (" + why + ")";
    warn.accept(reason + ": calibrating the simulated runtime instead; the numbers are not real");
    return simulated(simulator, reason);
  }

  /** Where the system's runtime may be: CUDA_HOME, CUDA_PATH, the dynamic linker's search, /usr/local/cuda. */
  private static List<String> candidates() {
    List<String> c = new ArrayList<>();
    for (String env : List.of("CUDA_HOME", "CUDA_PATH")) {
      String home = System.getenv(env);
      if (home != null && !home.isBlank()) {
        c.add(Path.of(home, "lib64", "libcudart.so.13").toString());
      }
    }
    c.add("libcudart.so.13");
    c.add("/usr/local/cuda/lib64/libcudart.so.13");
    return c;
  }

  /** The machine the runtime sees: its GPUs, which can reach which, and the host's NUMA nodes. */
  static CalibrationMachine describe(Loaded rt, Numa numa) throws CalibrationException {
    Cuda cuda = rt.cuda();
    List<CalibrationMachine.Gpu> gpus = new ArrayList<>();
    List<List<Boolean>> peer = new ArrayList<>();
    try {
      for (int d = 0; d < rt.devices(); d++) {
        cuda.setDevice(d);
        String bus = cuda.pciBusId(d);
        // the simulated devices are no PCI devices of this host: do not read another device's sysfs entry
        int node = cuda.simulated ? -1 : HostInfo.numaNode(bus);
        int[] link = cuda.simulated ? new int[2] : HostInfo.pcieLink(bus).orElse(new int[2]);
        double memBw = cuda.attribute(CudaRuntime.ATTR_MEMORY_CLOCK_RATE_KHZ, d) * 1e3 * 2
            * cuda.attribute(CudaRuntime.ATTR_GLOBAL_MEMORY_BUS_WIDTH, d) / 8.0;
        gpus.add(new CalibrationMachine.Gpu(d, cuda.deviceName(d), cuda.totalMemory(), memBw,
            cuda.attribute(CudaRuntime.ATTR_ASYNC_ENGINE_COUNT, d), cuda.attribute(CudaRuntime.ATTR_MULTIPROCESSOR_COUNT, d),
            cuda.attribute(CudaRuntime.ATTR_CLOCK_RATE_KHZ, d) * 1e3, bus, node, link[0], link[1],
            cuda.attribute(CudaRuntime.ATTR_MANAGED_MEMORY, d) != 0));
      }
      for (int a = 0; a < rt.devices(); a++) {
        List<Boolean> row = new ArrayList<>();
        for (int b = 0; b < rt.devices(); b++) {
          row.add(a != b && cuda.canAccessPeer(a, b));
        }
        peer.add(row);
      }
    } catch (CudaException e) {
      throw new CalibrationException("cannot describe the GPUs of " + cuda.library + ": " + e.getMessage());
    }
    String why = rt.simulatedWhy();
    return new CalibrationMachine(HostInfo.hostName(), cuda.library, cuda.simulated, why == null ? "" : why,
        numa.nodes(), numa.note(), HostInfo.cpuModel(), gpus, peer);
  }
}
