package io.apptrace.replay;

/** Why an operation started when it did, for the critical path ({@link CriticalPath}). */
final class Cause {
  /** Its call issued it, and nothing held it back. */
  static final int ISSUE = 0;
  /** It waited for an operation (stream order, an event, the legacy stream's rules). */
  static final int DEP = 1;
  /** It waited for its engine, which another operation held. */
  static final int ENGINE = 2;

  private Cause() {}
}
