package io.apptrace.calibrate;

import java.util.List;

/**
 * The machine a calibration ran on: host, NUMA nodes, GPUs and the runtime.
 *
 * @param host the host name
 * @param runtime the CUDA runtime library loaded
 * @param simulated whether that is apptrace's simulated runtime: its numbers are not real
 * @param simulatedWhy why the simulated runtime was used ({@code --sim}, or why no GPU was usable)
 * @param numaNodes the NUMA nodes with memory
 * @param numaNote how NUMA nodes were found and bound
 * @param cpuModel the CPU model, as the kernel names it
 * @param gpus the GPUs, in CUDA's numbering
 * @param peer {@code peer.get(a).get(b)}: GPU a can access GPU b's memory
 */
public record CalibrationMachine(String host, String runtime, boolean simulated, String simulatedWhy,
    List<Integer> numaNodes, String numaNote, String cpuModel, List<Gpu> gpus, List<List<Boolean>> peer) {
  public CalibrationMachine {
    numaNodes = List.copyOf(numaNodes);
    gpus = List.copyOf(gpus);
    peer = peer.stream().map(List::copyOf).toList();
  }

  /**
   * A GPU as the runtime describes it.
   *
   * @param memoryBandwidth bytes per second: memory clock x 2 (double data rate) x bus width / 8
   * @param copyEngines {@code asyncEngineCount}
   * @param numaNode the NUMA node the kernel says the GPU's PCI device is on, or -1
   * @param pcieGeneration the PCIe link's generation from the kernel (sysfs), or 0 when unknown
   * @param pcieLanes the link's width, or 0
   */
  public record Gpu(int index, String name, long memoryBytes, double memoryBandwidth, int copyEngines, int sms,
      double clockHz, String pciBusId, int numaNode, int pcieGeneration, int pcieLanes, boolean managedMemory) {}

  /** The NUMA node local to a GPU: the kernel's, else the first. */
  public int localNuma(int gpu) {
    int n = gpus.get(gpu).numaNode();
    return numaNodes.contains(n) ? n : numaNodes.get(0);
  }

  public boolean peer(int a, int b) {
    return peer.get(a).get(b);
  }
}
