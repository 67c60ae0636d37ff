package io.apptrace.trace;

import io.apptrace.proto.Api;
import io.apptrace.proto.Copy;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.Event;
import io.apptrace.proto.MemoryKind;
import java.util.Locale;

/**
 * How apptrace names a copy: its direction and the memory kinds of its two ends. One place for
 * the rules, used by {@code stats} and by the graph.
 */
public final class Copies {
  /** A copy's direction and the memory kinds of its source and destination. */
  public record Classified(Direction direction, MemoryKind src, MemoryKind dst) {
    /** "pinned->device", as stats and the graph name the pair. */
    public String memory() {
      return kindName(src) + "->" + kindName(dst);
    }
  }

  private Copies() {}

  /**
   * Classifies a copy event. {@code srcFound} and {@code dstFound} are the kinds of the
   * allocations the two addresses fall in (MEMORY_KIND_UNSPECIFIED when none; then the kinds a
   * profiler reported, in imported traces, stand in for them): they decide the
   * direction when the trace could not resolve cudaMemcpyDefault, and the host kinds (pageable
   * when no allocation covers a host address). A device-to-device copy between two devices, or
   * by cudaMemcpyPeer, is peer-to-peer.
   */
  public static Classified classify(Event e, MemoryKind srcFound, MemoryKind dstFound) {
    Copy c = e.getCopy();
    return classify(e.getApiValue(), c.getKindResolved(), c.getSrcKind(), c.getDstKind(), c.getSrcDevice(),
        c.getDstDevice(), srcFound, dstFound);
  }

  /**
   * {@link #classify(Event, MemoryKind, MemoryKind)} from the copy's fields: the call's Api number,
   * and the Copy message's kind_resolved, src_kind, dst_kind, src_device and dst_device.
   */
  public static Classified classify(int api, CopyKind kindResolved, MemoryKind srcKind, MemoryKind dstKind,
      int srcDevice, int dstDevice, MemoryKind srcFound, MemoryKind dstFound) {
    // an imported copy has no addresses, but the profiler said what memory each end was
    if (srcFound == MemoryKind.MEMORY_KIND_UNSPECIFIED) {
      srcFound = known(srcKind);
    }
    if (dstFound == MemoryKind.MEMORY_KIND_UNSPECIFIED) {
      dstFound = known(dstKind);
    }
    CopyKind k = kindResolved;
    if (k == CopyKind.COPY_KIND_UNSPECIFIED || k == CopyKind.DEFAULT || k == CopyKind.UNRECOGNIZED) {
      k = onDevice(srcFound)
          ? (onDevice(dstFound) ? CopyKind.DEVICE_TO_DEVICE : CopyKind.DEVICE_TO_HOST)
          : (onDevice(dstFound) ? CopyKind.HOST_TO_DEVICE : CopyKind.HOST_TO_HOST);
    }
    Direction d = switch (k) {
      case HOST_TO_DEVICE -> Direction.H2D;
      case DEVICE_TO_HOST -> Direction.D2H;
      case HOST_TO_HOST -> Direction.H2H;
      default -> Direction.D2D;
    };
    boolean peerCall = api == Api.cudaMemcpyPeer_VALUE || api == Api.cudaMemcpyPeerAsync_VALUE;
    if (d == Direction.D2D && (peerCall || (srcDevice >= 0 && dstDevice >= 0 && srcDevice != dstDevice))) {
      d = Direction.P2P;
    }
    MemoryKind src = srcFound;
    MemoryKind dst = dstFound;
    if (src == MemoryKind.MEMORY_KIND_UNSPECIFIED) {
      src = d == Direction.H2D || d == Direction.H2H ? MemoryKind.PAGEABLE : MemoryKind.DEVICE;
    }
    if (dst == MemoryKind.MEMORY_KIND_UNSPECIFIED) {
      dst = d == Direction.D2H || d == Direction.H2H ? MemoryKind.PAGEABLE : MemoryKind.DEVICE;
    }
    return new Classified(d, src, dst);
  }

  private static MemoryKind known(MemoryKind k) {
    return k == MemoryKind.UNRECOGNIZED ? MemoryKind.MEMORY_KIND_UNSPECIFIED : k;
  }

  /** Whether memory of this kind is on a device (or reachable as device memory). */
  public static boolean onDevice(MemoryKind k) {
    return k == MemoryKind.DEVICE || k == MemoryKind.MANAGED || k == MemoryKind.STREAM_ORDERED
        || k == MemoryKind.ARRAY;
  }

  /** The name of a memory kind in reports and JSON: "pinned", "write_combined", ... */
  public static String kindName(MemoryKind k) {
    return k == MemoryKind.MEMORY_KIND_UNSPECIFIED || k == MemoryKind.UNRECOGNIZED
        ? "unknown" : k.name().toLowerCase(Locale.ROOT);
  }
}
