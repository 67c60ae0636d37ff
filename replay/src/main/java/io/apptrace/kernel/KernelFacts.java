package io.apptrace.kernel;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * What a trace may know of one kernel execution; anything may be unknown. Build one with {@link
 * #of(String, double)} or {@link #named(String)} and the {@code with...} methods.
 *
 * @param name the kernel's name as the profiler printed it (mangled or demangled), or empty
 * @param grid its grid (blocks)
 * @param block its block (threads)
 * @param registersPerThread registers per thread, when the profiler recorded them
 * @param sharedMemoryBytes static plus dynamic shared memory per block, when recorded
 * @param bytes the DRAM bytes it moves: at least the bytes its pointer arguments reach (captured
 *     traces), or the bytes its inputs and outputs occupy
 * @param flops its floating-point operations, when known
 * @param measuredSeconds its measured GPU time on the GPU the trace was taken on
 * @param floorSeconds the part of the measured time that is a fixed cost and scales with neither
 *     bandwidth nor FLOP/s (launch, and in event-timed data the host's dispatch); {@link
 *     KernelTimeModel#DEFAULT_FLOOR_SECONDS} when unknown
 */
public record KernelFacts(Optional<String> name, Optional<Dim3> grid, Optional<Dim3> block,
    OptionalInt registersPerThread, OptionalDouble sharedMemoryBytes, OptionalDouble bytes, OptionalDouble flops,
    OptionalDouble measuredSeconds, OptionalDouble floorSeconds) {

  public KernelFacts {
    positive(bytes, "bytes");
    positive(flops, "flops");
    positive(measuredSeconds, "measuredSeconds");
    if (floorSeconds.isPresent() && !(floorSeconds.getAsDouble() >= 0)) {
      throw new IllegalArgumentException("floorSeconds must be zero or more: " + floorSeconds.getAsDouble());
    }
    if (sharedMemoryBytes.isPresent() && !(sharedMemoryBytes.getAsDouble() >= 0)) {
      throw new IllegalArgumentException("sharedMemoryBytes must be zero or more: " + sharedMemoryBytes.getAsDouble());
    }
  }

  /** Zero is allowed: a profiler may report a 0 ns kernel, a capture a kernel that reaches no bytes. */
  private static void positive(OptionalDouble v, String what) {
    if (v.isPresent() && !(v.getAsDouble() >= 0 && Double.isFinite(v.getAsDouble()))) {
      throw new IllegalArgumentException(what + " must be zero or more: " + v.getAsDouble());
    }
  }

  /** A kernel of which only the name is known (null or blank: no name). */
  public static KernelFacts named(String name) {
    return new KernelFacts(name == null || name.isBlank() ? Optional.empty() : Optional.of(name), Optional.empty(),
        Optional.empty(), OptionalInt.empty(), OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(),
        OptionalDouble.empty(), OptionalDouble.empty());
  }

  /** A kernel with its name and measured time. */
  public static KernelFacts of(String name, double measuredSeconds) {
    return named(name).withMeasuredSeconds(measuredSeconds);
  }

  /** Its class, from its name. */
  public KernelClass kernelClass() {
    return KernelClass.of(name.orElse(null));
  }

  public KernelFacts withLaunch(Dim3 grid, Dim3 block) {
    return new KernelFacts(name, Optional.of(grid), Optional.of(block), registersPerThread, sharedMemoryBytes, bytes,
        flops, measuredSeconds, floorSeconds);
  }

  public KernelFacts withResources(int registersPerThread, double sharedMemoryBytes) {
    return new KernelFacts(name, grid, block, OptionalInt.of(registersPerThread), OptionalDouble.of(sharedMemoryBytes),
        bytes, flops, measuredSeconds, floorSeconds);
  }

  public KernelFacts withBytes(double bytes) {
    return new KernelFacts(name, grid, block, registersPerThread, sharedMemoryBytes, OptionalDouble.of(bytes), flops,
        measuredSeconds, floorSeconds);
  }

  public KernelFacts withFlops(double flops) {
    return new KernelFacts(name, grid, block, registersPerThread, sharedMemoryBytes, bytes, OptionalDouble.of(flops),
        measuredSeconds, floorSeconds);
  }

  public KernelFacts withMeasuredSeconds(double seconds) {
    return new KernelFacts(name, grid, block, registersPerThread, sharedMemoryBytes, bytes, flops,
        OptionalDouble.of(seconds), floorSeconds);
  }

  public KernelFacts withFloorSeconds(double seconds) {
    return new KernelFacts(name, grid, block, registersPerThread, sharedMemoryBytes, bytes, flops, measuredSeconds,
        OptionalDouble.of(seconds));
  }
}
