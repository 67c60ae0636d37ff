package io.apptrace.imports;

import io.apptrace.proto.Api;
import io.apptrace.proto.Batch;
import io.apptrace.proto.ClockDomain;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.DeviceInfo;
import io.apptrace.proto.Event;
import io.apptrace.proto.EventOp;
import io.apptrace.proto.GpuActivity;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.KindResolution;
import io.apptrace.proto.MemoryKind;
import io.apptrace.proto.Memset;
import io.apptrace.proto.Note;
import io.apptrace.proto.ParamDecode;
import io.apptrace.proto.ProcessStart;
import io.apptrace.proto.SetDevice;
import io.apptrace.proto.StreamOp;
import io.apptrace.proto.Sync;
import io.apptrace.proto.SyncScope;
import io.apptrace.proto.ThreadStart;
import io.apptrace.trace.ApiNames;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What every importer produces, assembled into an ordinary trace. An importer hands over API
 * calls, GPU operations, synchronization records and event records as it reads them, in any
 * order; the assembler joins them by (process, correlation id) and writes each host thread's
 * calls in time order, each call carrying the operation it issued (a Copy, Memset or
 * KernelLaunch body, with a GpuActivity record of its measured GPU times after it) or the
 * synchronization it did. Memory stays bounded whatever the file's size: the records go through
 * {@link RecordSorter}s, which spill to temporary files.
 *
 * <p>Profilers record no addresses, so no Copy carries pointers; the graph gives each copy
 * endpoint its own value (docs/IMPORT.md).
 */
final class ImportAssembler implements Closeable {
  // ---- a call (runtime or driver API), keyed by (process, correlation, sequence) ----
  static final int C_PROC = 0;
  static final int C_CORR = 1;
  static final int C_SEQ = 2;
  static final int C_PID = 3;
  static final int C_TID = 4;
  static final int C_START = 5;
  static final int C_DUR = 6;
  static final int C_NAME = 7;
  static final int C_RESULT = 8;
  static final int C_WIDTH = 9;

  // ---- a GPU operation ----
  static final int G_PROC = 0;
  static final int G_CORR = 1;
  static final int G_SEQ = 2;
  static final int G_KIND = 3; // GpuActivityKind number
  static final int G_START = 4;
  static final int G_END = 5;
  static final int G_DEVICE = 6;
  static final int G_STREAM = 7; // the profiler's stream id
  static final int G_BYTES = 8;
  static final int G_COPY = 9; // CopyKind | src MemoryKind << 8 | dst MemoryKind << 16
  static final int G_NAME = 10; // kernel name id, -1 for none
  static final int G_GRID = 11; // x | y << 32 | z << 48
  static final int G_BLOCK = 12; // x | y << 16 | z << 32
  static final int G_PEER = 13; // (src device + 1) | (dst device + 1) << 32; 0 when not given
  static final int G_CONTEXT = 14;
  static final int G_VALUE = 15; // memset value
  static final int G_SHMEM = 16; // dynamic shared memory, bytes
  static final int G_MANGLED = 17; // mangled kernel name id, -1 for none
  // a kernel's resources: registers per thread (bits 0-15) | RES_SPLIT | RES_TOTAL | static shared
  // memory, bytes << 20 (with RES_SPLIT: G_SHMEM is then the dynamic shared memory)
  static final int G_RES = 18;
  static final int G_OCC = 19; // Kineto's figures: occupancy % (float bits) | OCC_GIVEN | PER_SM_GIVEN
  static final int G_PER_SM = 20; // blocks per SM (float bits) | warps per SM (float bits) << 32
  static final int G_WIDTH = 21;

  /** G_RES: static and dynamic shared memory are given apart (G_SHMEM is the dynamic). */
  static final long RES_SPLIT = 1L << 16;
  /** G_RES: G_SHMEM is the shared memory per block, static and dynamic together (Kineto). */
  static final long RES_TOTAL = 1L << 17;
  static final long OCC_GIVEN = 1L << 32;
  static final long PER_SM_GIVEN = 1L << 33;

  // ---- a synchronization (what a sync call waited for) ----
  static final int S_PROC = 0;
  static final int S_CORR = 1;
  static final int S_SEQ = 2;
  static final int S_TYPE = 3; // SYNC_* below
  static final int S_STREAM = 4; // the stream synchronized with, or the waiting stream; -1
  static final int S_EVENT = 5; // event handle (importer's choice, nonzero), 0 when unknown
  static final int S_WAIT_STREAM = 6; // the stream the event was recorded on, -1 when unknown
  static final int S_DEVICE = 7; // -1 when unknown
  static final int S_WIDTH = 8;

  static final int SYNC_EVENT = 1;
  static final int SYNC_STREAM_WAIT = 2;
  static final int SYNC_STREAM = 3;
  static final int SYNC_CONTEXT = 4;
  /** A synchronization record of a kind the source does not name. */
  static final int SYNC_UNKNOWN = 5;

  // ---- an event record: the stream a cudaEventRecord call recorded on ----
  static final int R_PROC = 0;
  static final int R_CORR = 1; // the record call's correlation id
  static final int R_SEQ = 2;
  static final int R_STREAM = 3;
  static final int R_EVENT = 4; // event handle, as in S_EVENT
  static final int R_DEVICE = 5;
  static final int R_WIDTH = 6;

  // ---- a joined row: what one host-thread event becomes, sorted by thread and time ----
  private static final int J_PID = 0;
  private static final int J_TID = 1;
  private static final int J_START = 2;
  private static final int J_SEQ = 3;
  private static final int J_SUB = 4;
  private static final int J_ROLE = 5; // ROLE_* below
  private static final int J_DUR = 6;
  private static final int J_NAME = 7;
  private static final int J_RESULT = 8;
  private static final int J_CORR = 9;
  private static final int J_PROC = 10;
  private static final int J_G = 11; // G_KIND..G_PER_SM copied here (18 fields); kind 0 = none
  private static final int J_S = J_G + (G_WIDTH - G_KIND); // S_TYPE..S_DEVICE (5); type 0 = none
  private static final int J_R = J_S + (S_WIDTH - S_TYPE); // R_STREAM..R_DEVICE (3); stream -2 = none
  private static final int J_WIDTH = J_R + (R_WIDTH - R_STREAM);

  private static final int ROLE_CALL = 0;
  private static final int ROLE_ORPHAN = 1;
  private static final int ROLE_EXTRA = 2;

  /** Synthetic host threads for GPU work whose launching call the trace lacks: one per device. */
  static final int ORPHAN_TID_BASE = 0x7ff00000;
  /** Synthetic correlation ids for such work (the graph joins GPU times by correlation). */
  private static final long ORPHAN_CORR_BASE = 1L << 62;

  /** How a stream orders against others. */
  enum StreamKind {
    /** The device's legacy default (NULL) stream. */
    LEGACY,
    /** A stream created without cudaStreamNonBlocking. */
    BLOCKING,
    /** A stream created with cudaStreamNonBlocking. */
    NON_BLOCKING
  }

  private final Path tmpDir;
  private final RecordSorter calls;
  private final RecordSorter gpu;
  private final RecordSorter syncs;
  private final RecordSorter records;
  final Strings strings = new Strings();
  private final Map<Long, StreamKind> streamKinds = new HashMap<>();
  private StreamKind defaultStreamKind = StreamKind.BLOCKING;
  private final Map<Long, String> threadNames = new HashMap<>();
  private final Map<Long, String> processNames = new HashMap<>();
  private final List<Note> notes = new ArrayList<>();
  private final Map<String, Long> warnings = new LinkedHashMap<>();
  /** The pid orphan GPU work goes to, per process key (absent: the key is the pid). */
  private final Map<Long, Long> processPids = new HashMap<>();
  private long seq;
  /** Source records handed over so far, published every 4,096 for a progress line on another thread. */
  private java.util.concurrent.atomic.AtomicLong progress = new java.util.concurrent.atomic.AtomicLong();

  /** Where the count of source records handed over is published (for a progress line). */
  void progressTo(java.util.concurrent.atomic.AtomicLong sink) {
    progress = sink;
  }

  /** The next sequence number of a source record. */
  private long nextSeq() {
    if ((seq & 4095) == 0) {
      progress.lazySet(seq);
    }
    return seq++;
  }
  private final long[] scratch = new long[Math.max(G_WIDTH, J_WIDTH)];
  private String hostname = "";

  ImportAssembler(Path tmpDir, int chunkRecords) {
    this.tmpDir = tmpDir;
    calls = new RecordSorter(C_WIDTH, 3, tmpDir, chunkRecords);
    gpu = new RecordSorter(G_WIDTH, 3, tmpDir, chunkRecords);
    syncs = new RecordSorter(S_WIDTH, 3, tmpDir, chunkRecords);
    records = new RecordSorter(R_WIDTH, 3, tmpDir, chunkRecords);
  }

  // ---- what importers hand over ----

  /**
   * An API call.
   *
   * @param proc the process key correlation ids are unique within
   * @param corr the correlation id; 0 when unknown (the call then issues nothing)
   */
  void call(long proc, long corr, long pid, long tid, long startNs, long durNs, String name, long result) {
    long[] r = scratch;
    r[C_PROC] = proc;
    r[C_CORR] = corr;
    r[C_SEQ] = nextSeq();
    r[C_PID] = pid;
    r[C_TID] = tid;
    r[C_START] = startNs;
    r[C_DUR] = Math.max(0, durNs);
    r[C_NAME] = strings.id(name == null ? "" : name);
    r[C_RESULT] = result;
    calls.add(r);
  }

  /** A GPU operation: fill a {@link #gpuRecord()} and pass it here. */
  void gpu(long[] r) {
    r[G_SEQ] = nextSeq();
    gpu.add(r);
  }

  /** A fresh GPU-operation record with every optional field at its "not given" value. */
  long[] gpuRecord() {
    long[] r = scratch;
    java.util.Arrays.fill(r, 0, G_WIDTH, 0);
    r[G_NAME] = -1;
    r[G_MANGLED] = -1;
    r[G_DEVICE] = 0;
    return r;
  }

  /** A synchronization record; see the S_ fields. */
  void sync(long proc, long corr, int type, long stream, long event, long waitStream, long device) {
    long[] r = scratch;
    r[S_PROC] = proc;
    r[S_CORR] = corr;
    r[S_SEQ] = nextSeq();
    r[S_TYPE] = type;
    r[S_STREAM] = stream;
    r[S_EVENT] = event;
    r[S_WAIT_STREAM] = waitStream;
    r[S_DEVICE] = device;
    syncs.add(r);
  }

  /** What a cudaEventRecord call (correlation {@code corr}) recorded on. */
  void eventRecord(long proc, long corr, long stream, long event, long device) {
    long[] r = scratch;
    r[R_PROC] = proc;
    r[R_CORR] = corr;
    r[R_SEQ] = nextSeq();
    r[R_STREAM] = stream;
    r[R_EVENT] = event;
    r[R_DEVICE] = device;
    records.add(r);
  }

  /** How stream {@code stream} of process key {@code proc} orders. */
  void streamKind(long proc, long stream, StreamKind kind) {
    streamKinds.put(key(proc, stream), kind);
  }

  /** How streams not given a kind order. */
  void defaultStreamKind(StreamKind kind) {
    defaultStreamKind = kind;
  }

  /** A thread's name; a file that gives none (SQL NULL) names it "". */
  void threadName(long pid, long tid, String name) {
    threadNames.put(key(pid, tid), name == null ? "" : name);
  }

  /** A process's name; a file that gives none (SQL NULL) names it "". */
  void processName(long pid, String name) {
    processNames.put(pid, name == null ? "" : name);
  }

  /** The pid of process key {@code proc} (when the key is not the pid itself). */
  void processPid(long proc, long pid) {
    processPids.put(proc, pid);
  }

  void hostname(String h) {
    hostname = h == null ? "" : h;
  }

  String hostname() {
    return hostname;
  }

  /** The GPUs the source describes, by the device index its records use. */
  private final Map<Integer, DeviceInfo> devices = new TreeMap<>();

  /**
   * A GPU the source describes ({@code d.getDevice()}: the device index its records use). Each
   * process's trace gets the ones its GPU work ran on (all of them for a process without GPU work).
   */
  void device(DeviceInfo d) {
    devices.putIfAbsent(d.getDevice(), d);
  }

  /** The GPUs described for process {@code pid}, by device index. */
  private List<DeviceInfo> devicesOf(long pid) {
    Set<Long> used = devicesOfPid.get(pid);
    if (used == null || used.isEmpty()) {
      return List.copyOf(devices.values());
    }
    List<DeviceInfo> out = new ArrayList<>();
    for (long d : new java.util.TreeSet<>(used)) {
      DeviceInfo info = devices.get((int) d);
      if (info != null) {
        out.add(info);
      } else if (!devices.isEmpty()) {
        warn("GPUs that GPU work ran on but the source does not describe (per process)");
      }
    }
    return out;
  }

  /** A remark for the trace's reader (GPU models, what the source said of itself). */
  void note(String text, String severity) {
    notes.add(Note.newBuilder().setText(text == null ? "" : text).setSeverity(severity).build());
  }

  /** Counts a problem of kind {@code what}. */
  void warn(String what) {
    warnings.merge(what, 1L, Long::sum);
  }

  void warn(String what, long n) {
    if (n > 0) {
      warnings.merge(what, n, Long::sum);
    }
  }

  Map<String, Long> warnings() {
    return warnings;
  }

  /** The notes' texts. */
  List<String> notes() {
    return notes.stream().map(Note::getText).toList();
  }

  private static long key(long a, long b) {
    return a * 0x1_0000_0001L ^ b;
  }

  // ---- assembling ----

  /** What {@link #write} emitted. */
  static final class Emitted {
    long calls;
    long kernels;
    long memcpys;
    long memsets;
    long syncs;
    /** Call records that were a second record of a call, merged into it. */
    long duplicateCalls;
    /** Calls that began before the previous call of their thread ended, moved to its end. */
    long overlapping;
    /** Synchronization records joined to the call they belong to. */
    long syncRecords;
    long orphans;
    /** Calls added to carry a call's second and later GPU operations (graph launches). */
    long extras;
    long events;
    final Set<Long> threads = new HashSet<>();
    final Set<Long> processes = new HashSet<>();
  }

  /** Joins everything handed over and writes the trace's batches. */
  Emitted write(BatchPipe out) throws IOException {
    try (RecordSorter joined = new RecordSorter(J_WIDTH, 5, tmpDir, RecordSorter.DEFAULT_CHUNK)) {
      join(joined);
      placeOrphans(joined);
      return emit(joined.sorted(), out);
    }
  }

  private static boolean before(RecordSorter.Cursor c, boolean live, long proc, long corr) {
    return live && (c.get(0) < proc || (c.get(0) == proc && c.get(1) < corr));
  }

  private static boolean at(RecordSorter.Cursor c, boolean live, long proc, long corr) {
    return live && c.get(0) == proc && c.get(1) == corr;
  }

  private long syncsJoined;
  /** Call records dropped as second records of a call (same correlation id). */
  private long duplicates;

  /** Merge-joins the four inputs by (process, correlation) into rows for the host threads. */
  private void join(RecordSorter joined) {
    try (RecordSorter.Cursor c = calls.sorted(); RecordSorter.Cursor g = gpu.sorted();
        RecordSorter.Cursor s = syncs.sorted(); RecordSorter.Cursor r = records.sorted()) {
      boolean cl = c.next();
      boolean gl = g.next();
      boolean sl = s.next();
      boolean rl = r.next();
      long[] row = new long[J_WIDTH];
      List<long[]> callRows = new ArrayList<>();
      while (cl || gl || sl || rl) {
        // the smallest (process, correlation) among the heads
        long proc = Long.MAX_VALUE;
        long corr = Long.MAX_VALUE;
        for (RecordSorter.Cursor x : new RecordSorter.Cursor[] {cl ? c : null, gl ? g : null, sl ? s : null,
            rl ? r : null}) {
          if (x != null && (x.get(0) < proc || (x.get(0) == proc && x.get(1) < corr))) {
            proc = x.get(0);
            corr = x.get(1);
          }
        }
        callRows.clear();
        while (at(c, cl, proc, corr)) {
          long[] cr = new long[C_WIDTH];
          for (int i = 0; i < C_WIDTH; i++) {
            cr[i] = c.get(i);
          }
          cl = c.next();
          if (!callRows.isEmpty() && corr != 0) {
            // one call recorded twice (older nsys exports write each runtime call under two
            // names, nested): keep the outer record
            duplicates++;
            long[] kept = callRows.get(0);
            if (cr[C_START] < kept[C_START] || (cr[C_START] == kept[C_START] && cr[C_DUR] > kept[C_DUR])) {
              callRows.set(0, cr);
            }
            continue;
          }
          callRows.add(cr);
          if (corr == 0) {
            break; // correlation 0 joins nothing: one call at a time
          }
        }
        java.util.Arrays.fill(row, J_S, J_WIDTH, 0);
        row[J_R] = -2;
        boolean haveSync = false;
        while (at(s, sl, proc, corr)) {
          if (corr != 0 && !haveSync) {
            syncsJoined++;
            for (int i = S_TYPE; i < S_WIDTH; i++) {
              row[J_S + i - S_TYPE] = s.get(i);
            }
            haveSync = true;
          } else if (corr != 0) {
            warn("synchronization records beyond the first of one call (ignored)");
          }
          sl = s.next();
        }
        boolean haveRecord = false;
        while (at(r, rl, proc, corr)) {
          if (corr != 0 && !haveRecord) {
            for (int i = R_STREAM; i < R_WIDTH; i++) {
              row[J_R + i - R_STREAM] = r.get(i);
            }
            haveRecord = true;
          }
          rl = r.next();
        }
        if (callRows.isEmpty()) {
          if (haveSync) {
            syncsJoined--;
            warn("synchronization records with no call in the trace (ignored)");
          }
          java.util.Arrays.fill(row, J_S, J_WIDTH, 0);
          row[J_R] = -2;
        }
        int ops = 0;
        boolean joinable = corr != 0 && !callRows.isEmpty();
        while (at(g, gl, proc, corr) && (joinable || callRows.isEmpty())) {
          if (!callRows.isEmpty()) {
            long[] call = callRows.get(0);
            callRow(row, call, ops == 0 ? ROLE_CALL : ROLE_EXTRA, ops);
          } else {
            orphanRow(row, proc, g);
          }
          for (int i = G_KIND; i < G_WIDTH; i++) {
            row[J_G + i - G_KIND] = g.get(i);
          }
          if (callRows.isEmpty()) {
            orphan(row);
          } else {
            addJoined(joined, row);
            streamIssue(row);
          }
          ops++;
          gl = g.next();
          if (callRows.isEmpty()) {
            java.util.Arrays.fill(row, J_G, J_WIDTH, 0);
            row[J_R] = -2;
          }
        }
        // calls that issued nothing (and further calls with one correlation id)
        for (int k = ops > 0 ? 1 : 0; k < callRows.size(); k++) {
          callRow(row, callRows.get(k), ROLE_CALL, 0);
          java.util.Arrays.fill(row, J_G, J_S, 0);
          if (k > 0) {
            java.util.Arrays.fill(row, J_S, J_WIDTH, 0);
            row[J_R] = -2;
          }
          addJoined(joined, row);
        }
      }
    }
  }

  // ---- GPU work with no traced call: issued in its stream's order ----

  /** (process, stream, -GPU start, sequence) then, for issues, the call's start; for orphans, the row. */
  private static final int O_KEYS = 4;
  private RecordSorter orphans;
  private RecordSorter issues;
  private final long[] keyed = new long[O_KEYS + J_WIDTH];

  private void orphan(long[] row) {
    if (orphans == null) {
      orphans = new RecordSorter(O_KEYS + J_WIDTH, O_KEYS, tmpDir, RecordSorter.DEFAULT_CHUNK);
    }
    keyed[0] = row[J_PROC];
    keyed[1] = row[jg(G_STREAM)];
    keyed[2] = -row[jg(G_START)];
    keyed[3] = row[J_SEQ];
    System.arraycopy(row, 0, keyed, O_KEYS, J_WIDTH);
    orphans.add(keyed);
  }

  /** Notes when a traced call issued work to a stream (for placing orphans among them). */
  private void streamIssue(long[] row) {
    if (issues == null) {
      issues = new RecordSorter(O_KEYS + 1, O_KEYS, tmpDir, RecordSorter.DEFAULT_CHUNK);
    }
    keyed[0] = row[J_PROC];
    keyed[1] = row[jg(G_STREAM)];
    keyed[2] = -row[jg(G_START)];
    keyed[3] = row[J_SEQ];
    keyed[4] = row[J_START];
    issues.add(keyed);
  }

  /**
   * A stream runs its work in the order it was issued, so GPU work whose call the trace lacks was
   * issued before every later operation of its stream: at its GPU start, or just before the
   * earliest call that issued later work to the stream, whichever is earlier.
   */
  private void placeOrphans(RecordSorter joined) {
    if (orphans == null) {
      if (issues != null) {
        issues.close();
      }
      return;
    }
    try (RecordSorter.Cursor o = orphans.sorted();
        RecordSorter.Cursor i = issues == null ? null : issues.sorted()) {
      boolean il = i != null && i.next();
      long proc = Long.MIN_VALUE;
      long stream = Long.MIN_VALUE;
      long earliest = Long.MAX_VALUE; // of the calls that issued later work to the stream
      long[] row = new long[J_WIDTH];
      while (o.next()) {
        if (o.get(0) != proc || o.get(1) != stream) {
          proc = o.get(0);
          stream = o.get(1);
          earliest = Long.MAX_VALUE;
        }
        // issues of work that starts later than this orphan's (-start smaller): descending starts
        while (il && (i.get(0) < proc || (i.get(0) == proc && (i.get(1) < stream
            || (i.get(1) == stream && i.get(2) < o.get(2)))))) {
          if (i.get(0) == proc && i.get(1) == stream) {
            earliest = Math.min(earliest, i.get(4));
          }
          il = i.next();
        }
        for (int k = 0; k < J_WIDTH; k++) {
          row[k] = o.get(O_KEYS + k);
        }
        if (earliest != Long.MAX_VALUE && earliest - 1 < row[J_START]) {
          row[J_START] = earliest - 1;
          orphansMoved++;
        }
        addJoined(joined, row);
      }
    } finally {
      orphans.close();
      if (issues != null) {
        issues.close();
      }
    }
  }

  private long orphansMoved;

  /** Per pid: the streams its rows use (profiler ids, with their process key) and its earliest time. */
  private final Map<Long, Map<Long, Long>> streamsOfPid = new HashMap<>();
  private final Map<Long, Long> firstOfPid = new HashMap<>();
  /** Per pid: the devices its GPU work ran on. */
  private final Map<Long, Set<Long>> devicesOfPid = new HashMap<>();

  private void addJoined(RecordSorter joined, long[] row) {
    long pid = row[J_PID];
    firstOfPid.merge(pid, row[J_START], Math::min);
    Map<Long, Long> used = streamsOfPid.computeIfAbsent(pid, k -> new HashMap<>());
    if (row[J_G] != 0) {
      used.putIfAbsent(row[jg(G_STREAM)], row[J_PROC]);
      devicesOfPid.computeIfAbsent(pid, k -> new HashSet<>()).add(row[jg(G_DEVICE)]);
    }
    if (row[J_S] != 0) {
      for (long st : new long[] {row[J_S + S_STREAM - S_TYPE], row[J_S + S_WAIT_STREAM - S_TYPE]}) {
        if (st >= 0) {
          used.putIfAbsent(st, row[J_PROC]);
        }
      }
    }
    if (row[J_R] >= 0) {
      used.putIfAbsent(row[J_R], row[J_PROC]);
    }
    joined.add(row);
  }

  private static void callRow(long[] row, long[] call, int role, int sub) {
    row[J_PID] = call[C_PID];
    row[J_TID] = call[C_TID];
    row[J_START] = call[C_START];
    row[J_SEQ] = call[C_SEQ];
    row[J_SUB] = sub;
    row[J_ROLE] = role;
    row[J_DUR] = role == ROLE_EXTRA ? 0 : call[C_DUR];
    row[J_NAME] = call[C_NAME];
    row[J_RESULT] = call[C_RESULT];
    row[J_CORR] = call[C_CORR];
    row[J_PROC] = call[C_PROC];
  }

  private void orphanRow(long[] row, long proc, RecordSorter.Cursor g) {
    row[J_PID] = processPids.getOrDefault(proc, proc);
    row[J_TID] = ORPHAN_TID_BASE + g.get(G_DEVICE);
    row[J_START] = g.get(G_START);
    row[J_SEQ] = g.get(G_SEQ);
    row[J_SUB] = 0;
    row[J_ROLE] = ROLE_ORPHAN;
    row[J_DUR] = 0;
    row[J_NAME] = strings.id("(launch not traced)");
    row[J_RESULT] = 0;
    row[J_CORR] = ORPHAN_CORR_BASE + g.get(G_SEQ);
    row[J_PROC] = proc;
    threadNames.putIfAbsent(key(row[J_PID], row[J_TID]), "GPU " + g.get(G_DEVICE) + " work with no traced call");
  }

  // ---- emitting ----

  /** One host thread's batch under construction. */
  private static final class ThreadOut {
    final int pid;
    final int tid;
    long batchSeq;
    Batch.Builder batch = Batch.newBuilder();
    long device;
    /** When the thread's last call ended: calls run one after the other on a thread. */
    long lastEnd = Long.MIN_VALUE;

    ThreadOut(int pid, int tid) {
      this.pid = pid;
      this.tid = tid;
      batch.setPid(pid).setTid(tid).setSeq(0);
    }
  }

  private static final int BATCH_EVENTS = 4096;

  /** Per process: kernels and streams already introduced. */
  private static final class ProcOut {
    final Set<Long> kernels = new HashSet<>();
    final Set<Long> streams = new HashSet<>();
  }

  private Emitted emit(RecordSorter.Cursor j, BatchPipe out) throws IOException {
    Emitted em = new Emitted();
    ThreadOut t = null;
    Map<Long, ProcOut> procs = new HashMap<>();
    ProcOut p = null;
    long lastPid = Long.MIN_VALUE;
    long[] row = new long[J_WIDTH];
    try (j) {
      while (j.next()) {
        for (int i = 0; i < J_WIDTH; i++) {
          row[i] = j.get(i);
        }
        int pid = (int) row[J_PID];
        int tid = (int) row[J_TID];
        if (t == null || t.pid != pid || t.tid != tid) {
          if (t != null) {
            flush(t, out);
          }
          t = new ThreadOut(pid, tid);
          em.threads.add(key(pid, tid));
          long start = row[J_START];
          if (pid != lastPid && !em.processes.contains((long) pid)) {
            start = firstOfPid.getOrDefault((long) pid, start); // the process's records precede all its calls
          }
          if (pid != lastPid) {
            lastPid = pid;
            p = procs.computeIfAbsent((long) pid, k -> new ProcOut());
            if (em.processes.add((long) pid)) {
              String name = processNames.getOrDefault((long) pid, "");
              ProcessStart.Builder ps = ProcessStart.newBuilder().setPid(pid).setClock(ClockDomain.CLOCK_IMPORTED)
                  .setExecutable(name).setHostname(hostname).setCollectorVersion("apptrace-import");
              if (!name.isEmpty()) {
                ps.addArgv(name);
              }
              add(t, out, Event.newBuilder().setEntryNs(start).setProcessStart(ps));
              for (Note n : notes) {
                add(t, out, Event.newBuilder().setEntryNs(start).setNote(n));
              }
              for (DeviceInfo d : devicesOf(pid)) {
                add(t, out, Event.newBuilder().setEntryNs(start).setDeviceInfo(d));
              }
              // every stream the process uses, created before the first call of any of its threads
              for (Map.Entry<Long, Long> st : new java.util.TreeMap<>(streamsOfPid.getOrDefault((long) pid,
                  Map.of())).entrySet()) {
                StreamKind kind = streamKinds.getOrDefault(key(st.getValue(), st.getKey()), defaultStreamKind);
                if (kind != StreamKind.LEGACY) {
                  add(t, out, Event.newBuilder().setEntryNs(start).setStream(StreamOp.newBuilder()
                      .setStream(handle(st.getKey())).setFlags(kind == StreamKind.NON_BLOCKING ? 1 : 0)));
                }
              }
            }
          }
          add(t, out, Event.newBuilder().setEntryNs(start).setThreadStart(ThreadStart.newBuilder().setTid(tid)
              .setName(threadNames.getOrDefault(key(pid, tid), "")).setMainThread(pid == tid)));
        }
        emitRow(row, t, p, out, em);
      }
      if (t != null) {
        flush(t, out);
      }
    }
    em.events = events;
    em.syncRecords = syncsJoined;
    em.duplicateCalls = duplicates;
    warn("duplicate records of one call (same correlation id; older nsys exports write each runtime call"
        + " twice): merged", duplicates);
    warn("calls that begin before the previous call of their thread ends: moved to its end", em.overlapping);
    return em;
  }

  private long events;

  private void add(ThreadOut t, BatchPipe out, Event.Builder e) throws IOException {
    events++;
    t.batch.addEvents(e);
    if (t.batch.getEventsCount() >= BATCH_EVENTS) {
      flush(t, out);
    }
  }

  private static void flush(ThreadOut t, BatchPipe out) throws IOException {
    if (t.batch.getEventsCount() == 0) {
      return;
    }
    out.put(t.batch.build());
    t.batchSeq++;
    t.batch = Batch.newBuilder().setPid(t.pid).setTid(t.tid).setSeq(t.batchSeq);
  }

  private static boolean async(String fn) {
    return fn.contains("Async");
  }

  /** Which runtime or driver function waits how: the semantics an importer cannot get from fields. */
  private enum Semantics { NONE, DEVICE_SYNC, STREAM_SYNC, EVENT_SYNC, STREAM_WAIT, EVENT_RECORD }

  private static Semantics semantics(String fn) {
    return switch (fn) {
      case "cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize" -> Semantics.DEVICE_SYNC;
      case "cudaStreamSynchronize", "cudaStreamSynchronize_ptsz", "cuStreamSynchronize",
          "cuStreamSynchronize_ptsz" -> Semantics.STREAM_SYNC;
      case "cudaEventSynchronize", "cuEventSynchronize" -> Semantics.EVENT_SYNC;
      case "cudaStreamWaitEvent", "cudaStreamWaitEvent_ptsz", "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"
          -> Semantics.STREAM_WAIT;
      case "cudaEventRecord", "cudaEventRecord_ptsz", "cudaEventRecordWithFlags",
          "cudaEventRecordWithFlags_ptsz", "cuEventRecord", "cuEventRecord_ptsz", "cuEventRecordWithFlags",
          "cuEventRecordWithFlags_ptsz" -> Semantics.EVENT_RECORD;
      default -> Semantics.NONE;
    };
  }

  /** The stream handle the trace uses for a profiler stream id (0 for the legacy default stream). */
  private long stream(ThreadOut t, ProcOut p, BatchPipe out, long proc, long streamId, long start) {
    StreamKind kind = streamKinds.getOrDefault(key(proc, streamId), defaultStreamKind);
    return kind == StreamKind.LEGACY ? 0 : handle(streamId);
  }

  /** Handles 0, 1 and 2 mean the legacy and per-thread default streams: other ids move above them. */
  private static long handle(long streamId) {
    return streamId > 2 ? streamId : streamId + (1L << 32);
  }

  private void device(ThreadOut t, BatchPipe out, long device, long start) throws IOException {
    if (device >= 0 && device != t.device) {
      t.device = device;
      add(t, out, Event.newBuilder().setEntryNs(start).setSetDevice(SetDevice.newBuilder().setDevice((int) device)));
    }
  }

  private void emitRow(long[] row, ThreadOut t, ProcOut p, BatchPipe out, Emitted em) throws IOException {
    if (row[J_START] < t.lastEnd) {
      // a call inside the previous one (clock rounding, or a profiler that nests records): the
      // replay runs a thread's calls one after the other, so it starts when that one ended
      if (row[J_ROLE] == ROLE_CALL) {
        em.overlapping++;
      }
      long end = row[J_START] + row[J_DUR];
      row[J_START] = t.lastEnd;
      row[J_DUR] = Math.max(0, end - t.lastEnd);
    }
    t.lastEnd = row[J_START] + row[J_DUR];
    long start = row[J_START];
    long proc = row[J_PROC];
    String fn = strings.get(row[J_NAME]);
    Event.Builder e = Event.newBuilder().setEntryNs(start).setDurationNs(row[J_DUR]).setResult((int) row[J_RESULT]);
    Api api = ApiNames.forName(fn);
    e.setApi(api);
    if (api == Api.API_OTHER) {
      e.setApiName(fn);
    }
    long corr = row[J_CORR];
    if (corr != 0) {
      e.setCorrelationId(corr);
    }
    int gkind = (int) row[J_G];
    GpuActivity.Builder ga = null;
    if (gkind != 0) {
      long device = row[jg(G_DEVICE)];
      device(t, out, device, start);
      long handle = stream(t, p, out, proc, row[jg(G_STREAM)], start);
      long packed = row[jg(G_COPY)];
      CopyKind ck = CopyKind.forNumber((int) (packed & 0xff));
      MemoryKind src = MemoryKind.forNumber((int) (packed >> 8 & 0xff));
      MemoryKind dst = MemoryKind.forNumber((int) (packed >> 16 & 0xff));
      long peer = row[jg(G_PEER)];
      int srcDev = peer == 0 ? (int) device : (int) (peer & 0xffffffffL) - 1;
      int dstDev = peer == 0 ? (int) device : (int) (peer >>> 32) - 1;
      long grid = row[jg(G_GRID)];
      long block = row[jg(G_BLOCK)];
      int gx = (int) (grid & 0xffffffffL);
      int gy = (int) (grid >>> 32 & 0xffff);
      int gz = (int) (grid >>> 48 & 0xffff);
      int bx = (int) (block & 0xffff);
      int by = (int) (block >>> 16 & 0xffff);
      int bz = (int) (block >>> 32 & 0xffff);
      boolean asyncCall = row[J_ROLE] == ROLE_ORPHAN || async(fn);
      GpuActivityKind kind = GpuActivityKind.forNumber(gkind);
      switch (kind) {
        case GPU_MEMCPY, GPU_MEMCPY_PEER -> {
          em.memcpys++;
          boolean p2p = kind == GpuActivityKind.GPU_MEMCPY_PEER || srcDev != dstDev;
          e.setCopy(Copy.newBuilder().setBytes(row[jg(G_BYTES)]).setKindCalled(ck).setKindResolved(ck)
              .setResolution(p2p ? KindResolution.PEER_CALL : KindResolution.AS_CALLED).setStream(handle)
              .setAsync(asyncCall).setSrcDevice(host(src) ? -1 : srcDev).setDstDevice(host(dst) ? -1 : dstDev)
              .setDims(1).setDevice((int) device).setSrcKind(src).setDstKind(dst));
        }
        case GPU_MEMSET -> {
          em.memsets++;
          e.setMemset(Memset.newBuilder().setBytes(row[jg(G_BYTES)]).setValue((int) row[jg(G_VALUE)])
              .setStream(handle).setAsync(asyncCall).setDims(1).setDevice((int) device).setKind(dst));
        }
        case GPU_KERNEL -> {
          em.kernels++;
          // one kernel per mangled name where the source gives it: two instantiations of a template
          // can display alike
          long kernelId = (row[jg(G_MANGLED)] >= 0 ? row[jg(G_MANGLED)] : row[jg(G_NAME)]) + 1;
          if (p.kernels.add(kernelId)) {
            String name = strings.get(row[jg(G_NAME)]);
            String mangled = row[jg(G_MANGLED)] >= 0 ? strings.get(row[jg(G_MANGLED)]) : name;
            add(t, out, Event.newBuilder().setEntryNs(start).setKernelInfo(KernelInfo.newBuilder()
                .setKernelId(kernelId).setMangledName(mangled).setDemangledName(name)
                .setDecode(ParamDecode.NONE)));
          }
          e.setLaunch(KernelLaunch.newBuilder().setKernelId(kernelId).setGridX(gx).setGridY(gy).setGridZ(gz)
              .setBlockX(bx).setBlockY(by).setBlockZ(bz).setSharedMemBytes(row[jg(G_SHMEM)]).setStream(handle)
              .setDevice((int) device).setDecode(ParamDecode.NONE));
        }
        default -> warn("GPU records of an unknown kind (ignored)");
      }
      ga = GpuActivity.newBuilder().setCorrelationId(corr).setKind(kind).setStartNs(row[jg(G_START)])
          .setEndNs(row[jg(G_END)]).setDevice((int) device).setStreamId(row[jg(G_STREAM)])
          .setContext((int) row[jg(G_CONTEXT)]).setCopyKind(ck).setSrcKind(src).setDstKind(dst)
          .setBytes(row[jg(G_BYTES)]).setSrcDevice(srcDev).setDstDevice(dstDev).setGridX(gx).setGridY(gy)
          .setGridZ(gz).setBlockX(bx).setBlockY(by).setBlockZ(bz).setValue((int) row[jg(G_VALUE)]);
      if (row[jg(G_NAME)] >= 0) {
        ga.setName(strings.get(row[jg(G_NAME)]));
      }
      if (kind == GpuActivityKind.GPU_KERNEL) {
        resources(ga, row[jg(G_RES)], row[jg(G_SHMEM)], row[jg(G_OCC)], row[jg(G_PER_SM)]);
      }
      if (row[J_ROLE] == ROLE_ORPHAN) {
        em.orphans++;
      } else if (row[J_ROLE] == ROLE_EXTRA) {
        em.extras++;
      }
    } else {
      syncBody(row, e, fn, t, p, out, em);
    }
    if (row[J_ROLE] == ROLE_CALL) {
      em.calls++;
    }
    add(t, out, e);
    if (ga != null) {
      add(t, out, Event.newBuilder().setEntryNs(start).setGpu(ga));
    }
  }

  /** A kernel's registers, shared memory and Kineto's occupancy figures, as the source gave them. */
  private static void resources(GpuActivity.Builder ga, long res, long sharedMem, long occ, long perSm) {
    ga.setRegistersPerThread((int) (res & 0xffff));
    if ((res & RES_SPLIT) != 0) {
      long stat = res >>> 20;
      ga.setStaticSharedMemBytes(stat).setDynamicSharedMemBytes(sharedMem).setSharedMemPerBlockBytes(stat + sharedMem);
    } else if ((res & RES_TOTAL) != 0) {
      ga.setSharedMemPerBlockBytes(sharedMem);
    }
    if ((occ & OCC_GIVEN) != 0) {
      ga.setEstimatedOccupancyPct(Float.intBitsToFloat((int) occ));
    }
    if ((occ & PER_SM_GIVEN) != 0) {
      ga.setBlocksPerSm(Float.intBitsToFloat((int) perSm)).setWarpsPerSm(Float.intBitsToFloat((int) (perSm >>> 32)));
    }
  }

  private static int jg(int gField) {
    return J_G + gField - G_KIND;
  }

  private static boolean host(MemoryKind k) {
    return k == MemoryKind.PAGEABLE || k == MemoryKind.PINNED || k == MemoryKind.WRITE_COMBINED
        || k == MemoryKind.REGISTERED || k == MemoryKind.MAPPED;
  }

  /** The body of a call that issued no GPU work: what it synchronized with, if anything. */
  private void syncBody(long[] row, Event.Builder e, String fn, ThreadOut t, ProcOut p, BatchPipe out,
      Emitted em) throws IOException {
    Semantics sem = semantics(fn);
    if (sem == Semantics.NONE) {
      return;
    }
    long start = row[J_START];
    long proc = row[J_PROC];
    int type = (int) row[J_S];
    long sStream = row[J_S + S_STREAM - S_TYPE];
    long sEvent = row[J_S + S_EVENT - S_TYPE];
    long sWait = row[J_S + S_WAIT_STREAM - S_TYPE];
    long sDevice = row[J_S + S_DEVICE - S_TYPE];
    if (type != 0) {
      device(t, out, sDevice, start);
    }
    switch (sem) {
      case DEVICE_SYNC -> {
        em.syncs++;
        e.setSync(Sync.newBuilder().setScope(SyncScope.DEVICE_SCOPE).setDevice((int) t.device));
      }
      case STREAM_SYNC -> {
        em.syncs++;
        if (type != 0 && sStream >= 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE).setStream(stream(t, p, out, proc, sStream,
              start)).setDevice((int) t.device));
        } else {
          warn("stream synchronizations whose stream the source does not give (the replay infers it from the"
              + " measured times)");
          e.setSync(Sync.newBuilder().setScope(SyncScope.UNKNOWN_STREAM_SCOPE).setDevice((int) t.device));
        }
      }
      case EVENT_SYNC -> {
        em.syncs++;
        if (type != 0 && sEvent != 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.EVENT_SCOPE).setEvent(sEvent).setDevice((int) t.device));
        } else if (type != 0 && sWait >= 0) {
          e.setSync(Sync.newBuilder().setScope(SyncScope.STREAM_SCOPE).setStream(stream(t, p, out, proc, sWait,
              start)).setDevice((int) t.device));
        } else if (type == 0) {
          warn("event synchronizations the source says nothing more of (the replay infers the stream from the"
              + " measured times)");
          e.setSync(Sync.newBuilder().setScope(SyncScope.UNKNOWN_STREAM_SCOPE).setDevice((int) t.device));
        }
        // else: the source says the event was never recorded; the call waits for nothing
      }
      case STREAM_WAIT -> {
        if (type != 0 && sStream >= 0 && sEvent != 0) {
          em.syncs++;
          e.setEvent(EventOp.newBuilder().setEvent(sEvent).setStream(stream(t, p, out, proc, sStream, start)));
        } else {
          warn("stream waits on an event whose stream or record the source does not give (ignored)");
        }
      }
      case EVENT_RECORD -> {
        long rStream = row[J_R + R_STREAM - R_STREAM];
        long rEvent = row[J_R + R_EVENT - R_STREAM];
        long rDevice = row[J_R + R_DEVICE - R_STREAM];
        if (rStream >= 0 && rEvent != 0) {
          device(t, out, rDevice, start);
          e.setEvent(EventOp.newBuilder().setEvent(rEvent).setStream(stream(t, p, out, proc, rStream, start)));
        }
      }
      default -> { }
    }
  }

  @Override
  public void close() {
    calls.close();
    gpu.close();
    syncs.close();
    records.close();
  }
}
