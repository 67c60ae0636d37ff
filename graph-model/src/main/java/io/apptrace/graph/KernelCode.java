package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.Module;
import io.apptrace.symbols.PtxSources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each kernel's code says of its pointers ({@link PtxParamUse}), from the PTX in the
 * binaries of the process's modules ({@link PtxSources}), once per kernel. A kernel whose PTX
 * cannot be had is noted in the {@link KernelCoverage} with why, and treated as before: its
 * non-const pointers are taken to be written.
 */
final class KernelCode {
  private final Map<Integer, PtxSources> sources = new HashMap<>();
  private final KernelCoverage coverage;

  KernelCode(KernelCoverage coverage) {
    this.coverage = coverage;
  }

  /**
   * The uses of kernel {@code info}'s parameters and variables in process {@code pid} (whose
   * modules are {@code modules}), or null when its code could not be read.
   */
  PtxParamUse.Uses of(int pid, List<Module> modules, KernelInfo info, String name) {
    PtxSources.Entry e = sources.computeIfAbsent(pid, p -> new PtxSources(modules))
        .entry(info.getKernelId(), info.getMangledName());
    if (e.text().isEmpty()) {
      coverage.notAnalysed(name, e.reason());
      return null;
    }
    try {
      PtxParamUse.Uses u = PtxParamUse.of(e.text().get());
      coverage.analysed();
      return u;
    } catch (RuntimeException damaged) { // PTX this analysis does not understand: not a failure
      coverage.notAnalysed(name, "its PTX could not be analysed (" + damaged + ")");
      return null;
    }
  }
}
