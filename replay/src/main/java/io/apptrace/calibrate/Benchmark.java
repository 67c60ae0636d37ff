package io.apptrace.calibrate;

import io.apptrace.node.TransferKind;
import java.util.Optional;

/**
 * The copy benchmarks, by the names and memory kinds of Pearson's data
 * (Pearson's thesis data (github.com/cwpearson/ms-thesis): {@code NUMA_Memcpy_PinnedToGPU} ...), so that their CSV
 * rows read as
 * that data's do. {@code CUDA_Memcpy_DeviceToDevice} is calibrate's own (the thesis did not measure
 * copies within one GPU).
 */
public enum Benchmark {
  /** Pearson 2018, Algorithm 4.3, pinned host memory to a GPU. */
  PINNED_TO_GPU("NUMA_Memcpy_PinnedToGPU", "pinned", "device", TransferKind.PINNED_H2D),
  GPU_TO_PINNED("NUMA_Memcpy_GPUToPinned", "device", "pinned", TransferKind.PINNED_D2H),
  /** Pearson 2018, Algorithm 4.3, pageable (malloc) host memory. */
  HOST_TO_GPU("NUMA_Memcpy_HostToGPU", "pageable", "device", TransferKind.PAGEABLE_H2D),
  GPU_TO_HOST("NUMA_Memcpy_GPUToHost", "device", "pageable", TransferKind.PAGEABLE_D2H),
  /** Pearson 2018, Algorithm 4.3 with write-combined host memory (Algorithm 4.2). */
  WC_TO_GPU("NUMA_Memcpy_WCToGPU", "pinned_writecombined", "device", TransferKind.WRITE_COMBINED_H2D),
  GPU_TO_WC("NUMA_Memcpy_GPUToWC", "device", "pinned_writecombined", TransferKind.WRITE_COMBINED_D2H),
  /** A copy within one GPU's memory (Abdelhafez et al. 2019, sec. IV-C). */
  DEVICE_TO_DEVICE("CUDA_Memcpy_DeviceToDevice", "device", "device", TransferKind.D2D),
  /** Pearson 2018, Algorithm 4.4: between two GPUs with peer access on. */
  GPU_TO_GPU_PEER("CUDA_Memcpy_GPUToGPU", "device", "device", TransferKind.PEER),
  /** Pearson 2018, Algorithm 4.5: between two GPUs with peer access off, staged through a NUMA node. */
  GPU_TO_GPU_STAGED("NUMA_Memcpy_GPUToGPU", "device", "device", TransferKind.STAGED_P2P),
  /** Pearson 2018, Algorithm 5.2 (prefetch): managed memory from a NUMA node to a GPU. */
  PREFETCH_TO_GPU("NUMAUM_Prefetch_HostToGPU", "managed", "managed", TransferKind.PREFETCH_H2D),
  /** Pearson 2018, Algorithm 5.4: managed memory from a GPU to a NUMA node. */
  PREFETCH_TO_HOST("NUMAUM_Prefetch_GPUToHost", "managed", "managed", TransferKind.PREFETCH_D2H),
  /** Pearson 2018, Algorithm 4.1: pageable memory on one NUMA node to pinned memory on another (or the same). */
  HOST_TO_PINNED("NUMA_Memcpy_HostToPinned", "pageable", "pinned", null);

  private final String csvName;
  private final String srcMem;
  private final String dstMem;
  private final TransferKind kind;

  Benchmark(String csvName, String srcMem, String dstMem, TransferKind kind) {
    this.csvName = csvName;
    this.srcMem = srcMem;
    this.dstMem = dstMem;
    this.kind = kind;
  }

  /** The benchmark column of the CSV. */
  public String csvName() {
    return csvName;
  }

  public String srcMem() {
    return srcMem;
  }

  public String dstMem() {
    return dstMem;
  }

  /** The transfer kind it measures (none for host-to-host copies, which the model does not price). */
  public Optional<TransferKind> kind() {
    return Optional.ofNullable(kind);
  }

  /** The kind's name ({@code pinned_h2d}), or {@code h2h}. */
  public String label() {
    return kind == null ? "h2h" : kind.key();
  }

  /** {@code h2d}, {@code d2h}, {@code d2d}, {@code p2p} or {@code h2h}. */
  public String direction() {
    return kind == null ? "h2h" : kind.way().name().toLowerCase(java.util.Locale.ROOT);
  }
}
