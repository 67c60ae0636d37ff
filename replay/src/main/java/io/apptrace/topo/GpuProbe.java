package io.apptrace.topo;

import java.util.List;
import java.util.Optional;

/**
 * Lists the machine's GPUs. {@link Nvml} asks NVML; tests give facts of their own, since most
 * machines that build apptrace have no GPU.
 */
public interface GpuProbe {
  /** The GPUs, or an empty list with a note saying why there are none. */
  Report probe();

  /**
   * What a probe found.
   *
   * @param library what answered, e.g. {@code NVML (driver 535.104.05)}; empty when nothing could be asked
   * @param notes what the user should know: a missing library and which package has it, a failed call
   */
  record Report(List<GpuFacts> gpus, Optional<String> library, List<String> notes) {
    public Report {
      gpus = List.copyOf(gpus);
      notes = List.copyOf(notes);
    }
  }
}
