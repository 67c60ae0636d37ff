package io.apptrace.kernel;

import java.util.Optional;

/** A launch dimension, a grid's or a block's ({@code 2077x1x1}). */
public record Dim3(int x, int y, int z) {
  public Dim3 {
    if (x < 1 || y < 1 || z < 1) {
      throw new IllegalArgumentException("a launch dimension is at least 1x1x1: " + x + "x" + y + "x" + z);
    }
  }

  /** Blocks in a grid, threads in a block. */
  public long count() {
    return (long) x * y * z;
  }

  /** {@code XxYxZ}, {@code XxY} or {@code X}; empty for anything else. */
  public static Optional<Dim3> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String[] p = text.strip().split("x");
    if (p.length < 1 || p.length > 3) {
      return Optional.empty();
    }
    int[] v = {1, 1, 1};
    try {
      for (int i = 0; i < p.length; i++) {
        v[i] = Integer.parseInt(p[i].strip());
        if (v[i] < 1) {
          return Optional.empty();
        }
      }
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.of(new Dim3(v[0], v[1], v[2]));
  }

  @Override
  public String toString() {
    return x + "x" + y + "x" + z;
  }
}
