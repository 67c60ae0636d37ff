package io.apptrace.graph;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Pointers a program copied into its device variables ({@code cudaMemcpyToSymbol} of a
 * {@code __constant__} struct of pointers, as Rodinia's heartwall does): a kernel that reads the
 * variable reaches the memory they point to, though no parameter says so. Each aligned 8-byte
 * word copied into a variable that points into an allocation a kernel can reach, when the kernel
 * launches, is an access of the kernel: read and written ({@link Confidence#FROM_SYMBOL}), or as
 * its PTX says ({@link PtxParamUse}: only the words it reads, loaded from or stored through).
 */
final class SymbolPointers {
  /** Words of a variable kept at most: the first 64 KiB, all of a constant bank. */
  private static final int MAX_WORDS = 8192;

  /** A variable and the words copied into it (0: none copied, or a null pointer). */
  private record Variable(Allocation allocation, long[] words) {}

  private final List<Variable> variables = new ArrayList<>();

  /** Whether no pointer was copied into a variable: launches have nothing to look up. */
  boolean isEmpty() {
    return variables.isEmpty();
  }

  /** {@code data} was copied into variable {@code v} at byte {@code offset}. */
  void copied(Allocation v, long offset, byte[] data) {
    Variable var = null;
    for (Variable x : variables) {
      if (x.allocation() == v) {
        var = x;
      }
    }
    if (var == null) {
      var = new Variable(v, new long[(int) Math.min(MAX_WORDS, (v.bytes() + 7) / 8)]);
      variables.add(var);
    }
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    long first = (offset + 7) / 8; // words wholly inside the copy
    for (long w = first; w < var.words().length && w * 8 + 8 <= offset + data.length; w++) {
      var.words()[(int) w] = b.getLong((int) (w * 8 - offset));
    }
  }

  /**
   * Adds to {@code accesses} what a launch of a kernel whose code says {@code uses} (null: not
   * read) reaches through the variables' pointers.
   */
  void reach(PtxParamUse.Uses uses, KernelAccesses.Resolver resolver, List<KernelAccesses.Access> accesses) {
    for (Variable v : variables) {
      String name = v.allocation().label();
      long[] words = v.words();
      for (int w = 0; w < words.length; w++) {
        if (words[w] == 0) {
          continue;
        }
        int f = uses == null ? PtxParamUse.UNKNOWN : uses.variable(name, w * 8L);
        if (f < 0) {
          continue; // the kernel never reads this word
        }
        boolean unknown = (f & PtxParamUse.UNKNOWN) != 0;
        Confidence read = unknown || (f & PtxParamUse.LOAD) != 0 ? Confidence.FROM_SYMBOL : null;
        Confidence write = unknown || (f & PtxParamUse.STORE) != 0 ? Confidence.FROM_SYMBOL : null;
        if (read != null || write != null) {
          KernelAccesses.word(words[w], resolver, accesses, read, write);
        }
      }
    }
  }
}
