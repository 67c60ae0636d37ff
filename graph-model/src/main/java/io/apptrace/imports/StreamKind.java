package io.apptrace.imports;

/** How a stream of the source orders against the others. */
enum StreamKind {
  /** The device's legacy default (NULL) stream. */
  LEGACY,
  /** A stream created without cudaStreamNonBlocking. */
  BLOCKING,
  /** A stream created with cudaStreamNonBlocking. */
  NON_BLOCKING
}
