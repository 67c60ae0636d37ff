package io.apptrace.trace;

import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.DeviceInfoSource;
import java.util.Objects;

/**
 * A GPU a traced process used, as its trace records it (a DeviceInfo record): what the CUDA
 * runtime or the profiler said of it. Every number is 0 where the source did not give it.
 *
 * @param device the device's index in the process, as the trace's other records number devices
 * @param name as the runtime reports it ("Tesla V100-SXM2-32GB"); empty when not known
 * @param computeMajor compute capability, major
 * @param computeMinor compute capability, minor
 * @param multiprocessors SM count
 * @param clockKhz peak SM clock, kHz
 * @param memoryClockKhz peak memory clock, kHz
 * @param memoryBusWidthBits memory bus width, bits
 * @param statedMemoryBandwidthBytesPerSec device memory bandwidth where the source states it
 *     (Nsight Systems, nvprof), bytes/s; see {@link #memoryBandwidthBytesPerSec()}
 * @param totalMemoryBytes device memory, bytes
 * @param l2CacheBytes L2 cache, bytes
 * @param maxThreadsPerMultiprocessor resident threads per SM
 * @param maxBlocksPerMultiprocessor resident blocks per SM
 * @param registersPerMultiprocessor 32-bit registers per SM
 * @param sharedMemPerMultiprocessorBytes shared memory per SM, bytes
 * @param maxThreadsPerBlock threads per block
 * @param registersPerBlock 32-bit registers per block
 * @param sharedMemPerBlockBytes shared memory per block without the opt-in, bytes
 * @param sharedMemPerBlockOptinBytes shared memory per block with the opt-in, bytes
 * @param warpSize threads per warp
 * @param pciBusId "0000:41:00.0", empty when not known
 * @param source where the facts came from
 * @param queryError captures: the cudaError_t that stopped the runtime's answer part way (0: none)
 */
public record SourceGpu(int device, String name, int computeMajor, int computeMinor, int multiprocessors,
    long clockKhz, long memoryClockKhz, int memoryBusWidthBits, long statedMemoryBandwidthBytesPerSec,
    long totalMemoryBytes, long l2CacheBytes, int maxThreadsPerMultiprocessor, int maxBlocksPerMultiprocessor,
    int registersPerMultiprocessor, long sharedMemPerMultiprocessorBytes, int maxThreadsPerBlock,
    int registersPerBlock, long sharedMemPerBlockBytes, long sharedMemPerBlockOptinBytes, int warpSize,
    String pciBusId, Source source, int queryError) {

  /** Where a trace's device facts came from. */
  public enum Source {
    /** A capture: cudaGetDeviceProperties and cudaDeviceGetAttribute in the traced process. */
    CUDA_RUNTIME("cuda-runtime", "cudaGetDeviceProperties"),
    /** An imported Kineto trace's "deviceProperties". */
    KINETO("kineto-device-properties", "Kineto deviceProperties"),
    /** An imported Nsight Systems export's TARGET_INFO_GPU. */
    NSYS("nsys-target-info-gpu", "Nsight Systems TARGET_INFO_GPU"),
    /** An imported nvprof profile's CUPTI_ACTIVITY_KIND_DEVICE. */
    NVPROF("nvprof-device", "nvprof CUPTI_ACTIVITY_KIND_DEVICE"),
    /** A record that does not say. */
    UNKNOWN("unknown", "unknown source");

    private final String key;
    private final String label;

    Source(String key, String label) {
      this.key = key;
      this.label = label;
    }

    /** The stable key (stats --json). */
    public String key() {
      return key;
    }

    /** For people: what the facts were read from. */
    public String label() {
      return label;
    }

    static Source of(DeviceInfoSource s) {
      return switch (s) {
        case CUDA_RUNTIME -> CUDA_RUNTIME;
        case KINETO_DEVICE_PROPERTIES -> KINETO;
        case NSYS_TARGET_INFO_GPU -> NSYS;
        case NVPROF_DEVICE -> NVPROF;
        default -> UNKNOWN;
      };
    }
  }

  public SourceGpu {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(pciBusId, "pciBusId");
    Objects.requireNonNull(source, "source");
  }

  /** The record's facts. */
  public static SourceGpu of(DeviceInfo d) {
    Objects.requireNonNull(d, "d");
    return new SourceGpu(d.getDevice(), d.getName(), d.getComputeMajor(), d.getComputeMinor(),
        d.getMultiprocessorCount(), Integer.toUnsignedLong(d.getClockRateKhz()),
        Integer.toUnsignedLong(d.getMemoryClockRateKhz()), d.getMemoryBusWidthBits(),
        d.getMemoryBandwidthBytesPerSec(), d.getTotalMemoryBytes(), d.getL2CacheBytes(),
        d.getMaxThreadsPerMultiprocessor(), d.getMaxBlocksPerMultiprocessor(), d.getRegistersPerMultiprocessor(),
        d.getSharedMemPerMultiprocessorBytes(), d.getMaxThreadsPerBlock(), d.getRegistersPerBlock(),
        d.getSharedMemPerBlockBytes(), d.getSharedMemPerBlockOptinBytes(), d.getWarpSize(), d.getPciBusId(),
        Source.of(d.getSource()), d.getQueryError());
  }

  /** The compute capability, "8.0"; empty when not known. */
  public String computeCapability() {
    return computeMajor == 0 ? "" : computeMajor + "." + computeMinor;
  }

  /**
   * The device memory's peak bandwidth, bytes/s: as the source states it, else from the memory
   * clock and bus width (two transfers per clock, as the CUDA samples' deviceQuery computes it);
   * 0 when neither is known.
   */
  public long memoryBandwidthBytesPerSec() {
    if (statedMemoryBandwidthBytesPerSec > 0) {
      return statedMemoryBandwidthBytesPerSec;
    }
    return memoryClockKhz * 1000L * 2L * memoryBusWidthBits / 8L;
  }
}
