package io.apptrace.topo;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What NVML says about one NVIDIA GPU, as far as a node file needs it.
 *
 * @param index NVML's device index (PCI bus order)
 * @param name the product name, e.g. {@code Tesla V100-SXM2-16GB}
 * @param busId {@code 0000:3b:00.0}, lower case, as /sys and hwloc write it
 * @param memoryBytes the memory NVML reports (a little less than the datasheet's)
 * @param maxPcieGeneration the highest PCIe generation the GPU and the system allow; 0 if unknown
 * @param maxPcieWidth likewise the lane count; 0 if unknown
 * @param nvlinkGeneration the NVLink generation of the GPU's architecture; 0 if unknown or none
 * @param nvlinks its active NVLinks, one per brick
 * @param peers the indices of the GPUs it can read from with peer access
 * @param multiGpuBoard whether it shares a board with another GPU (a K80, say)
 */
public record GpuFacts(int index, String name, String busId, OptionalLong memoryBytes, int maxPcieGeneration,
    int maxPcieWidth, int nvlinkGeneration, List<NvLink> nvlinks, Set<Integer> peers, boolean multiGpuBoard) {
  public GpuFacts {
    nvlinks = List.copyOf(nvlinks);
    peers = Set.copyOf(peers);
  }

  /** What is at the other end of an NVLink. */
  public enum Remote { GPU, CPU, SWITCH, UNKNOWN }

  /**
   * One active NVLink brick.
   *
   * @param remoteBusId the PCI bus id at the other end (a GPU's, an NVSwitch's, a CPU's NVLink unit's)
   */
  public record NvLink(int link, Remote remote, String remoteBusId) {}
}
