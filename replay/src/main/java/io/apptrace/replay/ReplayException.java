package io.apptrace.replay;

/** A program that cannot be replayed on a node as asked; the message says why and what to do. */
public final class ReplayException extends Exception {
  private static final long serialVersionUID = 1L;

  public ReplayException(String message) {
    super(message);
  }
}
