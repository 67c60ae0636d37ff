package io.apptrace.replay;

import java.util.Locale;

/**
 * A change to the application, replayed (docs/REPLAY.md, "Application what-ifs"): {@code replay
 * --what-if T}. Each names one rewrite of the program ({@link WhatIfs} applies them, in the order
 * given); the node is unchanged.
 */
public sealed interface WhatIf {
  /** What {@code --what-if} accepts, for error messages. */
  String KNOWN = "pin-pageable, pin=ALLOCATION, async-copies, streams=N, keep-resident, merge-copies,"
      + " prefetch-managed, graph-launch";

  /** How the command line names it. */
  String key();

  /** Every pageable buffer copied to or from a GPU becomes pinned; pinning is charged from the node's host model. */
  record PinPageable() implements WhatIf {
    public String key() {
      return "pin-pageable";
    }
  }

  /** One pageable buffer becomes pinned: allocation {@code allocation} of the DVDG ({@code graph --json}'s {@code alloc}). */
  record PinOne(int allocation) implements WhatIf {
    public String key() {
      return "pin=" + allocation;
    }
  }

  /** Synchronous copies to a GPU become asynchronous on a copy stream, with the events their readers need. */
  record AsyncCopies() implements WhatIf {
    public String key() {
      return "async-copies";
    }
  }

  /** Independent chains of work are spread over {@code streams} streams per device. */
  record Streams(int streams) implements WhatIf {
    public String key() {
      return "streams=" + streams;
    }
  }

  /** A copy whose destination already holds what it would write is not made. */
  record KeepResident() implements WhatIf {
    public String key() {
      return "keep-resident";
    }
  }

  /** Back-to-back copies of adjacent regions in one direction become one copy. */
  record MergeCopies() implements WhatIf {
    public String key() {
      return "merge-copies";
    }
  }

  /** A prefetch before each kernel that would fault managed memory in from the host. */
  record PrefetchManaged() implements WhatIf {
    public String key() {
      return "prefetch-managed";
    }
  }

  /**
   * Each repeated run of stream work is launched as one CUDA graph ({@link GraphLaunchWhatIf});
   * applied after the others, whatever the order given.
   */
  record GraphLaunch() implements WhatIf {
    public String key() {
      return "graph-launch";
    }
  }

  /**
   * The what-if {@code text} names.
   *
   * @throws IllegalArgumentException with a one-line message naming the value and what is known
   */
  static WhatIf parse(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    switch (t) {
      case "pin-pageable":
        return new PinPageable();
      case "async-copies":
        return new AsyncCopies();
      case "keep-resident":
        return new KeepResident();
      case "merge-copies":
        return new MergeCopies();
      case "graph-launch":
        return new GraphLaunch();
      case "prefetch-managed":
        return new PrefetchManaged();
      default:
        break;
    }
    if (t.startsWith("pin=")) {
      return new PinOne(number(text, t.substring(4), 0, Integer.MAX_VALUE, "an allocation id from 'apptrace graph"
          + " --json' (its 'alloc')"));
    }
    if (t.startsWith("streams=")) {
      return new Streams(number(text, t.substring(8), 1, 1024, "a stream count from 1 to 1024"));
    }
    throw new IllegalArgumentException("--what-if '" + text + "' is not a what-if (known: " + KNOWN + ")");
  }

  private static int number(String text, String n, int min, int max, String what) {
    try {
      int v = Integer.parseInt(n.strip());
      if (v >= min && v <= max) {
        return v;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException("--what-if '" + text + "': '" + n + "' is not " + what);
  }
}
