package io.apptrace.graph;

/**
 * How sure the graph is of an edge. Copies and memsets know exactly what they read and write; a
 * kernel's reads and writes are inferred from its arguments, from its code where the module
 * carries PTX ({@link PtxParamUse}), and from the pointers copied into device variables
 * ({@link SymbolPointers}). Ordered from most to least certain.
 */
public enum Confidence {
  /** Known: a copy's or memset's ranges, a kernel reading through a pointer parameter. */
  EXACT("exact"),
  /** A kernel reads through a pointer to const: read-only, per its signature. */
  CONST_FROM_SIGNATURE("const-from-signature"),
  /** A kernel's code loads through the pointer and never stores through it: read-only. */
  READ_ONLY_FROM_CODE("read-only-from-code"),
  /** A kernel's code stores through the pointer (a store or an atomic): written. */
  WRITTEN_FROM_CODE("written-from-code"),
  /** A kernel may write through a non-const pointer parameter; assumed that it does. */
  ASSUMED_WRITTEN("assumed-written"),
  /** A value inside a by-value struct (or an untyped parameter) pointed into the allocation. */
  FOUND_IN_STRUCT("found-in-struct"),
  /**
   * A pointer copied into a device variable ({@code cudaMemcpyToSymbol}) that the kernel may
   * reach: the kernel's code reads the variable, or its code could not be read.
   */
  FROM_SYMBOL("from-symbol");

  private final String key;

  Confidence(String key) {
    this.key = key;
  }

  /** The name exporters write. */
  public String key() {
    return key;
  }

  /** The less certain of two. */
  public static Confidence weaker(Confidence a, Confidence b) {
    return a.ordinal() >= b.ordinal() ? a : b;
  }
}
