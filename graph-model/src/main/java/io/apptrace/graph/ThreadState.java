package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;

/**
 * One host thread while its events are read ({@link Processes}): what its calls look up every
 * time. Threads' events interleave in time order, often one by one, so this is kept per thread,
 * not as "the last one".
 */
final class ThreadState {
  final int pid;
  final int tid;
  final ProcessState proc;
  /** The operation table's id for this thread (-1: no operation yet). */
  int tableId = -1;
  /** The current device (cudaSetDevice), 0 until set. */
  int device;
  /** The allocations it used last. */
  final AddressSpaces.Mine allocations = new AddressSpaces.Mine();
  /** What it knows to have finished ({@link HappensBefore}), looked up on its first operation. */
  HappensBefore.ThreadClock clock;
  /** The kernel it launched last, with its name id and parameter layout (info null: none). */
  long kernelId;
  KernelInfo kernel;
  int kernelName;
  KernelAccesses.Layout layout;

  /** The operation table's ids of its recent call sites, by a hash of the address (id -1: none). */
  private final long[] siteAddresses = new long[8];
  private final int[] siteIds = {-1, -1, -1, -1, -1, -1, -1, -1};

  ThreadState(int pid, int tid, ProcessState proc) {
    this.pid = pid;
    this.tid = tid;
    this.proc = proc;
  }

  /** The operation table's id of a call site of this thread. */
  int callSite(OperationTable ops, long address) {
    int slot = (int) ((address * 0x9E3779B97F4A7C15L) >>> 61);
    if (siteIds[slot] < 0 || siteAddresses[slot] != address) {
      siteAddresses[slot] = address;
      siteIds[slot] = ops.callSiteId(pid, address);
    }
    return siteIds[slot];
  }

  /** What it knows to have finished, looked up the first time it is needed. */
  HappensBefore.ThreadClock clock() {
    if (clock == null) {
      clock = proc.order.threadClock(tid);
    }
    return clock;
  }

  /** The stream {@code handle} names in a call {@code api} of this thread, on its current device. */
  HappensBefore.Stream stream(int api, long handle) {
    return proc.order.stream(handle, device, tid, StreamOrder.perThreadDefault(api));
  }
}
