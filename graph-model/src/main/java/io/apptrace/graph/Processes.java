package io.apptrace.graph;

import io.apptrace.proto.Event;
import io.apptrace.proto.Module;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TraceRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The processes and host threads of a trace while its events are read, looked up by pid and tid
 * on every event: the last process and the recent threads without a hash map lookup.
 */
final class Processes {
  private final Map<Integer, ProcessState> procs = new HashMap<>();
  private final Map<Long, ThreadState> threads = new HashMap<>();
  /** The threads last looked up, by a hash of pid and tid. */
  private final ThreadState[] recentThreads = new ThreadState[16];
  private int lastPid = -1;
  private ProcessState lastProc;

  ProcessState proc(int pid) {
    if (pid != lastPid) {
      lastProc = procs.computeIfAbsent(pid, ProcessState::new);
      lastPid = pid;
    }
    return lastProc;
  }

  ThreadState thread(int pid, int tid) {
    long key = ((long) pid << 32) | (tid & 0xffffffffL);
    int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 60); // Fibonacci hashing: all bits count
    ThreadState t = recentThreads[slot];
    return t != null && t.tid == tid && t.pid == pid ? t : lookUpThread(pid, tid, key, slot);
  }

  private ThreadState lookUpThread(int pid, int tid, long key, int slot) {
    ThreadState t = threads.get(key);
    if (t == null) {
      t = new ThreadState(pid, tid, proc(pid));
      threads.put(key, t);
    }
    recentThreads[slot] = t;
    return t;
  }

  /** A record that must be known before events are processed (kernel layouts, modules, GPUs). */
  void define(TraceRecord r) {
    ProcessState p = proc(r.pid());
    Event e = r.event();
    if (e.hasKernelInfo()) {
      p.kernels.put(e.getKernelInfo().getKernelId(), e.getKernelInfo());
    } else if (e.hasModules()) {
      p.modules.addAll(e.getModules().getModulesList());
    } else if (e.hasDeviceInfo() && e.getDeviceInfo().getDevice() >= 0) {
      // a forked child's trace repeats its parent's: the first record of a device stands
      p.gpus.putIfAbsent(e.getDeviceInfo().getDevice(), SourceGpu.of(e.getDeviceInfo()));
    }
  }

  /** Each process's modules, by pid. */
  Map<Integer, List<Module>> modules() {
    Map<Integer, List<Module>> modules = new HashMap<>();
    procs.forEach((pid, p) -> modules.put(pid, List.copyOf(p.modules)));
    return modules;
  }

  /** The GPUs each process's trace describes, by pid (processes without any left out). */
  Map<Integer, Map<Integer, SourceGpu>> gpus() {
    Map<Integer, Map<Integer, SourceGpu>> gpus = new HashMap<>();
    procs.forEach((pid, p) -> {
      if (!p.gpus.isEmpty()) {
        gpus.put(pid, p.gpus);
      }
    });
    return gpus;
  }

  /** Executable CUDA graphs the processes' traces describe. */
  int describedGraphs() {
    int executables = 0;
    for (ProcessState p : procs.values()) {
      executables += p.graphs.described();
    }
    return executables;
  }
}
