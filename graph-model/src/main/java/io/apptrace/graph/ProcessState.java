package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.Module;
import io.apptrace.trace.SourceGpu;
import io.apptrace.util.LongIntMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One process while its events are read ({@link Processes}): its memory, the order of its work,
 * and what its calls look up by handle or id.
 */
final class ProcessState {
  final int pid;
  final AddressSpaces spaces = new AddressSpaces();
  final HappensBefore order = new HappensBefore();
  final Map<Long, KernelInfo> kernels = new HashMap<>();
  final Map<Long, Integer> kernelNames = new HashMap<>();
  final Map<Long, KernelAccesses.Layout> layouts = new HashMap<>();
  /** The operation each correlation id issued (for the GPU times CUPTI records later). */
  final LongIntMap byCorrelation = new LongIntMap();
  /** Call-log ids of event handles. */
  final LongIntMap eventIds = new LongIntMap();
  final List<Module> modules = new ArrayList<>();
  /** The GPUs its trace describes, by device index. */
  final Map<Integer, SourceGpu> gpus = new TreeMap<>();
  /** Pointers copied into device variables (cudaMemcpyToSymbol). */
  final SymbolPointers symbolPointers = new SymbolPointers();
  /** Its executable CUDA graphs. */
  final GraphExecutables graphs = new GraphExecutables();

  ProcessState(int pid) {
    this.pid = pid;
  }
}
