package io.apptrace.trace;

/** The version of this apptrace build. */
public final class Version {
  /** Written into trace headers and shown by {@code apptrace --version}. */
  public static final String VERSION = "0.1.0";

  private Version() {}
}
