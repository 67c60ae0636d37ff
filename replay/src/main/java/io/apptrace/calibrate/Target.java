package io.apptrace.calibrate;

/**
 * Where a benchmark copies: a NUMA node and a GPU, two GPUs (staged through a NUMA node when peer
 * access is off), one GPU, or two NUMA nodes. -1 where an end is not there.
 *
 * @param numa the NUMA node of the host memory (the staging node of a copy between GPUs)
 * @param gpu the GPU (the source of a copy between GPUs)
 * @param otherGpu the destination of a copy between GPUs
 * @param otherNuma the destination NUMA node of a host-to-host copy
 */
public record Target(int numa, int gpu, int otherGpu, int otherNuma) {
  static Target host(int numa, int gpu) {
    return new Target(numa, gpu, -1, -1);
  }

  static Target device(int gpu) {
    return new Target(-1, gpu, -1, -1);
  }

  static Target gpus(int numa, int src, int dst) {
    return new Target(numa, src, dst, -1);
  }

  static Target hosts(int src, int dst) {
    return new Target(src, -1, -1, dst);
  }

  /** {@code numa 0 -> gpu 1}, {@code gpu 0 -> gpu 1 via numa 0}, ... as the benchmark's direction reads. */
  public String describe(Benchmark b) {
    return switch (b.direction()) {
      case "h2d" -> "numa " + numa + " -> gpu " + gpu;
      case "d2h" -> "gpu " + gpu + " -> numa " + numa;
      case "d2d" -> "gpu " + gpu;
      case "p2p" -> "gpu " + gpu + " -> gpu " + otherGpu + (numa >= 0 ? " via numa " + numa : "");
      default -> "numa " + numa + " -> numa " + otherNuma;
    };
  }
}
