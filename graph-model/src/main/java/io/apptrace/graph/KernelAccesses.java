package io.apptrace.graph;

import io.apptrace.proto.KernelInfo;
import io.apptrace.proto.KernelParam;
import io.apptrace.proto.MemoryKind;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A kernel launch's read and write sets, from its recorded argument bytes and the kernel's
 * parameter layout: every pointer argument that resolves to a live allocation (interior pointers
 * included) is read, and written unless it points to const; 8-byte words of by-value structs
 * and of untyped parameters that resolve to an allocation are read and written; where the
 * kernel's code was read ({@link PtxParamUse}), only what it loads from and stores through. How
 * far into the allocation a launch reaches is the graph builder's choice (docs/GRAPH.md).
 */
final class KernelAccesses {
  /** What the kernel does with one allocation. */
  static final class Access {
    final Allocation allocation;
    long offset;
    Confidence read; // null: not read
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

  /** A kernel's parameters as the launch path reads them, made once per kernel from its KernelInfo. */
  static final class Layout {
    private static final int POINTER = 0;
    private static final int CONST_POINTER = 1;
    private static final int WORDS = 2;
    /** Per parameter holding pointers: POINTER, CONST_POINTER or WORDS (a struct or untyped). */
    private final int[] type;
    /** Where the parameter's recorded bytes start in the argument buffer, and how many there are. */
    private final int[] at;
    private final int[] size;
    /** WORDS: the first byte of the parameter that is 8-aligned in the kernel's parameter buffer. */
    private final int[] firstWord;
    /** How sure a read and a write through the parameter are (null: none, per the code). */
    private final Confidence[] read;
    private final Confidence[] write;
    /** What the kernel's code says, or null when it could not be read. */
    final PtxParamUse.Uses uses;

    Layout(KernelInfo info) {
      this(info, null);
    }

    /** The layout, with what the kernel's code says of each parameter ({@code uses} null: unread). */
    Layout(KernelInfo info, PtxParamUse.Uses uses) {
      this.uses = uses;
      int n = 0;
      int[] t = new int[info.getParamsCount()];
      int[] a = new int[t.length];
      int[] z = new int[t.length];
      int[] w = new int[t.length];
      Confidence[] r = new Confidence[t.length];
      Confidence[] x = new Confidence[t.length];
      for (KernelParam p : info.getParamsList()) {
        int kind = switch (p.getType()) {
          case POINTER -> POINTER;
          case CONST_POINTER -> CONST_POINTER;
          case AGGREGATE, OPAQUE -> WORDS;
          default -> -1; // scalars hold no pointers
        };
        if (kind < 0 || p.getRecordedSize() == 0) {
          continue;
        }
        int code = uses == null ? PtxParamUse.UNKNOWN : uses.param(p.getIndex());
        r[n] = readConfidence(kind, code);
        x[n] = writeConfidence(kind, code);
        if (r[n] == null && x[n] == null) {
          continue; // the code neither loads nor stores through it
        }
        t[n] = kind;
        a[n] = p.getRecordedOffset();
        z[n] = p.getRecordedSize();
        w[n] = (8 - (p.getOffset() % 8)) % 8; // pointers in structs are 8-aligned
        n++;
      }
      type = java.util.Arrays.copyOf(t, n);
      at = java.util.Arrays.copyOf(a, n);
      size = java.util.Arrays.copyOf(z, n);
      firstWord = java.util.Arrays.copyOf(w, n);
      read = java.util.Arrays.copyOf(r, n);
      write = java.util.Arrays.copyOf(x, n);
    }

    /** A read through a parameter of {@code kind} whose code said {@code code} (null: none). */
    private static Confidence readConfidence(int kind, int code) {
      boolean unknown = (code & PtxParamUse.UNKNOWN) != 0;
      if (!unknown && (code & PtxParamUse.LOAD) == 0) {
        return null;
      }
      return switch (kind) {
        case POINTER -> unknown || (code & PtxParamUse.STORE) != 0 ? Confidence.EXACT : Confidence.READ_ONLY_FROM_CODE;
        case CONST_POINTER -> Confidence.CONST_FROM_SIGNATURE;
        default -> Confidence.FOUND_IN_STRUCT;
      };
    }

    /** A write through a parameter of {@code kind} whose code said {@code code} (null: none). */
    private static Confidence writeConfidence(int kind, int code) {
      if ((code & PtxParamUse.UNKNOWN) != 0) {
        return switch (kind) {
          case POINTER -> Confidence.ASSUMED_WRITTEN;
          case CONST_POINTER -> null;
          default -> Confidence.FOUND_IN_STRUCT;
        };
      }
      if ((code & PtxParamUse.STORE) == 0) {
        return null;
      }
      return kind == WORDS ? Confidence.FOUND_IN_STRUCT : Confidence.WRITTEN_FROM_CODE;
    }

    /** {@link KernelAccesses#lowestPointerIn} for this layout. */
    long lowestPointerIn(byte[] args, long from, long before) {
      return KernelAccesses.lowestPointerIn(args, this, from, before);
    }
  }

  /**
   * The lowest pointer word of {@code args} (laid out as {@code layout} says) in
   * {@code [from, before)}, or {@code before} when there is none: pointer parameters, and the
   * aligned words of structs and untyped parameters.
   */
  static long lowestPointerIn(byte[] args, Layout layout, long from, long before) {
    long lowest = before;
    for (int i = 0; i < layout.type.length; i++) {
      int at = layout.at[i];
      int size = layout.size[i];
      if (at + size > args.length) {
        continue;
      }
      int first = layout.type[i] == Layout.WORDS ? layout.firstWord[i] : 0;
      if (layout.type[i] != Layout.WORDS && size != 8) {
        continue;
      }
      for (int o = first; o + 8 <= size; o += 8) {
        long w = (long) LONG_LE.get(args, at + o);
        if (Long.compareUnsigned(w, from) >= 0 && Long.compareUnsigned(w, lowest) < 0) {
          lowest = w;
        }
      }
    }
    return lowest;
  }

  private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);

  /**
   * Adds to {@code byAlloc} (empty) the accesses of one launch (its recorded argument bytes, not
   * to be changed), by allocation (each allocation once).
   */
  static void of(byte[] args, Layout layout, Resolver resolver, List<Access> byAlloc) {
    for (int i = 0; i < layout.type.length; i++) {
      int at = layout.at[i];
      int size = layout.size[i];
      if (at + size > args.length) {
        continue;
      }
      if (layout.type[i] != Layout.WORDS) {
        if (size == 8) {
          word((long) LONG_LE.get(args, at), resolver, byAlloc, layout.read[i], layout.write[i]);
        }
      } else {
        for (int o = layout.firstWord[i]; o + 8 <= size; o += 8) {
          word((long) LONG_LE.get(args, at + o), resolver, byAlloc, layout.read[i], layout.write[i]);
        }
      }
    }
  }

  /**
   * Adds (or merges into the access to its allocation) a read and a write, either null, through
   * {@code address}, when it points into memory a kernel can reach.
   */
  static void word(long address, Resolver resolver, List<Access> byAlloc,
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
    if (read != null && (existing.read == null || read.ordinal() < existing.read.ordinal())) {
      existing.read = read;
    }
    if (write != null && (existing.write == null || write.ordinal() < existing.write.ordinal())) {
      existing.write = write;
    }
  }
}
