package io.apptrace.stats;

import io.apptrace.proto.Alloc;
import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.TraceHeader;
import io.apptrace.trace.ApiNames;
import io.apptrace.trace.KernelNames;
import io.apptrace.trace.NvtxRanges;
import io.apptrace.trace.AddressMap;
import io.apptrace.trace.Copies;
import io.apptrace.trace.Direction;
import io.apptrace.trace.SourceGpu;
import io.apptrace.trace.TraceRecord;
import io.apptrace.trace.Truncation;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Accumulates statistics record by record; memory grows with processes, threads and kernels. */
final class StatsBuilder {
  /** Batch sequence numbers up to which a bit set tracks them (2 MiB at most per thread). */
  private static final int DENSE_SEQS = 1 << 24;

  private final Counts totals = new Counts();
  private final Map<Integer, Proc> procs = new TreeMap<>();
  private final List<String> notes = new ArrayList<>();
  private final NvtxRanges nvtx = new NvtxRanges(
      r -> procs.get(r.pid()).nvtx.range(r.name(), r.domain(), r.closedAtEnd()),
      m -> procs.get(m.pid()).nvtx.mark(m.name(), m.domain()));

  /** Per-process state while reading. */
  private static final class Proc {
    final int pid;
    int ppid;
    List<String> argv = List.of();
    boolean simulated;
    Integer exitCode;
    int signal;
    boolean clean;
    long dropped;
    final Counts counts = new Counts();
    final Map<Integer, Thread> threads = new LinkedHashMap<>();
    final Map<Long, KernelInfo> kernels = new HashMap<>();
    final AddressMap<MemoryKind> memory = new AddressMap<>();
    /** Its GPUs by device index (a forked child's trace repeats its parent's: the first stands). */
    final Map<Integer, SourceGpu> gpus = new TreeMap<>();
    int gpuQueryError;
    final NvtxCounts nvtx = new NvtxCounts();

    Proc(int pid) {
      this.pid = pid;
    }
  }

  private static final class Thread {
    final int tid;
    String name = "";
    final Counts counts = new Counts();
    /** Batch sequence numbers seen below {@link #DENSE_SEQS}. */
    final BitSet seqs = new BitSet();
    /** Those at or above it: a damaged or forged file's, which would make a bit set that large. */
    final Set<Long> sparseSeqs = new HashSet<>();
    long maxSeq = -1;

    Thread(int tid) {
      this.tid = tid;
    }
  }

  void add(TraceRecord r) {
    Proc p = procs.computeIfAbsent(r.pid(), Proc::new);
    Event e = r.event();
    if (r.tid() == 0) {
      collectorRecord(p, e);
      return;
    }
    Thread t = p.threads.computeIfAbsent(r.tid(), Thread::new);
    long seq = r.batchSeq();
    if (seq >= 0 && seq < DENSE_SEQS) {
      t.seqs.set((int) seq);
    } else if (seq >= 0) {
      t.sparseSeqs.add(seq);
    }
    t.maxSeq = Math.max(t.maxSeq, seq); // a sequence number of 2^63 or more (damage) is not counted
    Counts[] scopes = {totals, p.counts, t.counts};
    long end = e.getEntryNs() + e.getDurationNs();
    for (Counts c : scopes) {
      c.event(e.getEntryNs(), end);
    }
    if (e.getApi() != Api.API_UNSPECIFIED) {
      String fn = ApiNames.of(e);
      for (Counts c : scopes) {
        c.call(fn, e.getResult(), e.getDurationNs());
      }
    }
    int profiler = NvtxRanges.profilerCall(e.getApiValue(), e.getApiName());
    if (e.hasAnnotation()) {
      nvtx.annotation(r.pid(), r.tid(), e.getEntryNs(), e.getAnnotation());
    } else if (profiler != 0 && e.getResult() == 0) {
      nvtx.profiler(r.pid(), r.tid(), e.getEntryNs(), end, profiler > 0);
    } else {
      nvtx.seen(r.pid(), r.tid(), end);
    }
    body(p, t, e, scopes);
  }

  private void body(Proc p, Thread t, Event e, Counts[] scopes) {
    if (e.getResult() == 0 && GraphCounting.captured(e)) {
      for (Counts c : scopes) {
        c.captured();
      }
      return; // a node of a graph in the making, not work
    }
    GraphCounting.count(e, scopes);
    switch (e.getBodyCase()) {
      case PROCESS_START -> {
        p.ppid = e.getProcessStart().getPpid();
        p.argv = e.getProcessStart().getArgvList();
        p.simulated = e.getProcessStart().getSimulatedDevice();
      }
      case THREAD_START -> t.name = e.getThreadStart().getName();
      case PROCESS_END -> {
        p.dropped = Math.max(p.dropped, e.getProcessEnd().getDropped());
        p.clean = true;
        if (e.getProcessEnd().getSignal() != 0) {
          p.signal = e.getProcessEnd().getSignal();
        }
      }
      case LOSS -> p.dropped += e.getLoss().getRecords();
      case KERNEL_INFO -> p.kernels.put(e.getKernelInfo().getKernelId(), e.getKernelInfo());
      case DEVICE_INFO -> {
        if (e.getDeviceInfo().getDevice() >= 0) {
          p.gpus.putIfAbsent(e.getDeviceInfo().getDevice(), SourceGpu.of(e.getDeviceInfo()));
        } else if (p.gpuQueryError == 0) {
          p.gpuQueryError = e.getDeviceInfo().getQueryError();
        }
      }
      case LAUNCH -> {
        // Kernel ids are host addresses, unique only within a process: launches are counted per
        // process and thread here, named per process at the end, and summed into the totals.
        if (e.getResult() == 0) {
          p.counts.launch(e.getLaunch().getKernelId());
          t.counts.launch(e.getLaunch().getKernelId());
        }
      }
      case ALLOC -> alloc(p, e, scopes);
      case FREE -> {
        if (e.getResult() == 0) {
          p.memory.remove(e.getFree().getPtr());
          for (Counts c : scopes) {
            c.free();
          }
        }
      }
      case COPY -> {
        if (e.getResult() == 0) {
          copy(p, e, scopes);
        }
      }
      case MEMSET -> {
        if (e.getResult() == 0) {
          for (Counts c : scopes) {
            c.memset(e.getMemset().getBytes());
          }
        }
      }
      case GPU -> gpu(e.getGpu(), scopes);
      case SYMBOL -> {
        long dev = e.getSymbol().getDeviceAddress();
        if (dev != 0 && e.getSymbol().getBytes() >= 0 && p.memory.find(dev).isEmpty()) {
          p.memory.add(dev, e.getSymbol().getBytes(), MemoryKind.DEVICE);
        }
      }
      default -> {
        // other records do not change the counts
      }
    }
  }

  private void alloc(Proc p, Event e, Counts[] scopes) {
    Alloc a = e.getAlloc();
    if (e.getResult() != 0 || a.getPtr() == 0 || a.getBytes() < 0) {
      return; // failed, or a size of 2^63 bytes or more: no allocation any program made
    }
    if (a.getPreviousPtr() != 0) {
      p.memory.remove(a.getPreviousPtr());
    }
    p.memory.add(a.getPtr(), a.getBytes(), a.getKind());
    String kind = Copies.kindName(a.getKind());
    for (Counts c : scopes) {
      c.allocation(kind, a.getBytes());
    }
  }

  private void copy(Proc p, Event e, Counts[] scopes) {
    Copies.Classified c = Copies.classify(e, kindAt(p, e.getCopy().getSrc()), kindAt(p, e.getCopy().getDst()));
    for (Counts s : scopes) {
      s.copy(c.direction(), c.memory(), e.getCopy().getBytes());
    }
  }

  /** A GPU activity record: what the GPU did, with its measured start and end. */
  private static void gpu(io.apptrace.proto.GpuActivity g, Counts[] scopes) {
    if (g.getEndNs() < g.getStartNs()) {
      return; // damaged: a span that ends before it starts measures nothing
    }
    String kind = switch (g.getKind()) {
      case GPU_KERNEL -> "kernel";
      case GPU_MEMSET -> "memset";
      case GPU_MEMCPY_PEER -> "memcpy p2p";
      case GPU_MEMCPY -> switch (g.getCopyKind()) {
        case HOST_TO_DEVICE -> "memcpy h2d";
        case DEVICE_TO_HOST -> "memcpy d2h";
        case DEVICE_TO_DEVICE -> g.getSrcDevice() != g.getDstDevice() && g.getSrcDevice() >= 0
            && g.getDstDevice() >= 0 ? "memcpy p2p" : "memcpy d2d";
        case HOST_TO_HOST -> "memcpy h2h";
        default -> "memcpy";
      };
      default -> null;
    };
    if (kind == null) {
      return;
    }
    long bytes = g.getKind() == io.apptrace.proto.GpuActivityKind.GPU_KERNEL ? 0 : g.getBytes();
    for (Counts c : scopes) {
      c.gpuWork(kind, g.getEndNs() - g.getStartNs(), bytes);
    }
  }

  private static MemoryKind kindAt(Proc p, long address) {
    return p.memory.find(address).map(AddressMap.Region::value).orElse(MemoryKind.MEMORY_KIND_UNSPECIFIED);
  }


  private void collectorRecord(Proc p, Event e) {
    if (e.hasProcessExit()) {
      var x = e.getProcessExit();
      // A signal means no exit status: traces before apptrace took both from waitpid also
      // recorded 128+N as the exit code of a process that signal N ended.
      if (x.getSignal() != 0) {
        p.signal = x.getSignal();
      } else if (x.getExitCode() >= 0) {
        p.exitCode = x.getExitCode();
      }
      p.clean |= x.getClean();
    } else if (e.hasNote()) {
      notes.add(e.getNote().getText());
    } else if (e.hasLoss()) {
      p.dropped += e.getLoss().getRecords();
    }
  }

  TraceStats build(TraceHeader header, Optional<Truncation> truncation) {
    nvtx.finish();
    List<ProcessStats> out = new ArrayList<>();
    for (Proc p : procs.values()) {
      java.util.function.LongFunction<String> names = id -> name(p.kernels.get(id), id);
      p.counts.nameLaunches(names);
      List<ThreadStats> threads = new ArrayList<>();
      long lost = 0;
      for (Thread t : p.threads.values()) {
        t.counts.nameLaunches(names);
        threads.add(new ThreadStats(t.tid, t.name, t.counts));
        lost += t.maxSeq < 0 ? 0 : t.maxSeq - (t.seqs.cardinality() + t.sparseSeqs.size()) + 1;
      }
      boolean hasEvents = !p.threads.isEmpty();
      if (!hasEvents && p.argv.isEmpty() && p.exitCode == null) {
        continue; // a pid seen only in collector notes
      }
      out.add(new ProcessStats(p.pid, p.ppid, p.argv, p.simulated, Optional.ofNullable(p.exitCode),
          p.signal, p.clean, p.dropped, lost, p.counts, threads, List.copyOf(p.gpus.values()), p.gpuQueryError,
          p.nvtx));
    }
    for (Proc p : procs.values()) {
      p.counts.kernelLaunches().forEach(totals::addLaunches);
    }
    return new TraceStats(header, totals, out, truncation, notes);
  }

  private static String name(KernelInfo info, long id) {
    return info == null ? unknownKernel(id) : KernelNames.of(info);
  }

  private static String unknownKernel(long id) {
    return "kernel@0x" + Long.toHexString(id);
  }
}
