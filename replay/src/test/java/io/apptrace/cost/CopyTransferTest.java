package io.apptrace.cost;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.TransferKind;
import io.apptrace.proto.MemoryKind;
import io.apptrace.trace.Direction;
import org.junit.jupiter.api.Test;

/**
 * The transfer kind a copy is priced as, from its direction and the memory kinds at its ends
 * (docs/COST-MODEL.md, "Each kind of transfer"): page-locked host memory of any kind is priced as
 * pinned, write-combined memory apart, anything else as pageable.
 */
class CopyTransferTest {
  @Test
  void pageLockedHostMemoryOfAnyKindIsPricedAsPinned() {
    for (MemoryKind m : new MemoryKind[] {MemoryKind.PINNED, MemoryKind.REGISTERED, MemoryKind.MAPPED,
        MemoryKind.MANAGED}) {
      assertThat(CopyTransfer.kind(Direction.H2D, m, MemoryKind.DEVICE)).as("%s to the GPU", m)
          .isEqualTo(TransferKind.PINNED_H2D);
      assertThat(CopyTransfer.kind(Direction.D2H, MemoryKind.DEVICE, m)).as("%s from the GPU", m)
          .isEqualTo(TransferKind.PINNED_D2H);
    }
  }

  @Test
  void writeCombinedAndPageableMemoryHaveTheirOwnKinds() {
    assertThat(CopyTransfer.kind(Direction.H2D, MemoryKind.WRITE_COMBINED, MemoryKind.DEVICE))
        .isEqualTo(TransferKind.WRITE_COMBINED_H2D);
    assertThat(CopyTransfer.kind(Direction.D2H, MemoryKind.DEVICE, MemoryKind.WRITE_COMBINED))
        .isEqualTo(TransferKind.WRITE_COMBINED_D2H);
    assertThat(CopyTransfer.kind(Direction.H2D, MemoryKind.PAGEABLE, MemoryKind.DEVICE))
        .isEqualTo(TransferKind.PAGEABLE_H2D);
    assertThat(CopyTransfer.kind(Direction.D2H, MemoryKind.DEVICE, MemoryKind.PAGEABLE))
        .isEqualTo(TransferKind.PAGEABLE_D2H);
  }

  @Test
  void copiesBetweenGpusAreDeviceOrPeerCopiesAndHostCopiesNoTransferAtAll() {
    assertThat(CopyTransfer.kind(Direction.D2D, MemoryKind.DEVICE, MemoryKind.DEVICE)).isEqualTo(TransferKind.D2D);
    assertThat(CopyTransfer.kind(Direction.P2P, MemoryKind.DEVICE, MemoryKind.DEVICE)).isEqualTo(TransferKind.PEER);
    assertThat(CopyTransfer.kind(Direction.H2H, MemoryKind.PAGEABLE, MemoryKind.PINNED)).isNull();
    assertThat(CopyTransfer.kind(null, MemoryKind.PAGEABLE, MemoryKind.DEVICE)).isNull();
  }
}
