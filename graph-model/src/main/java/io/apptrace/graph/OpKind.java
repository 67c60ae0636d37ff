package io.apptrace.graph;

import java.util.Locale;

/** What an operation is. */
public enum OpKind {
  COPY,
  MEMSET,
  KERNEL;

  /** The name exporters write: "copy", "memset", "kernel". */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }
}
