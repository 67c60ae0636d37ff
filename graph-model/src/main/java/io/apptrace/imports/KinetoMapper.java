package io.apptrace.imports;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What each Kineto event means: runtime and driver calls, kernels, memcpys and memsets (their
 * direction and memory kinds read from the name, "Memcpy HtoD (Pageable -> Device)"),
 * {@code cuda_sync} records, flow events, process and thread names, and the file's GPUs and
 * distributed run. Both category-name styles are read: the current ({@code cuda_runtime},
 * {@code cuda_driver}, {@code kernel}, {@code gpu_memcpy}, {@code gpu_memset}, {@code cuda_sync})
 * and the older ({@code Runtime}, {@code Driver}, {@code Kernel}, {@code Memcpy}, {@code Memset}).
 * Calls and GPU work are joined by {@code args.correlation}; an event without it waits for the
 * {@link KinetoFlowJoin}. GPU tracks are pid = device, tid = stream where args do not say. User
 * annotations ({@code user_annotation}: {@code record_function} ranges, {@code ProfilerStep#N})
 * become NVTX ranges of their thread.
 */
final class KinetoMapper {
  /** Counts of what the file holds, by kind, as the import report shows them. */
  final Map<String, Long> source = new LinkedHashMap<>();
  private final ImportAssembler out;
  private final KinetoFlowJoin flows;
  /** The file's stream that CUPTI numbers as the legacy default stream (see docs/IMPORT.md). */
  private final long defaultStream;
  private boolean sawDefaultStream;
  /** Calls per pid: the process with the most is the one GPU work with no call belongs to. */
  private final Map<Long, Long> pidVotes = new HashMap<>();
  /** Categories seen, for the message when there is nothing to import. */
  private final Map<String, Boolean> categories = new TreeMap<>();
  private final List<String> gpuNotes = new ArrayList<>();

  private static final Pattern MEMCPY = Pattern.compile("Memcpy\\s+(\\w+)(?:\\s*\\((\\w+)\\s*->\\s*(\\w+)\\))?");
  private static final Pattern MEMSET = Pattern.compile("Memset(?:\\s*\\((\\w+)\\))?");

  KinetoMapper(ImportAssembler out, KinetoFlowJoin flows, long defaultStream) {
    this.out = out;
    this.flows = flows;
    this.defaultStream = defaultStream;
    for (String k : List.of("runtime calls", "driver calls", "kernels", "memcpys", "memsets", "cuda_sync records",
        "flow events")) {
      source.put(k, 0L);
    }
  }

  /** Whether events of a category become part of the trace (or link parts of it). */
  static boolean imported(String cat) {
    return switch (cat) {
      case "cuda_runtime", "Runtime", "cuda_driver", "Driver", "kernel", "Kernel", "gpu_memcpy", "Memcpy",
          "gpu_memset", "Memset", "cuda_sync", "ac2g", "async_cpu_to_gpu", "user_annotation" -> true;
      default -> false;
    };
  }

  /** Calls, kernels, memcpys and memsets read. */
  long cudaEvents() {
    return source.get("runtime calls") + source.get("driver calls") + source.get("kernels") + source.get("memcpys")
        + source.get("memsets");
  }

  /** The categories seen (at most 64). */
  Set<String> categories() {
    return categories.keySet();
  }

  void event(KinetoEvent e) {
    if (e.cat != null && categories.size() < 64) {
      categories.putIfAbsent(e.cat, true);
    }
    if ("M".equals(e.ph)) {
      metadata(e);
      return;
    }
    if (e.cat == null) {
      return;
    }
    switch (e.cat) {
      case "cuda_runtime", "Runtime" -> callEvent(e, "runtime calls");
      case "cuda_driver", "Driver" -> callEvent(e, "driver calls");
      case "kernel", "Kernel" -> gpuEvent(e, GpuActivityKind.GPU_KERNEL, "kernels");
      case "gpu_memcpy", "Memcpy" -> gpuEvent(e, GpuActivityKind.GPU_MEMCPY, "memcpys");
      case "gpu_memset", "Memset" -> gpuEvent(e, GpuActivityKind.GPU_MEMSET, "memsets");
      case "cuda_sync" -> syncEvent(e);
      case "user_annotation" -> userAnnotation(e);
      // the GPU-side span of a user annotation, on a stream's track: the host range is the one
      // imported, so these are counted only (read no further than their "cat")
      case "gpu_user_annotation" -> count("GPU user annotations");
      case "ac2g", "async_cpu_to_gpu" -> {
        if ("s".equals(e.ph) || "f".equals(e.ph)) {
          count("flow events");
        }
      }
      default -> { }
    }
  }

  /** Once every event is read: the process that GPU work with no call belongs to (the one with most calls). */
  void finishEvents() {
    long mainPid = pidVotes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(0L);
    out.processPid(0, mainPid);
  }

  /** After the flow pass, if any: what the trace says of its streams and machine. */
  void finish() {
    out.defaultStreamKind(StreamKind.NON_BLOCKING);
    for (String n : gpuNotes) {
      out.note(n, "info");
    }
  }

  private void count(String k) {
    source.merge(k, 1L, Long::sum);
  }

  private void metadata(KinetoEvent e) {
    if (e.metaName == null || !e.tidNumeric && "thread_name".equals(e.name)) {
      return;
    }
    if ("process_name".equals(e.name) && e.pidNumeric) {
      out.processName(e.pid, e.metaName);
    } else if ("thread_name".equals(e.name) && e.pidNumeric) {
      out.threadName(e.pid, e.tid, e.metaName);
    }
  }

  private boolean complete(KinetoEvent e, String what) {
    if (!"X".equals(e.ph) || e.ts == Long.MIN_VALUE || e.dur < 0) {
      out.warn(what + " that are not complete events with ts and dur (ignored)");
      return false;
    }
    return true;
  }

  private void callEvent(KinetoEvent e, String what) {
    count(what);
    if (!complete(e, what) || e.name == null) {
      return;
    }
    pidVotes.merge(e.pid, 1L, Long::sum);
    if (e.correlation < 0) {
      flows.deferCall(e.pid, e.tid, e.ts, e.dur, e.name);
      return;
    }
    out.call(0, e.correlation, e.pid, e.tid, e.ts, e.dur, e.name, 0);
  }

  /**
   * A {@code record_function} range (or the profiler's own {@code ProfilerStep#N}) on its host
   * thread: an NVTX range of the default domain named as the event is.
   */
  private void userAnnotation(KinetoEvent e) {
    count("user annotations");
    if (!complete(e, "user annotations") || e.name == null) {
      return;
    }
    out.range(e.pid, e.tid, e.ts, e.ts + e.dur, e.name, "", 0);
  }

  private void gpuEvent(KinetoEvent e, GpuActivityKind kind, String what) {
    count(what);
    if (!complete(e, what)) {
      return;
    }
    GpuOpRow r = out.gpuOp().proc(0).corr(Math.max(e.correlation, 0)).kind(kind).startNs(e.ts).endNs(e.ts + e.dur)
        .device(e.device >= 0 ? e.device : e.pidNumeric ? e.pid : 0);
    long stream = e.stream != Long.MIN_VALUE ? e.stream : e.tid;
    r.stream(stream);
    if (stream == defaultStream && !sawDefaultStream) {
      sawDefaultStream = true;
      out.streamKind(0, stream, StreamKind.LEGACY);
    }
    r.context(e.context).bytes(Math.max(e.bytes, 0)).graph(e.graphId, e.graphNodeId);
    String name = e.name == null ? "" : e.name;
    switch (kind) {
      case GPU_KERNEL -> kernel(e, name, r);
      case GPU_MEMCPY -> memcpy(name, r);
      case GPU_MEMSET -> {
        Matcher m = MEMSET.matcher(name);
        MemoryKind k = m.lookingAt() ? memoryKind(m.group(1)) : MemoryKind.MEMORY_KIND_UNSPECIFIED;
        r.memsetKind(k == MemoryKind.MEMORY_KIND_UNSPECIFIED ? MemoryKind.DEVICE : k);
      }
      default -> { }
    }
    if (e.correlation < 0) {
      flows.deferGpu(e.pid, e.tid, e.ts, e.dur, name, r.copy());
      return;
    }
    out.gpu(r);
  }

  private void kernel(KinetoEvent e, String name, GpuOpRow r) {
    r.nameId(out.strings.id(name));
    long[] g = e.hasGrid ? e.grid : new long[] {1, 1, 1};
    long[] b = e.hasBlock ? e.block : new long[] {1, 1, 1};
    r.grid(g[0], g[1], g[2]).block(b[0], b[1], b[2]).sharedMemBytes(e.sharedMemory)
        .resources((e.registers & 0xffff) | (e.hasSharedMemory ? GpuOpRow.RES_TOTAL : 0));
    if (!Float.isNaN(e.occupancy)) {
      r.occupancyPct(e.occupancy);
    }
    if (!Float.isNaN(e.blocksPerSm) && !Float.isNaN(e.warpsPerSm)) {
      r.perSm(e.blocksPerSm, e.warpsPerSm);
    }
  }

  private void memcpy(String name, GpuOpRow r) {
    Matcher m = MEMCPY.matcher(name);
    CopyKind ck = CopyKind.COPY_KIND_UNSPECIFIED;
    MemoryKind src = MemoryKind.MEMORY_KIND_UNSPECIFIED;
    MemoryKind dst = MemoryKind.MEMORY_KIND_UNSPECIFIED;
    if (m.lookingAt()) {
      ck = copyKind(m.group(1));
      src = memoryKind(m.group(2));
      dst = memoryKind(m.group(3));
      if (m.group(1).equals("PtoP")) {
        r.kind(GpuActivityKind.GPU_MEMCPY_PEER);
      }
    } else {
      out.warn("memcpys whose name gives no direction (taken as device to device)");
      ck = CopyKind.DEVICE_TO_DEVICE;
    }
    r.copy(ck, src, dst);
  }

  private static MemoryKind memoryKind(String s) {
    if (s == null) {
      return MemoryKind.MEMORY_KIND_UNSPECIFIED;
    }
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "pageable" -> MemoryKind.PAGEABLE;
      case "pinned" -> MemoryKind.PINNED;
      case "device", "devicestatic", "device_static" -> MemoryKind.DEVICE;
      case "managed", "managedstatic", "managed_static" -> MemoryKind.MANAGED;
      case "array" -> MemoryKind.ARRAY;
      default -> MemoryKind.MEMORY_KIND_UNSPECIFIED;
    };
  }

  private static CopyKind copyKind(String s) {
    return switch (s) {
      case "HtoD", "HtoA" -> CopyKind.HOST_TO_DEVICE;
      case "DtoH", "AtoH" -> CopyKind.DEVICE_TO_HOST;
      case "HtoH" -> CopyKind.HOST_TO_HOST;
      case "DtoD", "DtoA", "AtoD", "AtoA", "PtoP" -> CopyKind.DEVICE_TO_DEVICE;
      default -> CopyKind.COPY_KIND_UNSPECIFIED;
    };
  }

  private void syncEvent(KinetoEvent e) {
    count("cuda_sync records");
    if (e.correlation < 0 || e.syncKind == null) {
      out.warn("cuda_sync records without a correlation id or kind (ignored)");
      return;
    }
    int type = switch (e.syncKind) {
      case "Event Sync" -> SyncRow.TYPE_EVENT;
      case "Stream Wait Event" -> SyncRow.TYPE_STREAM_WAIT;
      case "Stream Sync" -> SyncRow.TYPE_STREAM;
      case "Context Sync" -> SyncRow.TYPE_CONTEXT;
      default -> SyncRow.TYPE_UNKNOWN;
    };
    long stream = e.stream != Long.MIN_VALUE && e.stream >= 0 ? e.stream : -1;
    // an event is named by the correlation id of the cudaEventRecord that last recorded it
    long record = e.waitOnRecordCorr > 0 ? e.waitOnRecordCorr : 0;
    out.sync(0, e.correlation, type, stream, record, e.waitOnStream, e.device);
    if (record > 0 && e.waitOnStream >= 0) {
      out.eventRecord(0, record, e.waitOnStream, record, e.device);
    }
  }

  /** The file's {@code deviceProperties}: one GPU, its scalar fields by name. */
  void deviceProperties(Map<String, String> d) {
    StringBuilder s = new StringBuilder("GPU ").append(d.getOrDefault("id", "?")).append(": ")
        .append(d.getOrDefault("name", "unknown"));
    if (d.containsKey("numSms")) {
      s.append(", ").append(d.get("numSms")).append(" SMs");
    }
    if (d.containsKey("totalGlobalMem")) {
      try {
        long bytes = Long.parseLong(d.get("totalGlobalMem"));
        s.append(String.format(Locale.ROOT, ", %.1f GiB", bytes / (double) (1L << 30)));
      } catch (NumberFormatException ignored) {
        // leave it out
      }
    }
    if (d.containsKey("computeMajor")) {
      s.append(", compute capability ").append(d.get("computeMajor")).append('.')
          .append(d.getOrDefault("computeMinor", "0"));
    }
    gpuNotes.add(s.toString());
    out.device(SourceDevices.kineto(d));
  }

  /** The file's {@code distributedInfo}: its scalar fields, in file order. */
  void distributedInfo(List<Map.Entry<String, String>> fields) {
    StringBuilder s = new StringBuilder("distributed run:");
    for (Map.Entry<String, String> f : fields) {
      String k = f.getKey();
      if (k.equals("rank") || k.equals("world_size") || k.equals("backend")) {
        s.append(' ').append(k).append(' ').append(f.getValue());
      }
    }
    gpuNotes.add(s.toString());
  }
}
