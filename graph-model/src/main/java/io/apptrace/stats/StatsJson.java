package io.apptrace.stats;

import io.apptrace.trace.Direction;
import io.apptrace.trace.SourceGpu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The {@code apptrace stats --json} document: a stable contract (docs/CLI.md). Keys are only
 * ever added. Byte counts are integers; maps are sorted by key.
 */
public final class StatsJson {
  /** Identifies the document and its version. */
  public static final String SCHEMA = "apptrace.stats/1";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private StatsJson() {}

  /** The document for {@code stats} of the trace at {@code file}. */
  public static ObjectNode of(TraceStats s, String file) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema", SCHEMA);
    root.put("file", file);
    root.put("source_format", s.header().getSourceFormat());
    root.put("simulated_device", s.header().getSimulatedDevice());
    root.put("truncated", s.truncation().isPresent());
    s.truncation().ifPresentOrElse(t -> {
      ObjectNode tn = root.putObject("truncation");
      tn.put("byte_offset", t.byteOffset());
      tn.put("reason", t.reason());
    }, () -> root.putNull("truncation"));
    ObjectNode totals = counts(root.putObject("totals"), s.totals());
    totals.put("dropped_records", s.droppedRecords());
    totals.put("lost_batches", s.lostBatches());
    totals.put("truncated", s.truncation().isPresent());
    totals.put("processes", s.processes().size());
    totals.put("threads", s.processes().stream().mapToInt(p -> p.threads().size()).sum());
    var procs = root.putArray("processes");
    for (ProcessStats p : s.processes()) {
      ObjectNode pn = procs.addObject();
      pn.put("pid", p.pid());
      pn.put("ppid", p.ppid());
      p.argv().forEach(pn.putArray("argv")::add);
      pn.put("simulated_device", p.simulatedDevice());
      p.exitCode().ifPresentOrElse(c -> pn.put("exit_code", c), () -> pn.putNull("exit_code"));
      pn.put("signal", p.signal());
      pn.put("clean_end", p.clean());
      pn.put("dropped_records", p.droppedRecords());
      pn.put("lost_batches", p.lostBatches());
      counts(pn, p.counts());
      gpus(pn, p);
      nvtx(pn, p.nvtx());
      var threads = pn.putArray("threads");
      for (ThreadStats t : p.threads()) {
        ObjectNode tn = threads.addObject();
        tn.put("tid", t.tid());
        tn.put("name", t.name());
        counts(tn, t.counts());
      }
    }
    s.notes().forEach(root.putArray("notes")::add);
    return root;
  }

  /** The process's GPUs as its trace describes them (numbers 0 where the source does not say). */
  private static void gpus(ObjectNode pn, ProcessStats p) {
    var gpus = pn.putArray("gpus");
    for (SourceGpu g : p.gpus()) {
      ObjectNode gn = gpus.addObject();
      gn.put("device", g.device());
      gn.put("name", g.name());
      gn.put("compute_capability", g.computeCapability());
      gn.put("multiprocessors", g.multiprocessors());
      gn.put("memory_bytes", g.totalMemoryBytes());
      gn.put("memory_bandwidth_bytes_per_sec", g.memoryBandwidthBytesPerSec());
      gn.put("clock_khz", g.clockKhz());
      gn.put("l2_cache_bytes", g.l2CacheBytes());
      gn.put("max_threads_per_multiprocessor", g.maxThreadsPerMultiprocessor());
      gn.put("max_blocks_per_multiprocessor", g.maxBlocksPerMultiprocessor());
      gn.put("registers_per_multiprocessor", g.registersPerMultiprocessor());
      gn.put("shared_mem_per_multiprocessor_bytes", g.sharedMemPerMultiprocessorBytes());
      gn.put("pci_bus_id", g.pciBusId());
      gn.put("source", g.source().key());
    }
    if (p.gpuQueryError() != 0) {
      pn.put("gpu_query_error", io.apptrace.trace.CudaErrors.name(p.gpuQueryError()));
    } else {
      pn.putNull("gpu_query_error");
    }
  }

  /** The ranges and marks the process named: how many, how many never closed, and by name. */
  private static void nvtx(ObjectNode pn, NvtxCounts c) {
    ObjectNode ranges = pn.putObject("nvtx_ranges");
    ranges.put("count", c.ranges());
    ranges.put("unclosed", c.unclosed());
    longs(ranges.putObject("by_name"), c.rangeNames());
    ObjectNode marks = pn.putObject("nvtx_marks");
    marks.put("count", c.marks());
    longs(marks.putObject("by_name"), c.markNames());
  }

  private static ObjectNode counts(ObjectNode n, Counts c) {
    n.put("events", c.events());
    n.put("wall_time_ns", c.wallTimeNs());
    n.put("failed_calls", c.failedCalls());
    longs(n.putObject("api_calls"), c.apiCalls());
    longs(n.putObject("kernel_launches"), c.kernelLaunches());
    ObjectNode bytes = n.putObject("bytes_copied");
    ObjectNode copies = n.putObject("copies");
    ObjectNode byMemory = n.putObject("bytes_copied_by_memory");
    for (Direction d : Direction.values()) {
      bytes.put(d.key(), c.bytesCopied().get(d));
      copies.put(d.key(), c.copies().get(d));
      longs(byMemory.putObject(d.key()), c.bytesByMemory().getOrDefault(d, Map.of()));
    }
    ObjectNode allocs = n.putObject("allocations");
    c.allocations().forEach((kind, v) -> {
      ObjectNode a = allocs.putObject(kind);
      a.put("count", v[0]);
      a.put("bytes", v[1]);
    });
    n.put("frees", c.frees());
    ObjectNode ms = n.putObject("memsets");
    ms.put("count", c.memsets());
    ms.put("bytes", c.memsetBytes());
    ObjectNode graphs = n.putObject("cuda_graphs");
    graphs.put("executable_graphs", c.graphs());
    longs(graphs.putObject("nodes"), c.graphNodes());
    graphs.put("launches", c.graphLaunches());
    graphs.put("captured_calls", c.capturedCalls());
    longs(n.putObject("api_time_ns"), c.apiTimeNs());
    ObjectNode byError = n.putObject("failed_calls_by_error");
    c.failuresByResult().forEach((code, k) -> byError.put(io.apptrace.trace.CudaErrors.name(code), k));
    ObjectNode gpu = n.putObject("gpu_work");
    c.gpuWork().forEach((kind, v) -> {
      ObjectNode g = gpu.putObject(kind);
      g.put("count", v[0]);
      g.put("time_ns", v[1]);
      g.put("bytes", v[2]);
    });
    return n;
  }

  private static void longs(ObjectNode n, Map<String, Long> m) {
    m.forEach(n::put);
  }
}
