package io.apptrace.bench;

import io.apptrace.imports.Importer;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Locale;

/**
 * The import benchmark of docs/BENCHMARKS.md: writes a synthetic Kineto JSON trace or Nsight
 * Systems SQLite export of about EVENTS source events (the mix of a training step: CPU ops,
 * runtime calls, kernels, copies, memsets, synchronization records and flow events), then imports
 * it ROUNDS times, reporting source events per second and the peak heap. Run it with a small heap
 * (-Xmx256m): memory must not grow with the file. Usage: ImportBench kineto|nsys EVENTS FILE ROUNDS
 */
public final class ImportBench {
  private ImportBench() {}

  public static void main(String[] args) throws Exception {
    String format = args[0];
    long events = Long.parseLong(args[1]);
    Path file = Path.of(args[2]);
    int rounds = Integer.parseInt(args[3]);
    if (!Files.exists(file) || Files.size(file) == 0) {
      long t0 = System.nanoTime();
      long n = format.equals("kineto") ? kineto(file, events) : nsys(file, events);
      System.out.printf(Locale.ROOT, "wrote %,d source events (%,d MiB) in %.1f s%n", n, Files.size(file) >> 20,
          (System.nanoTime() - t0) / 1e9);
    }
    long n = format.equals("kineto") ? kinetoEvents(events) : nsysEvents(events);
    Path out = file.resolveSibling(file.getFileName() + ".apptrace");
    Path tmp = Files.createTempDirectory(file.getParent(), "import-bench");
    for (int r = 0; r < rounds; r++) {
      resetPeaks();
      long t0 = System.nanoTime();
      long c0 = cpuNanos();
      Importer.Result res = Importer.run(file, out, Importer.Options.defaults().withTmpDir(tmp));
      double s = (System.nanoTime() - t0) / 1e9;
      double cpu = (cpuNanos() - c0) / 1e9;
      System.out.printf(Locale.ROOT, "round %d: %,d source events -> %,d trace events (%,d API calls, %,d kernels)"
          + " in %.2f s (%.2f s of CPU, all threads incl. GC): %,.0f source events/s; peak heap %,d MiB (limit %,d MiB)%n",
          r + 1, n, res.events(), res.imported().get("API calls"), res.imported().get("kernels"), s, cpu, n / s,
          peakHeapMiB(),
          Runtime.getRuntime().maxMemory() >> 20);
    }
    Files.deleteIfExists(out);
    Files.deleteIfExists(tmp);
  }

  /** Events per step of the Kineto mix: see {@link #kineto}. */
  private static final int KINETO_STEP = 16;

  static long kinetoEvents(long events) {
    return events / KINETO_STEP * KINETO_STEP;
  }

  /**
   * Per step, 16 events: 2 CPU ops; a launch, its kernel and 2 flow events; another on a second
   * stream; an async copy, its memcpy and 2 flow events; a memset call and its memset; a stream
   * synchronization and its cuda_sync record.
   */
  static long kineto(Path file, long events) throws Exception {
    long steps = events / KINETO_STEP;
    try (Writer w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8),
        1 << 20)) {
      w.write("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\","
          + " \"numSms\": 108}],\n\"traceEvents\": [\n");
      long corr = 1;
      for (long i = 0; i < steps; i++) {
        long ts = 1_700_000_000_000_000L + i * 100;
        String sep = i == 0 ? "" : ",\n";
        w.write(sep);
        cpu(w, ts, "aten::linear");
        w.write(",\n");
        cpu(w, ts + 1, "aten::addmm");
        w.write(",\n");
        launch(w, ts + 2, corr, 7, "ampere_sgemm_128x64_nn");
        corr++;
        w.write(",\n");
        launch(w, ts + 10, corr, 13, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>");
        corr++;
        w.write(",\n");
        call(w, ts + 20, 4, corr, "cudaMemcpyAsync");
        w.write(",\n");
        gpu(w, "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", ts + 60, 5, 7, corr, "\"bytes\": 65536");
        w.write(",\n");
        flows(w, ts + 20, ts + 60, 7, corr);
        corr++;
        w.write(",\n");
        call(w, ts + 30, 3, corr, "cudaMemsetAsync");
        w.write(",\n");
        gpu(w, "gpu_memset", "Memset (Device)", ts + 66, 1, 7, corr, "\"bytes\": 4096");
        corr++;
        w.write(",\n");
        call(w, ts + 40, 30, corr, "cudaStreamSynchronize");
        w.write(",\n");
        w.write("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, \"tid\": 7, \"ts\": "
            + (ts + 68) + ", \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Stream Sync\", \"stream\": 7, \"correlation\": "
            + corr + ", \"device\": 0}}");
        corr++;
      }
      w.write("\n]}\n");
    }
    return steps * KINETO_STEP;
  }

  private static void cpu(Writer w, long ts, String name) throws Exception {
    w.write("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 4242, \"tid\": 4242, \"ts\": " + ts
        + ", \"dur\": 1, \"args\": {\"External id\": 1, \"Input Dims\": [[64, 1024], [1024, 1024]]}}");
  }

  private static void call(Writer w, long ts, long dur, long corr, String name) throws Exception {
    w.write("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" + name + "\", \"pid\": 4242, \"tid\": 4242,"
        + " \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": {\"External id\": 1, \"cbid\": 211, \"correlation\": "
        + corr + "}}");
  }

  private static void gpu(Writer w, String cat, String name, long ts, long dur, int stream, long corr, String more)
      throws Exception {
    w.write("{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": " + stream
        + ", \"ts\": " + ts + ", \"dur\": " + dur + ", \"args\": {\"External id\": 1, \"device\": 0, \"context\": 1,"
        + " \"stream\": " + stream + ", \"correlation\": " + corr + ", " + more + "}}");
  }

  private static void flows(Writer w, long from, long to, int stream, long corr) throws Exception {
    w.write("{\"ph\": \"s\", \"id\": " + corr + ", \"pid\": 4242, \"tid\": 4242, \"ts\": " + from
        + ", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n{\"ph\": \"f\", \"id\": " + corr + ", \"pid\": 0, \"tid\": "
        + stream + ", \"ts\": " + to + ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}");
  }

  private static void launch(Writer w, long ts, long corr, int stream, String kernel) throws Exception {
    call(w, ts, 5, corr, "cudaLaunchKernel");
    w.write(",\n");
    gpu(w, "kernel", kernel, ts + 30, 20, stream, corr, "\"queued\": 0, \"registers per thread\": 32,"
        + " \"shared memory\": 0, \"grid\": [128, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": 100");
    w.write(",\n");
    flows(w, ts, ts + 30, stream, corr);
  }

  /** Rows per step of the nsys mix: see {@link #nsys}. */
  private static final int NSYS_STEP = 8;

  static long nsysEvents(long events) {
    return events / NSYS_STEP * NSYS_STEP;
  }

  /**
   * Per step, 8 rows: two launches and their kernels, an async copy and its memcpy, a stream
   * synchronization and its synchronization record.
   */
  public static long nsys(Path file, long events) throws Exception {
    long steps = events / NSYS_STEP;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode = OFF");
      s.execute("PRAGMA synchronous = OFF");
      s.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)");
      s.execute("INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMemcpyAsync_v3020'),"
          + " (3, 'cudaStreamSynchronize_v3020'), (4, 'ampere_sgemm_128x64_nn'), (5, 'elementwise_kernel')");
      s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,"
          + " globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER)");
      s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId"
          + " INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName"
          + " INTEGER, mangledName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY"
          + " INTEGER, blockZ INTEGER, staticSharedMemory INTEGER, dynamicSharedMemory INTEGER)");
      s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId"
          + " INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER,"
          + " srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, dstDeviceId INTEGER)");
      s.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER,"
          + " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId"
          + " INTEGER)");
      s.execute("CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER, hwId INTEGER, vmId INTEGER, processId"
          + " INTEGER, contextId INTEGER, priority INTEGER, flag INTEGER)");
      s.execute("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7, 0, 1, 4242, 1, 0, 3), (13, 0, 1, 4242, 1, 0, 2)");
      c.setAutoCommit(false);
      long gtid = (1L << 48) | 4242L << 24 | 4242;
      long gpid = (1L << 48) | 4242L << 24;
      try (PreparedStatement rt = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, ?,"
          + " 0, NULL)");
          PreparedStatement k = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?,"
              + " ?, ?, ?, 128, 1, 1, 256, 1, 1, 0, 0)");
          PreparedStatement m = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, ?,"
              + " 65536, 2, 2, 1, 0, 0)");
          PreparedStatement y = c.prepareStatement("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, 0, 1,"
              + " 7, ?, ?, 3, 4294967295)")) {
        long corr = 1;
        for (long i = 0; i < steps; i++) {
          long t = 1_000_000L + i * 100_000;
          for (int j = 0; j < 2; j++) {
            row(rt, t + j * 10_000, t + j * 10_000 + 5_000, gtid, corr, 1);
            k.setLong(1, t + j * 10_000 + 30_000);
            k.setLong(2, t + j * 10_000 + 50_000);
            k.setLong(3, j == 0 ? 7 : 13);
            k.setLong(4, corr);
            k.setLong(5, gpid);
            k.setLong(6, 4 + j);
            k.setLong(7, 4 + j);
            k.setLong(8, 4 + j);
            k.addBatch();
            corr++;
          }
          row(rt, t + 20_000, t + 24_000, gtid, corr, 2);
          m.setLong(1, t + 60_000);
          m.setLong(2, t + 65_000);
          m.setLong(3, corr);
          m.setLong(4, gpid);
          m.addBatch();
          corr++;
          row(rt, t + 30_000, t + 70_000, gtid, corr, 3);
          y.setLong(1, t + 30_000);
          y.setLong(2, t + 70_000);
          y.setLong(3, corr);
          y.setLong(4, gpid);
          y.addBatch();
          corr++;
          if (i % 10_000 == 0) {
            rt.executeBatch();
            k.executeBatch();
            m.executeBatch();
            y.executeBatch();
          }
        }
        rt.executeBatch();
        k.executeBatch();
        m.executeBatch();
        y.executeBatch();
      }
      c.commit();
    }
    return steps * NSYS_STEP;
  }

  private static void row(PreparedStatement p, long start, long end, long gtid, long corr, long name) throws Exception {
    p.setLong(1, start);
    p.setLong(2, end);
    p.setLong(3, gtid);
    p.setLong(4, corr);
    p.setLong(5, name);
    p.addBatch();
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  /** CPU time of the whole process: on a loaded machine, what the import itself cost. */
  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long peakHeapMiB() {
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    return peak >> 20;
  }
}
