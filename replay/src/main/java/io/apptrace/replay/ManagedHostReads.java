package io.apptrace.replay;

import java.util.Locale;

/**
 * What a replay assumes of the host's reads of managed memory, which a trace cannot see
 * (docs/REPLAY.md, "Managed memory"; {@code replay --managed-host-reads}).
 */
public enum ManagedHostReads {
  /**
   * After each host synchronization, the host reads what the GPU wrote to managed memory: it
   * migrates back by page faults, the thread's time after the call (the default).
   */
  AFTER_SYNC("sync"),
  /** The host reads nothing the GPU wrote: what ends on a GPU is reported, not priced. */
  NONE("none");

  private final String key;

  ManagedHostReads(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  /** The value of a {@code --managed-host-reads} key, case-insensitive; null if none. */
  public static ManagedHostReads of(String key) {
    for (ManagedHostReads r : values()) {
      if (r.key.equals(key.toLowerCase(Locale.ROOT))) {
        return r;
      }
    }
    return null;
  }
}
