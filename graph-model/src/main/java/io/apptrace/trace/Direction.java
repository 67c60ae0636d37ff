package io.apptrace.trace;

/** The direction of a copy, named as {@code stats --json} names it. */
public enum Direction {
  H2D("h2d"),
  D2H("d2h"),
  D2D("d2d"),
  P2P("p2p"),
  H2H("h2h");

  private final String key;

  Direction(String key) {
    this.key = key;
  }

  /** The JSON key. */
  public String key() {
    return key;
  }
}
