package io.apptrace.calibrate;

import static io.apptrace.calibrate.MeasuredYaml.bandwidth;
import static io.apptrace.node.NodeYaml.quote;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The lines of a calibrated node file that describe the machine (beside {@link MeasuredYaml}'s
 * measurements), for a machine no node file describes yet, from what the CUDA runtime and Linux
 * say (docs/CALIBRATE.md): a CPU per NUMA node, the GPUs, a PCIe link from each GPU to its NUMA
 * node's CPU, links between the CPUs, and peer access. What nothing measures is marked ASSUMED.
 */
final class MachineYaml {
  private MachineYaml() {}

  static List<String> lines(CalibrationResult r, String name) {
    CalibrationMachine m = r.machine();
    List<String> out = new ArrayList<>();
    out.add("name: " + name);
    out.add("description: " + quote(m.gpus().size() + " x " + m.gpus().get(0).name() + " on " + m.host()
        + (m.simulated() ? ", the simulated CUDA runtime (not a real machine)" : "") + ", calibrated by apptrace"));
    out.add("sources:");
    out.add("  - \"apptrace calibrate: GPUs from the CUDA runtime (cudaGetDeviceProperties, cudaDeviceGetAttribute,"
        + " cudaMemGetInfo, cudaDeviceCanAccessPeer), NUMA nodes from libnuma, CPUs and PCIe links from Linux\"");
    cpus(r, out);
    gpus(m, out);
    links(r, out);
    List<String> pairs = new ArrayList<>();
    for (int a = 0; a < m.gpus().size(); a++) {
      for (int b = a + 1; b < m.gpus().size(); b++) {
        if (m.peer(a, b) && m.peer(b, a)) {
          pairs.add("[gpu" + a + ", gpu" + b + "]");
        }
      }
    }
    out.add("peer_access: " + (pairs.isEmpty() ? "none" : "{pairs: [" + String.join(", ", pairs) + "]}")
        + "   # cudaDeviceCanAccessPeer");
    return out;
  }

  /** A CPU per NUMA node, {@code cpu0} for the first. */
  private static void cpus(CalibrationResult r, List<String> out) {
    List<Integer> nodes = r.machine().numaNodes();
    out.add("cpus:");
    for (int i = 0; i < nodes.size(); i++) {
      int n = nodes.get(i);
      int cores = HostInfo.cores(n);
      if (cores < 1) {
        cores = Math.max(1, Runtime.getRuntime().availableProcessors() / nodes.size());
      }
      Optional<Double> bw = hostCopy(r, n, n);
      out.add("  - {id: cpu" + i + ", model: " + quote(r.machine().cpuModel()) + ", cores: " + cores + ", numa_node: "
          + n + ", memory_bandwidth: " + quote(bandwidth(bw.orElse(10e9))) + "}");
      out.add(bw.isPresent() ? "    # memory_bandwidth: one thread's cudaMemcpy from pageable to pinned memory of this"
          + " node (Pearson 2018, Algorithm 4.1), 1/G; a lower bound of the memory's" : "    # memory_bandwidth: ASSUMED, not measured");
    }
  }

  private static void gpus(CalibrationMachine m, List<String> out) {
    out.add("gpus:");
    for (CalibrationMachine.Gpu g : m.gpus()) {
      StringBuilder l = new StringBuilder("  - {id: gpu" + g.index() + ", model: " + quote(g.name()) + ", memory: \""
          + g.memoryBytes() + " B\", memory_bandwidth: " + quote(bandwidth(g.memoryBandwidth())) + ", copy_engines: "
          + Math.max(1, g.copyEngines()));
      if (g.sms() > 0) {
        l.append(", sms: ").append(g.sms());
      }
      if (g.clockHz() > 0) {
        l.append(", clock: \"").append(Math.round(g.clockHz() / 1e6)).append(" MHz\"");
      }
      out.add(l.append("}").toString());
    }
    out.add("  # memory_bandwidth: memory clock x 2 x bus width / 8 (cudaDeviceGetAttribute); copy_engines:"
        + " asyncEngineCount");
  }

  /** A PCIe link from each GPU to its NUMA node's CPU, and an SMP link between every two CPUs. */
  private static void links(CalibrationResult r, List<String> out) {
    CalibrationMachine m = r.machine();
    List<Integer> nodes = m.numaNodes();
    out.add("links:");
    for (CalibrationMachine.Gpu g : m.gpus()) {
      String cpu = "cpu" + nodes.indexOf(m.localNuma(g.index()));
      boolean known = g.pcieGeneration() > 0;
      out.add("  - {between: [" + cpu + ", gpu" + g.index() + "], type: pcie, generation: "
          + (known ? g.pcieGeneration() : 4) + ", lanes: " + (known ? g.pcieLanes() : 16) + "}   # " + (known
          ? "the link's current speed and width (sysfs, " + g.pciBusId() + ")" : m.simulated()
          ? "ASSUMED: a simulated device is no PCI device; PCIe 4.0 x16 is the simulator's default profile"
          : "ASSUMED: Linux does not say; check it (lspci -vv)"));
    }
    for (int i = 0; i < nodes.size(); i++) {
      for (int j = i + 1; j < nodes.size(); j++) {
        Optional<Double> a = hostCopy(r, nodes.get(i), nodes.get(j));
        Optional<Double> b = hostCopy(r, nodes.get(j), nodes.get(i));
        Optional<Double> bw = a.isPresent() && b.isPresent() ? Optional.of(Math.min(a.get(), b.get())) : a.or(() -> b);
        out.add("  - {between: [cpu" + i + ", cpu" + j + "], type: smp, bandwidth: " + quote(bandwidth(bw.orElse(10e9)))
            + "}   # " + (bw.isPresent() ? "one thread's copy between the nodes (Pearson 2018, Algorithm 4.1): a lower bound"
            : "ASSUMED, not measured"));
      }
    }
  }

  /** 1/G of the host-to-host copies from NUMA node {@code src} to {@code dst}, if they ran. */
  private static Optional<Double> hostCopy(CalibrationResult r, int src, int dst) {
    return r.series(Benchmark.HOST_TO_PINNED, Target.hosts(src, dst)).map(s -> s.fit().bandwidthBytesPerSec())
        .filter(bw -> bw > 0 && !bw.isInfinite());
  }
}
