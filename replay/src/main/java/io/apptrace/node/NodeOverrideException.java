package io.apptrace.node;

/**
 * A {@code --set PATH=VALUE} whose PATH cannot be used: malformed, no field of the node, or a list
 * item id the node does not have. The message is one line: {@code no field
 * 'gpus.gpu0.copy_engine' in node ac922 (did you mean gpus.gpu0.copy_engines?)}. (A VALUE the
 * loader refuses is a {@link NodeFileException} located at the {@code --set}.)
 */
public final class NodeOverrideException extends Exception {
  private static final long serialVersionUID = 1L;

  public NodeOverrideException(String message) {
    super(message);
  }
}
