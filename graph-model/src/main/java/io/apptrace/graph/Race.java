package io.apptrace.graph;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * An operation that read a value written in another stream, with no event or synchronization
 * ordering the write before the read: on a GPU the read may see the old contents.
 *
 * <p>A race is <b>certain</b> when both ends' extents are known (copies and memsets) and
 * <b>possible</b> when either end rests on a guess; {@link #guesses()} names them.
 *
 * @param writer the operation that produced the value
 * @param reader the operation that read it
 * @param value the value
 * @param guesses what the race rests on that the trace does not show (empty: certain)
 */
public record Race(int writer, int reader, int value, Set<Guess> guesses) {
  /** What a possible race rests on, in the order the summary names them. */
  public enum Guess {
    /** A kernel's footprint (which bytes it touches) is inferred from its arguments. */
    KERNEL_FOOTPRINT("kernel footprints inferred"),
    /** The writer's write through a non-const pointer is assumed (its code was not read). */
    ASSUMED_WRITE("writes assumed through non-const pointers"),
    /** A pointer found in a struct's words (or an untyped parameter): it may be an integer. */
    STRUCT_WORD("pointers found in structs"),
    /** A pointer copied into a device variable that the kernel may not use. */
    SYMBOL_POINTER("pointers in device variables");

    private final String text;

    Guess(String text) {
      this.text = text;
    }

    /** How the summary names it. */
    public String text() {
      return text;
    }

    /** What an end of the race with this confidence rests on, or null for none. */
    static Guess of(Confidence c) {
      return switch (c) {
        case ASSUMED_WRITTEN -> ASSUMED_WRITE;
        case FOUND_IN_STRUCT -> STRUCT_WORD;
        case FROM_SYMBOL -> SYMBOL_POINTER;
        default -> null;
      };
    }
  }

  public Race {
    Objects.requireNonNull(guesses, "guesses");
    guesses = guesses.isEmpty() ? Set.of() : Set.copyOf(guesses);
  }

  /** A race between two operations whose extents are known. */
  public Race(int writer, int reader, int value) {
    this(writer, reader, value, Set.of());
  }

  /**
   * The race between {@code writer}'s write of {@code value} and {@code reader}'s read of it
   * (with confidence {@code read}), with the guesses its two ends rest on.
   */
  static Race between(OperationTable ops, int writer, int reader, int value, Confidence read) {
    EnumSet<Guess> g = EnumSet.noneOf(Guess.class);
    if (ops.kind(writer) == OpKind.KERNEL || ops.kind(reader) == OpKind.KERNEL) {
      g.add(Guess.KERNEL_FOOTPRINT);
    }
    for (int k = 0; k < ops.outputCount(writer); k++) {
      if (ops.output(writer, k) == value && Guess.of(ops.outputConfidence(writer, k)) != null) {
        g.add(Guess.of(ops.outputConfidence(writer, k)));
      }
    }
    if (Guess.of(read) != null) {
      g.add(Guess.of(read));
    }
    return new Race(writer, reader, value, g);
  }

  /** Both ends' extents are known: the race is a fact of the capture, not a guess. */
  public boolean certain() {
    return guesses.isEmpty();
  }

  /** {@code certain} or {@code possible}, as the exports write it. */
  public String confidence() {
    return certain() ? "certain" : "possible";
  }

  /** The guesses in their declared order. */
  public EnumSet<Guess> guessSet() {
    return guesses.isEmpty() ? EnumSet.noneOf(Guess.class) : EnumSet.copyOf(guesses);
  }
}
