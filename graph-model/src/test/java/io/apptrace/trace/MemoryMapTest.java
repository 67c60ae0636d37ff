package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.MemoryKind;
import org.junit.jupiter.api.Test;

class MemoryMapTest {
  @Test
  void interiorPointersResolveToTheirRegion() {
    MemoryMap m = new MemoryMap();
    m.add(0x1000, 0x100, MemoryKind.DEVICE, 0);
    m.add(0x2000, 0x10, MemoryKind.PINNED, -1);
    assertThat(m.find(0x1000)).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(MemoryKind.DEVICE));
    assertThat(m.find(0x10ff)).isPresent();
    assertThat(m.find(0x1100)).isEmpty();
    assertThat(m.find(0xfff)).isEmpty();
    assertThat(m.find(0x200f)).hasValueSatisfying(r -> assertThat(r.device()).isEqualTo(-1));
  }

  @Test
  void highAddressesCompareUnsigned() {
    MemoryMap m = new MemoryMap();
    long high = 0xffff_8000_0000_0000L;
    m.add(high, 64, MemoryKind.DEVICE, 1);
    m.add(0x10, 64, MemoryKind.PAGEABLE, -1);
    assertThat(m.find(high + 63)).hasValueSatisfying(r -> assertThat(r.device()).isEqualTo(1));
    assertThat(m.find(0x20)).hasValueSatisfying(r -> assertThat(r.kind()).isEqualTo(MemoryKind.PAGEABLE));
  }

  @Test
  void aFreedAddressReusedIsANewAllocation() {
    MemoryMap m = new MemoryMap();
    long first = m.add(0x1000, 64, MemoryKind.DEVICE, 0).id();
    assertThat(m.remove(0x1000)).isPresent();
    assertThat(m.find(0x1000)).isEmpty();
    long second = m.add(0x1000, 128, MemoryKind.DEVICE, 0).id();
    assertThat(second).isNotEqualTo(first);
    assertThat(m.remove(0x5000)).isEmpty();
  }
}
