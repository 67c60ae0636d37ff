package io.apptrace.node;

import java.util.Optional;

/**
 * The kinds of transfer a node file measures and the cost model prices, by the name node files
 * and {@code --json} outputs use.
 */
public enum TransferKind {
  PINNED_H2D("pinned_h2d", Way.H2D),
  PINNED_D2H("pinned_d2h", Way.D2H),
  PAGEABLE_H2D("pageable_h2d", Way.H2D),
  PAGEABLE_D2H("pageable_d2h", Way.D2H),
  WRITE_COMBINED_H2D("write_combined_h2d", Way.H2D),
  WRITE_COMBINED_D2H("write_combined_d2h", Way.D2H),
  D2D("d2d", Way.D2D),
  PEER("peer", Way.P2P),
  STAGED_P2P("staged_p2p", Way.P2P),
  PREFETCH_H2D("prefetch_h2d", Way.H2D),
  PREFETCH_D2H("prefetch_d2h", Way.D2H);

  /** Which way the data goes. */
  public enum Way {
    H2D, D2H, D2D, P2P
  }

  private final String key;
  private final Way way;

  TransferKind(String key, Way way) {
    this.key = key;
    this.way = way;
  }

  public String key() {
    return key;
  }

  public Way way() {
    return way;
  }

  /** The pinned kind of the same direction (what a kind without its own latency falls back to). */
  public TransferKind pinnedOfSameWay() {
    return switch (way) {
      case H2D -> PINNED_H2D;
      case D2H -> PINNED_D2H;
      default -> this;
    };
  }

  public static Optional<TransferKind> of(String key) {
    for (TransferKind k : values()) {
      if (k.key.equals(key)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  /** The kind for a copy direction and host memory kind as the CLI names them. */
  public static Optional<TransferKind> of(String copy, String memory) {
    String m = memory.replace('-', '_');
    return switch (copy) {
      case "h2d", "d2h" -> of(m + "_" + copy);
      case "d2d" -> Optional.of(D2D);
      case "p2p" -> Optional.of(PEER);
      default -> Optional.empty();
    };
  }
}
