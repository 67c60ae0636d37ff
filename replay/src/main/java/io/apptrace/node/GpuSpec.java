package io.apptrace.node;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * One GPU model of the catalogue (docs/NODE-FORMAT.md, "The GPU catalogue"): the datasheet figures
 * a kernel model needs, each absent where the catalogue does not know it.
 *
 * @param name the name CUDA, nvidia-smi and the profilers print ({@code "Tesla V100-PCIE-32GB"})
 * @param aliases other spellings that name the same model
 * @param architecture {@code pascal}, {@code volta}, ... in lower case
 * @param computeCapability {@code "major.minor"}
 * @param sms streaming multiprocessors
 * @param boostClockHz the datasheet's boost clock
 * @param memoryBytes DRAM size
 * @param memoryBandwidth DRAM bandwidth, bytes per second
 * @param l2Bytes L2 cache size
 * @param peakFlops dense peaks ({@link CataloguePeak}), FLOP per second
 * @param perSm the per-SM residency limits, when known
 * @param tdpWatts board power
 * @param sources the documents the figures come from
 */
public record GpuSpec(String name, List<String> aliases, String architecture, String computeCapability,
    OptionalInt sms, OptionalDouble boostClockHz, OptionalDouble memoryBytes, OptionalDouble memoryBandwidth,
    OptionalDouble l2Bytes, Map<CataloguePeak, Double> peakFlops, Optional<PerSm> perSm, OptionalDouble tdpWatts,
    List<String> sources) {

  public GpuSpec {
    Objects.requireNonNull(name, "name");
    aliases = List.copyOf(aliases);
    peakFlops = peakFlops.isEmpty() ? Map.of()
        : Collections.unmodifiableMap(new EnumMap<>(peakFlops));
    sources = List.copyOf(sources);
  }

  /**
   * How many thread blocks, threads, registers and bytes of shared memory one SM holds at once
   * (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability").
   */
  public record PerSm(int threads, int blocks, int registers, long sharedMemoryBytes) {}

  /** The dense peak {@code precision}, FLOP per second, if the catalogue has it. */
  public OptionalDouble peak(CataloguePeak precision) {
    Double v = peakFlops.get(precision);
    return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
  }

  /** Whether {@code typed} names this model: its name or an alias, ignoring case. */
  public boolean isNamed(String typed) {
    if (name.equalsIgnoreCase(typed.strip())) {
      return true;
    }
    for (String a : aliases) {
      if (a.equalsIgnoreCase(typed.strip())) {
        return true;
      }
    }
    return false;
  }
}
