package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelLaunch;
import io.apptrace.proto.KernelParam;
import io.apptrace.proto.MemoryKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A kernel launch's read and write sets, from its recorded argument bytes and the kernel's
 * parameter layout: every pointer argument that resolves to a live allocation (interior pointers
 * included) is read, and written unless it points to const; 8-byte words of by-value structs
 * and of untyped parameters that resolve to an allocation are read and written. A pointer into
 * an allocation is taken to reach from where it points to the allocation's end.
 */
final class KernelAccesses {
  /** What the kernel does with one allocation. */
  static final class Access {
    final Allocation allocation;
    long offset;
    Confidence read;
    Confidence write; // null: not written

    Access(Allocation allocation, long offset, Confidence read, Confidence write) {
      this.allocation = allocation;
      this.offset = offset;
      this.read = read;
      this.write = write;
    }
  }

  /** Memory a kernel can reach by pointer: device, managed, and page-locked host memory. */
  private static boolean kernelReachable(Allocation a) {
    if (a.implicit()) {
      return false;
    }
    MemoryKind k = a.kind();
    return k != MemoryKind.PAGEABLE && k != MemoryKind.ARRAY;
  }

  interface Resolver {
    /** The allocation holding {@code address}, or null. */
    Allocation resolve(long address);
  }

  private KernelAccesses() {}

  /** The accesses of one launch, by allocation (each allocation once). */
  static List<Access> of(KernelLaunch launch, KernelInfo info, Resolver resolver) {
    List<Access> byAlloc = new ArrayList<>(4);
    ByteBuffer args = launch.getArgs().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    for (KernelParam p : info.getParamsList()) {
      int at = p.getRecordedOffset();
      int size = p.getRecordedSize();
      if (size == 0 || at + size > args.limit()) {
        continue;
      }
      switch (p.getType()) {
        case POINTER -> pointer(args, at, size, resolver, byAlloc, Confidence.EXACT, Confidence.ASSUMED_WRITTEN);
        case CONST_POINTER -> pointer(args, at, size, resolver, byAlloc, Confidence.CONST_FROM_SIGNATURE, null);
        case AGGREGATE, OPAQUE -> {
          // 8-byte words aligned in the parameter buffer (pointers in structs are 8-aligned)
          for (int o = (8 - (p.getOffset() % 8)) % 8; o + 8 <= size; o += 8) {
            word(args.getLong(at + o), resolver, byAlloc, Confidence.FOUND_IN_STRUCT, Confidence.FOUND_IN_STRUCT);
          }
        }
        default -> {
          // scalars hold no pointers
        }
      }
    }
    return byAlloc;
  }

  private static void pointer(ByteBuffer args, int at, int size, Resolver resolver,
      List<Access> byAlloc, Confidence read, Confidence write) {
    if (size == 8) {
      word(args.getLong(at), resolver, byAlloc, read, write);
    }
  }

  private static void word(long address, Resolver resolver, List<Access> byAlloc,
      Confidence read, Confidence write) {
    if (address == 0) {
      return;
    }
    Allocation a = resolver.resolve(address);
    if (a == null || !kernelReachable(a)) {
      return;
    }
    long offset = address - a.start();
    Access existing = null;
    for (Access x : byAlloc) { // a launch touches a handful of allocations: a list is fastest
      if (x.allocation == a) {
        existing = x;
        break;
      }
    }
    if (existing == null) {
      byAlloc.add(new Access(a, offset, read, write));
      return;
    }
    existing.offset = Math.min(existing.offset, offset);
    if (read.ordinal() < existing.read.ordinal()) {
      existing.read = read;
    }
    if (write != null && (existing.write == null || write.ordinal() < existing.write.ordinal())) {
      existing.write = write;
    }
  }
}
