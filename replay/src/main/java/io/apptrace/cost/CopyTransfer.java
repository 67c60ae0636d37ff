package io.apptrace.cost;

import io.apptrace.graph.Allocation;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OpKind;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.ValueTable;
import io.apptrace.node.TransferKind;
import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.Direction;

/**
 * A copy of a trace's graph as the transfer model prices it: its transfer kind, from its direction
 * and the memory kinds at its ends, and where it runs. The replay prices its copies by it, and
 * {@code validate transfers} takes a trace's measured copies by it, so both see a copy alike.
 *
 * @param kind the transfer kind (pinned_h2d, ...); null for a host-to-host copy, which the calling
 *     thread does itself
 * @param device the GPU the copy runs on, as the trace numbers devices; a GPU-to-GPU copy's source
 * @param peerDevice a GPU-to-GPU copy's destination GPU, else -1
 * @param numa the NUMA node of the copy's host memory when the trace knows it, else -1
 */
public record CopyTransfer(TransferKind kind, int device, int peerDevice, int numa) {
  /**
   * Copy {@code op} of graph {@code g}.
   *
   * @throws IllegalArgumentException if {@code op} is not a copy
   */
  public static CopyTransfer of(Dvdg g, int op) {
    OperationTable ops = g.operations();
    if (ops.kind(op) != OpKind.COPY) {
      throw new IllegalArgumentException("operation " + op + " is a " + ops.kind(op).key() + ", not a copy");
    }
    ValueTable values = g.values();
    Direction d = ops.direction(op);
    int numa = -1;
    int peer = -1;
    int device = ops.device(op);
    if (d == Direction.H2D && ops.inputCount(op) > 0) {
      numa = numa(g, values, ops.input(op, 0));
    } else if (d == Direction.D2H && ops.outputCount(op) > 0) {
      numa = numa(g, values, ops.output(op, 0));
    }
    if (d == Direction.P2P) {
      if (ops.inputCount(op) > 0) {
        device = Math.max(0, g.allocation(values.allocation(ops.input(op, 0))).device());
      }
      if (ops.outputCount(op) > 0) {
        peer = g.allocation(values.allocation(ops.output(op, 0))).device();
      }
    }
    return new CopyTransfer(kind(d, ops.srcMemory(op), ops.dstMemory(op)), device, peer, numa);
  }

  /**
   * The transfer kind of a copy from its direction and the memory kinds at its ends. Registered
   * and mapped memory are page-locked, so priced as pinned; managed memory copied explicitly too
   * (the driver has it resident by then). A prefetch of managed memory (managed at both ends, see
   * the graph's prefetch operations) is a prefetch kind.
   */
  static TransferKind kind(Direction d, MemoryKind src, MemoryKind dst) {
    if (d == null) {
      return null;
    }
    if (src == MemoryKind.MANAGED && dst == MemoryKind.MANAGED && (d == Direction.H2D || d == Direction.D2H)) {
      // a prefetch (cudaMemPrefetchAsync): the graph gives it managed memory at both ends
      return d == Direction.H2D ? TransferKind.PREFETCH_H2D : TransferKind.PREFETCH_D2H;
    }
    return switch (d) {
      case H2D -> hostKind(src, TransferKind.PINNED_H2D, TransferKind.PAGEABLE_H2D, TransferKind.WRITE_COMBINED_H2D);
      case D2H -> hostKind(dst, TransferKind.PINNED_D2H, TransferKind.PAGEABLE_D2H, TransferKind.WRITE_COMBINED_D2H);
      case D2D -> TransferKind.D2D;
      case P2P -> TransferKind.PEER;
      case H2H -> null;
    };
  }

  private static TransferKind hostKind(MemoryKind m, TransferKind pinned, TransferKind pageable, TransferKind wc) {
    return switch (m) {
      case PINNED, REGISTERED, MAPPED, MANAGED -> pinned;
      case WRITE_COMBINED -> wc;
      default -> pageable;
    };
  }

  private static int numa(Dvdg g, ValueTable values, int value) {
    Allocation a = g.allocation(values.allocation(value));
    return a.numaNode().orElse(-1);
  }
}
