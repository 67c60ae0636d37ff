package io.apptrace.calibrate;

import io.apptrace.calibrate.CalibrationResult.Series;
import io.apptrace.calibrate.CalibrationResult.SizeStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A calibration's copy times in the format of Pearson's thesis data
 * (github.com/cwpearson/ms-thesis flattened into one CSV, {@code memcpy_summary.csv}; docs/REFERENCES.md): the same
 * columns and units (times in ns, bandwidth in GB/s = bytes / median ns), one row per benchmark,
 * target and size, so that {@code apptrace validate transfers} reads it. After the copies, in the same columns: the
 * memsets ({@value #MEMSET}, per GPU and size), the JNA call overhead ({@value #JNA_CALL}) and the CUDA calls of the
 * host-overhead benchmarks ({@value #CALL_PREFIX}{@code cudaMalloc}, ..., per size), whose times are as measured
 * around the JNA call, that overhead included, and have no bandwidth; {@code validate transfers} leaves them out.
 */
public final class CalibrationCsv {
  /** The header of memcpy_summary.csv. */
  public static final String HEADER = "machine,benchmark,src_mem,dst_mem,peer,numa,src_numa,dst_numa,gpu,src_gpu,"
      + "dst_gpu,bytes,log2_bytes,reps,iterations_per_rep,median_ns,mean_ns,stddev_ns,min_ns,max_ns,median_GBps,"
      + "source_file";

  /** The benchmark column of the memset benchmark's rows. */
  public static final String MEMSET = "CUDA_Memset";
  /** The benchmark column of a host-overhead benchmark's rows: this and the CUDA function's name. */
  public static final String CALL_PREFIX = "CUDA_Call_";
  /** The benchmark column of the JNA call overhead's row. */
  public static final String JNA_CALL = "JNA_Call_" + HostOverheadBenchmarks.JNA_CALL;

  private CalibrationCsv() {}

  /** The file's text; {@code machine} fills the machine column (the node file's name). */
  public static String text(CalibrationResult r, String machine) {
    if (machine.contains(",")) {
      throw new IllegalArgumentException("a machine name has no comma: " + machine);
    }
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    for (Series s : r.series()) {
      for (SizeStats z : s.sizes()) {
        out.append(row(machine, s, z)).append('\n');
      }
    }
    for (CalibrationResult.MemsetSeries m : r.memsets()) {
      String g = Integer.toString(m.gpu());
      for (SizeStats z : m.sizes()) {
        out.append(row(new String[] {machine, MEMSET, "", "device", "", "", "", "", g, "", ""}, z, true,
            machine + "-" + MEMSET + "-" + g)).append('\n');
      }
    }
    int numa = r.machine().localNuma(0);
    r.jnaCall().ifPresent(z -> out.append(callRow(machine, JNA_CALL, numa, z)).append('\n'));
    for (CalibrationResult.CallSeries c : r.calls()) {
      for (SizeStats z : c.sizes()) {
        out.append(callRow(machine, CALL_PREFIX + c.call(), numa, z)).append('\n');
      }
    }
    return out.toString();
  }

  /** A host-overhead benchmark's row: GPU 0 and its NUMA node, no bandwidth; bytes 0 for a call of no size. */
  private static String callRow(String machine, String benchmark, int numa, SizeStats z) {
    return row(new String[] {machine, benchmark, "", "", "", Integer.toString(numa), "", "", "0", "", ""}, z, false,
        machine + "-" + benchmark + "-" + numa + "-0" + (z.bytes() > 0 ? "-" + z.bytes() : ""));
  }

  private static String row(String machine, Series s, SizeStats z) {
    Benchmark b = s.benchmark();
    Target t = s.target();
    String peer = "";
    String numa = "";
    String srcNuma = "";
    String dstNuma = "";
    String gpu = "";
    String srcGpu = "";
    String dstGpu = "";
    List<Integer> args = new ArrayList<>();
    switch (b) {
      case GPU_TO_GPU_PEER, GPU_TO_GPU_STAGED -> {
        peer = b == Benchmark.GPU_TO_GPU_PEER ? "yes" : "no";
        if (t.numa() >= 0) {
          numa = Integer.toString(t.numa());
          args.add(t.numa());
        }
        srcGpu = Integer.toString(t.gpu());
        dstGpu = Integer.toString(t.otherGpu());
        args.add(t.gpu());
        args.add(t.otherGpu());
      }
      case HOST_TO_PINNED -> {
        srcNuma = Integer.toString(t.numa());
        dstNuma = Integer.toString(t.otherNuma());
        args.add(t.numa());
        args.add(t.otherNuma());
      }
      case DEVICE_TO_DEVICE -> {
        gpu = Integer.toString(t.gpu());
        args.add(t.gpu());
      }
      default -> {
        numa = Integer.toString(t.numa());
        gpu = Integer.toString(t.gpu());
        args.add(t.numa());
        args.add(t.gpu());
      }
    }
    StringBuilder source = new StringBuilder(machine).append('-').append(b.csvName());
    args.forEach(a -> source.append('-').append(a));
    return row(new String[] {machine, b.csvName(), b.srcMem(), b.dstMem(), peer, numa, srcNuma, dstNuma, gpu, srcGpu,
        dstGpu}, z, true, source.toString());
  }

  /**
   * A row: {@code first} the columns before {@code bytes}, then the size and its times; {@code median_GBps} empty
   * where {@code bandwidth} is false, and {@code log2_bytes} where there are no bytes.
   */
  private static String row(String[] first, SizeStats z, boolean bandwidth, String source) {
    Stats st = z.seconds();
    return String.join(",", String.join(",", first), Long.toString(z.bytes()), z.bytes() > 0
        ? Integer.toString(63 - Long.numberOfLeadingZeros(z.bytes())) : "", Integer.toString(z.reps()),
        Integer.toString(z.iterations()), ns(st.median()), ns(st.mean()), ns(st.stddev()), ns(st.min()), ns(st.max()),
        bandwidth ? String.format(Locale.ROOT, "%.4f", z.bytes() / (st.median() * 1e9)) : "", source);
  }

  private static String ns(double seconds) {
    return String.format(Locale.ROOT, "%.3f", seconds * 1e9);
  }
}
