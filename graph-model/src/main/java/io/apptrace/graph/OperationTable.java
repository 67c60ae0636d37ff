package io.apptrace.graph;

import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.Direction;
import io.apptrace.trace.KernelResources;
import io.apptrace.util.ByteList;
import io.apptrace.util.IntList;
import io.apptrace.util.IntRows;
import io.apptrace.util.LongIntMap;
import io.apptrace.util.LongList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operations of a graph, by id in issue order: copies, memsets and kernel launches, each with
 * the values it reads (inputs) and writes (outputs) and what was recorded about it.
 *
 * <p>Rows of ints, not objects, and small ones (about 52 bytes per operation plus its edges): graphs
 * of tens of millions of operations. Threads, streams and call sites are stored once, in tables
 * the operations index; a kernel's grid lives in the columns copies use for bytes.
 */
public final class OperationTable {
  private static final Direction[] DIRECTIONS = Direction.values();
  private static final OpKind[] KINDS = OpKind.values();
  private static final Confidence[] CONFIDENCES = Confidence.values();

  /**
   * One row per operation, its fields side by side (one write stream as operations are added):
   * META: kind (2 bits) | api (12) | direction + 1 (3) | source kind (4) | destination kind (4) |
   * sync (1); BLOCK: a kernel's block, x (11 bits) | y (11) | z (10); NAME, THREAD, STREAM,
   * CALL_SITE: ids in the tables below; DURATION: ns, Integer.MAX_VALUE for longer (see
   * {@code longDurations}); ENTRY (2 columns): ns; BYTES (2 columns): of a copy or memset, a
   * kernel's grid: x (31 bits) | y (16) | z (16); IN_START, OUT_START: where its inputs and outputs
   * start in their tables (they end where the next operation's start).
   */
  private final IntRows rows = new IntRows(13);
  private static final int META = 0;
  private static final int BLOCK = 1;
  private static final int NAME = 2;
  private static final int THREAD = 3;
  private static final int STREAM = 4;
  private static final int DURATION = 5;
  private static final int CALL_SITE = 6;
  private static final int ENTRY = 7;
  private static final int BYTES = 9;
  private static final int IN_START = 11;
  private static final int OUT_START = 12;
  private final Map<Integer, Long> longDurations = new HashMap<>();
  /** A row per input: the value read, and the bytes of it read (-1: see {@code largeInBytes}). */
  private final IntRows inputs = new IntRows(2);
  private final ByteList inConfidence = new ByteList(2048);
  private final Map<Integer, Long> largeInBytes = new HashMap<>();
  private final IntList outValue = new IntList(2048);
  private final ByteList outConfidence = new ByteList(2048);
  private final Map<Integer, long[]> gpuTimes = new HashMap<>();
  /** Kernels' dynamic shared memory, bytes, where the launch asked for some. */
  private final Map<Integer, Long> launchSharedMem = new HashMap<>();
  /** Kernels' resources, where their GPU activity records give them. */
  private final Map<Integer, KernelResources> resources = new HashMap<>();
  private final List<String> names = new ArrayList<>();
  private final Map<String, Integer> nameIds = new HashMap<>();

  // the tables operations index
  private final IntList threadPid = new IntList();
  private final IntList threadTid = new IntList();
  private final LongIntMap threadIds = new LongIntMap();
  private final IntList streamPid = new IntList();
  private final LongList streamHandle = new LongList();
  private final IntList streamDevice = new IntList();
  private final Map<Long, LongIntMap> streamIds = new HashMap<>();
  private final IntList sitePid = new IntList();
  private final LongList siteAddress = new LongList();
  private final Map<Integer, LongIntMap> siteIds = new HashMap<>();
  private int lastSitePid = -1;
  private LongIntMap lastSites;

  /** Host threads seen (the thread indexes of the call log). */
  public int threadCount() {
    return threadPid.size();
  }

  /** The process of a thread index. */
  public int threadPid(int thread) {
    return threadPid.get(thread);
  }

  /** The thread id of a thread index. */
  public int threadTid(int thread) {
    return threadTid.get(thread);
  }

  /** A name by its id. */
  public String nameOf(int id) {
    return names.get(id);
  }

  /** The id of an operation name (names are stored once). */
  int nameId(String opName) {
    return nameIds.computeIfAbsent(opName, n -> {
      names.add(n);
      return names.size() - 1;
    });
  }

  /** The index of a (process, thread). */
  int threadId(int pid, int tid) {
    long key = ((long) pid << 32) | (tid & 0xffffffffL);
    int id = threadIds.get(key, -1);
    if (id < 0) {
      id = threadPid.add(pid);
      threadTid.add(tid);
      threadIds.put(key, id);
    }
    return id;
  }

  /** The index of a (process, stream handle, device). */
  int streamId(int pid, long handle, int device) {
    LongIntMap m = streamIds.computeIfAbsent(((long) pid << 32) | (device & 0xffffffffL), k -> new LongIntMap());
    int id = m.get(handle, -1);
    if (id < 0) {
      id = streamPid.add(pid);
      streamHandle.add(handle);
      streamDevice.add(device);
      m.put(handle, id);
    }
    return id;
  }

  /** The index of a call site (a return address in a process). */
  int callSiteId(int pid, long address) {
    LongIntMap m = pid == lastSitePid ? lastSites : siteIds.computeIfAbsent(pid, k -> new LongIntMap());
    lastSitePid = pid;
    lastSites = m;
    int id = m.get(address, -1);
    if (id < 0) {
      id = sitePid.add(pid);
      siteAddress.add(address);
      m.put(address, id);
    }
    return id;
  }

  /** Starts an operation; its inputs and outputs follow (see {@link #finish()}). */
  int begin(OpKind k, int apiNumber, int opName, int threadIndex, int streamIndex, long entry,
      long duration, long opBytes, int site) {
    int op = rows.addRow();
    int[] row = rows.chunk(op);
    int at = rows.base(op);
    row[at + META] = k.ordinal() | ((apiNumber & 0xfff) << 2);
    row[at + NAME] = opName;
    row[at + THREAD] = threadIndex;
    row[at + STREAM] = streamIndex;
    IntRows.putLong(row, at + ENTRY, entry);
    if (duration >= Integer.MAX_VALUE) {
      longDurations.put(op, duration);
      row[at + DURATION] = Integer.MAX_VALUE;
    } else {
      row[at + DURATION] = (int) Math.max(duration, 0);
    }
    IntRows.putLong(row, at + BYTES, opBytes);
    row[at + CALL_SITE] = site;
    row[at + IN_START] = inputs.size();
    row[at + OUT_START] = outValue.size();
    return op;
  }

  void copy(int op, Direction d, MemoryKind src, MemoryKind dst, boolean synchronous) {
    int m = rows.get(op, META) & 0x3fff;
    rows.set(op, META, m | ((d.ordinal() + 1) << 14) | ((number(src) & 0xf) << 17)
        | ((number(dst) & 0xf) << 21) | (synchronous ? 1 << 25 : 0));
  }

  /** A kind's number; 0 (unspecified) for a number this build does not know (a newer or damaged trace). */
  private static int number(MemoryKind k) {
    return k == MemoryKind.UNRECOGNIZED ? 0 : k.getNumber();
  }

  void markSynchronous(int op) {
    rows.set(op, META, rows.get(op, META) | (1 << 25));
  }

  void dims(int op, int gx, int gy, int gz, int bx, int by, int bz) {
    rows.setLong(op, BYTES, ((long) gx & 0x7fffffffL) | (((long) gy & 0xffffL) << 31) | (((long) gz & 0xffffL) << 47));
    rows.set(op, BLOCK, (bx & 0x7ff) | ((by & 0x7ff) << 11) | ((bz & 0x3ff) << 22));
  }

  void input(int value, Confidence c, long bytesRead) {
    int at = inputs.addRow();
    int[] row = inputs.chunk(at);
    int base = inputs.base(at);
    row[base] = value;
    inConfidence.add((byte) c.ordinal());
    if (bytesRead > Integer.MAX_VALUE) {
      largeInBytes.put(at, bytesRead);
      row[base + 1] = -1;
    } else {
      row[base + 1] = (int) bytesRead;
    }
  }

  void output(int value, Confidence c) {
    outValue.add(value);
    outConfidence.add((byte) c.ordinal());
  }

  void gpuTimes(int op, long startNs, long endNs) {
    gpuTimes.put(op, new long[] {startNs, endNs});
  }

  void launchSharedMemBytes(int op, long bytes) {
    if (bytes > 0) {
      launchSharedMem.put(op, bytes);
    }
  }

  void resources(int op, KernelResources r) {
    resources.put(op, r);
  }

  /** Ends the table: one more start offset closes the last operation's lists. */
  void finish() {
    outValue.trim();
    inputs.trim();
    rows.trim();
    inConfidence.trim();
    outConfidence.trim();
  }

  public int size() {
    return rows.size();
  }

  public OpKind kind(int op) {
    return KINDS[rows.get(op, META) & 3];
  }

  /** The Api number of the call (see api.proto). */
  public int api(int op) {
    return (rows.get(op, META) >>> 2) & 0xfff;
  }

  /**
   * Whether the operation is an MPI or NCCL call's access to one of its buffers: a copy named after
   * the MPI or NCCL function, which no runtime call is. A job's graph writes them into its ranks'
   * traces (io.apptrace.jobgraph, docs/JOBS.md); a trace as captured has none.
   */
  public boolean isCommBufferAccess(int op) {
    if (kind(op) != OpKind.COPY || api(op) != io.apptrace.proto.Api.API_OTHER_VALUE) {
      return false;
    }
    String n = name(op);
    return io.apptrace.trace.ApiNames.isMpi(n) || io.apptrace.trace.ApiNames.isNccl(n);
  }

  /** The runtime function (copies, memsets) or the kernel's display name. */
  public String name(int op) {
    return names.get(rows.get(op, NAME));
  }

  /** The id of the operation's name ({@link #nameOf}). */
  int nameId(int op) {
    return rows.get(op, NAME);
  }

  /** Names stored: ids run from 0 to this, exclusive. */
  int nameCount() {
    return names.size();
  }

  public int pid(int op) {
    return threadPid.get(rows.get(op, THREAD));
  }

  public int tid(int op) {
    return threadTid.get(rows.get(op, THREAD));
  }

  /** The stream handle as the program passed it (0 for the legacy default stream). */
  public long stream(int op) {
    return streamHandle.get(rows.get(op, STREAM));
  }

  public int device(int op) {
    return streamDevice.get(rows.get(op, STREAM));
  }

  /** CPU time of the API call's entry (CLOCK_MONOTONIC, ns). */
  public long entryNs(int op) {
    return rows.getLong(op, ENTRY);
  }

  /** Duration of the API call, ns. */
  public long durationNs(int op) {
    int d = rows.get(op, DURATION);
    return d == Integer.MAX_VALUE ? longDurations.getOrDefault(op, (long) d) : d;
  }

  /** Bytes copied or set; 0 for kernels. */
  public long bytes(int op) {
    return kind(op) == OpKind.KERNEL ? 0 : rows.getLong(op, BYTES);
  }

  /** Return address of the call in the program. */
  public long callSite(int op) {
    return siteAddress.get(rows.get(op, CALL_SITE));
  }

  /** A copy's direction; null for other operations. */
  public Direction direction(int op) {
    if (kind(op) != OpKind.COPY) {
      return null;
    }
    int d = (rows.get(op, META) >>> 14) & 7;
    return d == 0 ? null : DIRECTIONS[d - 1];
  }

  public MemoryKind srcMemory(int op) {
    return MemoryKind.forNumber((rows.get(op, META) >>> 17) & 0xf);
  }

  public MemoryKind dstMemory(int op) {
    return MemoryKind.forNumber((rows.get(op, META) >>> 21) & 0xf);
  }

  /** The call returned only once the operation was done (cudaMemcpy rather than cudaMemcpyAsync). */
  public boolean synchronous(int op) {
    return (rows.get(op, META) & (1 << 25)) != 0;
  }

  /** A kernel's grid: {x, y, z}. */
  public int[] grid(int op) {
    long g = kind(op) == OpKind.KERNEL ? rows.getLong(op, BYTES) : 0;
    return new int[] {(int) (g & 0x7fffffffL), (int) ((g >>> 31) & 0xffff), (int) ((g >>> 47) & 0xffff)};
  }

  /** A kernel's block: {x, y, z}. */
  public int[] block(int op) {
    int b = rows.get(op, BLOCK);
    return new int[] {b & 0x7ff, (b >>> 11) & 0x7ff, (b >>> 22) & 0x3ff};
  }

  /** The dynamic shared memory a kernel's launch asked for, bytes (0 for other operations). */
  public long launchSharedMemBytes(int op) {
    return launchSharedMem.getOrDefault(op, 0L);
  }

  /**
   * What a kernel ran with (registers, shared memory, Kineto's occupancy figures) as its GPU
   * activity record gives it; null when it gives nothing (captures on the simulated device,
   * profilers that do not record it).
   */
  public KernelResources resources(int op) {
    return resources.get(op);
  }

  /** GPU start and end (ns, the trace's clock) when recorded: {start, end}; else null. */
  public long[] gpuTimes(int op) {
    return gpuTimes.get(op);
  }

  private int inStart(int op) {
    return rows.get(op, IN_START);
  }

  private int outStart(int op) {
    return rows.get(op, OUT_START);
  }

  /**
   * Where {@code op}'s inputs end in the table of all inputs, which holds them operation after
   * operation (those of {@code op} start where {@code op - 1}'s end).
   */
  private int inputsEnd(int op) {
    return op + 1 < rows.size() ? inStart(op + 1) : inputs.size();
  }

  /** Where {@code op}'s outputs end in the table of all outputs (see {@link #inputsEnd}). */
  private int outputsEnd(int op) {
    return op + 1 < rows.size() ? outStart(op + 1) : outValue.size();
  }

  public int inputCount(int op) {
    return inputsEnd(op) - inStart(op);
  }

  public int input(int op, int k) {
    return inputs.get(inStart(op) + k, 0);
  }

  /** Bytes of input {@code k} the operation read (of the range the value holds). */
  public long inputBytes(int op, int k) {
    int at = inStart(op) + k;
    int b = inputs.get(at, 1);
    return b >= 0 ? b : largeInBytes.get(at);
  }

  public Confidence inputConfidence(int op, int k) {
    return CONFIDENCES[inConfidence.get(inStart(op) + k)];
  }

  public int outputCount(int op) {
    return outputsEnd(op) - outStart(op);
  }

  public int output(int op, int k) {
    return outValue.get(outStart(op) + k);
  }

  public Confidence outputConfidence(int op, int k) {
    return CONFIDENCES[outConfidence.get(outStart(op) + k)];
  }
}
