package io.apptrace.imports;

import io.apptrace.proto.CopyKind;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;

/**
 * The layout of the GPU-operations table: one kernel, copy or memset with its measured GPU times,
 * keyed by (process key, correlation id, sequence number) like every table {@link ImportRows}
 * keeps. Rows are fixed-width arrays of longs, which {@link RecordSorter} sorts and spills; this
 * class names the columns and owns how the small ones are packed (grid and block, copy direction
 * and memory kinds, peer devices, a kernel's resources).
 *
 * <p>An instance is a view over an array at an offset, reused row after row: importers fill the
 * one {@link ImportAssembler#gpuOp()} gives them; a {@link JoinedRow} holds the columns from
 * {@link #KIND} on, and {@link JoinedRow#gpu()} views them through this class (a view inside a
 * joined row has no key columns).
 */
final class GpuOpRow {
  static final int PROC = 0;
  static final int CORR = 1;
  static final int SEQ = 2;
  /** The first column after the key: a joined row holds the columns from here on. */
  static final int KIND = 3; // GpuActivityKind number; 0 = none
  private static final int START = 4;
  private static final int END = 5;
  private static final int DEVICE = 6;
  private static final int STREAM = 7; // the profiler's stream id
  private static final int BYTES = 8;
  private static final int COPY = 9; // CopyKind | src MemoryKind << 8 | dst MemoryKind << 16
  private static final int NAME = 10; // kernel name id, -1 for none
  private static final int GRID = 11; // x | y << 32 | z << 48
  private static final int BLOCK = 12; // x | y << 16 | z << 32
  private static final int PEER = 13; // (src device + 1) | (dst device + 1) << 32; 0 when not given
  private static final int CONTEXT = 14;
  private static final int VALUE = 15; // memset value
  private static final int SHMEM = 16; // dynamic shared memory, bytes
  private static final int MANGLED = 17; // mangled kernel name id, -1 for none
  // registers per thread (bits 0-15) | RES_SPLIT | RES_TOTAL | static shared memory, bytes << 20
  private static final int RES = 18;
  private static final int OCC = 19; // occupancy % (float bits) | OCC_GIVEN | PER_SM_GIVEN
  private static final int PER_SM = 20; // blocks per SM (float bits) | warps per SM (float bits) << 32
  private static final int GRAPH = 21; // the profiler's graph id of work a graph launch ran; 0: none
  private static final int GRAPH_NODE = 22; // its graph node id
  /** Longs a row takes. */
  static final int WIDTH = 23;
  /** Columns from {@link #KIND} on: what a joined row holds of a GPU operation. */
  static final int PAYLOAD = WIDTH - KIND;

  /** Resources: static and dynamic shared memory are given apart (shared memory is the dynamic). */
  static final long RES_SPLIT = 1L << 16;
  /** Resources: shared memory is the shared memory per block, static and dynamic together (Kineto). */
  static final long RES_TOTAL = 1L << 17;
  private static final long OCC_GIVEN = 1L << 32;
  private static final long PER_SM_GIVEN = 1L << 33;

  final long[] cells;
  private final int base;

  /** A row of its own. */
  GpuOpRow() {
    this(new long[WIDTH], 0);
  }

  /** A view of the columns of {@code cells} from {@code base} on. */
  GpuOpRow(long[] cells, int base) {
    this.cells = cells;
    this.base = base;
  }

  /** Every column at its "not given" value: 0, and -1 for the names. */
  GpuOpRow clear() {
    java.util.Arrays.fill(cells, base, base + WIDTH, 0);
    cells[base + NAME] = -1;
    cells[base + MANGLED] = -1;
    return this;
  }

  /** This row's columns set to those of {@code other}. */
  GpuOpRow copyFrom(GpuOpRow other) {
    System.arraycopy(other.cells, other.base, cells, base, WIDTH);
    return this;
  }

  /** A new row holding the same columns (an importer keeps it while the reused one moves on). */
  GpuOpRow copy() {
    return new GpuOpRow().copyFrom(this);
  }

  /** This row set to the cursor's current record. */
  GpuOpRow read(RecordSorter.Cursor c) {
    for (int i = 0; i < WIDTH; i++) {
      cells[base + i] = c.get(i);
    }
    return this;
  }

  /** The columns from {@link #KIND} on, copied to {@code into} at {@code at}. */
  void copyPayloadTo(long[] into, int at) {
    System.arraycopy(cells, base + KIND, into, at, PAYLOAD);
  }

  /** The graph and graph node a graph launch ran this as (the profiler's ids; 0: not graph work). */
  GpuOpRow graph(long graphId, long graphNodeId) {
    cells[base + GRAPH] = graphId;
    cells[base + GRAPH_NODE] = graphNodeId;
    return this;
  }

  long graphId() {
    return cells[base + GRAPH];
  }

  long graphNodeId() {
    return cells[base + GRAPH_NODE];
  }

  // ---- the key ----

  GpuOpRow proc(long proc) {
    cells[base + PROC] = proc;
    return this;
  }

  /** The correlation id of the call that issued it; 0 when unknown. */
  GpuOpRow corr(long corr) {
    cells[base + CORR] = corr;
    return this;
  }

  long seq() {
    return cells[base + SEQ];
  }

  GpuOpRow seq(long seq) {
    cells[base + SEQ] = seq;
    return this;
  }

  // ---- every operation ----

  /** The GpuActivityKind number; 0 in a joined row whose call issued no GPU work. */
  int kindNumber() {
    return (int) cells[base + KIND];
  }

  GpuOpRow kind(GpuActivityKind kind) {
    cells[base + KIND] = kind.getNumber();
    return this;
  }

  long startNs() {
    return cells[base + START];
  }

  GpuOpRow startNs(long ns) {
    cells[base + START] = ns;
    return this;
  }

  long endNs() {
    return cells[base + END];
  }

  GpuOpRow endNs(long ns) {
    cells[base + END] = ns;
    return this;
  }

  long device() {
    return cells[base + DEVICE];
  }

  GpuOpRow device(long device) {
    cells[base + DEVICE] = device;
    return this;
  }

  /** The profiler's stream id. */
  long stream() {
    return cells[base + STREAM];
  }

  GpuOpRow stream(long stream) {
    cells[base + STREAM] = stream;
    return this;
  }

  long context() {
    return cells[base + CONTEXT];
  }

  GpuOpRow context(long context) {
    cells[base + CONTEXT] = context;
    return this;
  }

  // ---- copies and memsets ----

  long bytes() {
    return cells[base + BYTES];
  }

  GpuOpRow bytes(long bytes) {
    cells[base + BYTES] = bytes;
    return this;
  }

  /** A copy's direction and memory kinds (a memset's memory is the destination). */
  GpuOpRow copy(CopyKind kind, MemoryKind src, MemoryKind dst) {
    cells[base + COPY] = kind.getNumber() | (long) src.getNumber() << 8 | (long) dst.getNumber() << 16;
    return this;
  }

  CopyKind copyKind() {
    return CopyKind.forNumber((int) (cells[base + COPY] & 0xff));
  }

  MemoryKind srcKind() {
    return MemoryKind.forNumber((int) (cells[base + COPY] >> 8 & 0xff));
  }

  MemoryKind dstKind() {
    return MemoryKind.forNumber((int) (cells[base + COPY] >> 16 & 0xff));
  }

  /** A memset's memory kind (held as a copy's destination kind). */
  GpuOpRow memsetKind(MemoryKind kind) {
    return copy(CopyKind.COPY_KIND_UNSPECIFIED, MemoryKind.MEMORY_KIND_UNSPECIFIED, kind);
  }

  /** A peer copy's source and destination devices, as the profiler gives them. */
  GpuOpRow peers(long srcDevice, long dstDevice) {
    cells[base + PEER] = (srcDevice + 1) | (dstDevice + 1) << 32;
    return this;
  }

  /** The copy's source device: the peer source where given, else the device. */
  int srcDevice() {
    long peer = cells[base + PEER];
    return peer == 0 ? (int) device() : (int) (peer & 0xffffffffL) - 1;
  }

  /** The copy's destination device: the peer destination where given, else the device. */
  int dstDevice() {
    long peer = cells[base + PEER];
    return peer == 0 ? (int) device() : (int) (peer >>> 32) - 1;
  }

  /** A memset's value. */
  long value() {
    return cells[base + VALUE];
  }

  GpuOpRow value(long value) {
    cells[base + VALUE] = value;
    return this;
  }

  // ---- kernels ----

  /** The kernel's name, an id of the assembler's {@link Strings}; -1 for none. */
  long nameId() {
    return cells[base + NAME];
  }

  GpuOpRow nameId(long id) {
    cells[base + NAME] = id;
    return this;
  }

  /** The kernel's mangled name, an id of the assembler's {@link Strings}; -1 for none. */
  long mangledId() {
    return cells[base + MANGLED];
  }

  GpuOpRow mangledId(long id) {
    cells[base + MANGLED] = id;
    return this;
  }

  GpuOpRow grid(long x, long y, long z) {
    cells[base + GRID] = (x & 0xffffffffL) | (y & 0xffff) << 32 | (z & 0xffff) << 48;
    return this;
  }

  /** The grid as {@link #gridSql} packs it. */
  GpuOpRow packedGrid(long packed) {
    cells[base + GRID] = packed;
    return this;
  }

  int gridX() {
    return (int) (cells[base + GRID] & 0xffffffffL);
  }

  int gridY() {
    return (int) (cells[base + GRID] >>> 32 & 0xffff);
  }

  int gridZ() {
    return (int) (cells[base + GRID] >>> 48 & 0xffff);
  }

  GpuOpRow block(long x, long y, long z) {
    cells[base + BLOCK] = (x & 0xffff) | (y & 0xffff) << 16 | (z & 0xffff) << 32;
    return this;
  }

  /** The block as {@link #blockSql} packs it. */
  GpuOpRow packedBlock(long packed) {
    cells[base + BLOCK] = packed;
    return this;
  }

  int blockX() {
    return (int) (cells[base + BLOCK] & 0xffff);
  }

  int blockY() {
    return (int) (cells[base + BLOCK] >>> 16 & 0xffff);
  }

  int blockZ() {
    return (int) (cells[base + BLOCK] >>> 32 & 0xffff);
  }

  /** An SQL expression packing a grid as {@link #grid} does, so a query reads one column, not three. */
  static String gridSql(String x, String y, String z) {
    return "(" + x + " & 4294967295) | ((" + y + " & 65535) << 32) | ((" + z + " & 65535) << 48)";
  }

  /** An SQL expression packing a block as {@link #block} does. */
  static String blockSql(String x, String y, String z) {
    return "(" + x + " & 65535) | ((" + y + " & 65535) << 16) | ((" + z + " & 65535) << 32)";
  }

  /** Shared memory per block, bytes: the dynamic part, or the total (see the resources). */
  long sharedMemBytes() {
    return cells[base + SHMEM];
  }

  GpuOpRow sharedMemBytes(long bytes) {
    cells[base + SHMEM] = bytes;
    return this;
  }

  /**
   * Registers per thread (bits 0-15), {@link #RES_SPLIT} or {@link #RES_TOTAL}, and with
   * RES_SPLIT the static shared memory in bytes from bit 20 on.
   */
  long resources() {
    return cells[base + RES];
  }

  GpuOpRow resources(long packed) {
    cells[base + RES] = packed;
    return this;
  }

  /** Kineto's "est. achieved occupancy %". */
  GpuOpRow occupancyPct(float pct) {
    cells[base + OCC] |= Float.floatToRawIntBits(pct) & 0xffffffffL | OCC_GIVEN;
    return this;
  }

  boolean hasOccupancy() {
    return (cells[base + OCC] & OCC_GIVEN) != 0;
  }

  float occupancyPct() {
    return Float.intBitsToFloat((int) cells[base + OCC]);
  }

  /** Kineto's "blocks per SM" and "warps per SM". */
  GpuOpRow perSm(float blocks, float warps) {
    cells[base + OCC] |= PER_SM_GIVEN;
    cells[base + PER_SM] = Float.floatToRawIntBits(blocks) & 0xffffffffL | (long) Float.floatToRawIntBits(warps) << 32;
    return this;
  }

  boolean hasPerSm() {
    return (cells[base + OCC] & PER_SM_GIVEN) != 0;
  }

  float blocksPerSm() {
    return Float.intBitsToFloat((int) cells[base + PER_SM]);
  }

  float warpsPerSm() {
    return Float.intBitsToFloat((int) (cells[base + PER_SM] >>> 32));
  }
}
