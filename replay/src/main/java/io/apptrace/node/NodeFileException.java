package io.apptrace.node;

/**
 * A node file that cannot be used. The message is one line that names the file, the line and
 * column, the key, and what to do: {@code ac922.yaml:14:5: gpus[0].memory_bandwidth: "900 GBps"
 * has no known bandwidth unit; write it like "900 GB/s"}.
 */
public final class NodeFileException extends Exception {
  private static final long serialVersionUID = 1L;

  public NodeFileException(String message) {
    super(message);
  }
}
