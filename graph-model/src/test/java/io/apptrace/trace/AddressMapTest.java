package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AddressMapTest {
  @Test
  void interiorPointersResolveToTheirRegion() {
    AddressMap<String> m = new AddressMap<>();
    m.add(0x1000, 0x100, "device");
    m.add(0x2000, 0x10, "pinned");
    assertThat(m.find(0x1000)).hasValueSatisfying(r -> assertThat(r.value()).isEqualTo("device"));
    assertThat(m.find(0x10ff)).isPresent();
    assertThat(m.find(0x1100)).isEmpty();
    assertThat(m.find(0xfff)).isEmpty();
    assertThat(m.find(0x200f)).hasValueSatisfying(r -> assertThat(r.value()).isEqualTo("pinned"));
  }

  @Test
  void highAddressesCompareUnsigned() {
    AddressMap<Integer> m = new AddressMap<>();
    long high = 0xffff_8000_0000_0000L;
    m.add(high, 64, 1);
    m.add(0x10, 64, 2);
    assertThat(m.find(high + 63)).hasValueSatisfying(r -> assertThat(r.value()).isEqualTo(1));
    assertThat(m.find(0x20)).hasValueSatisfying(r -> assertThat(r.value()).isEqualTo(2));
  }

  @Test
  void aFreedAddressReusedIsANewRegion() {
    AddressMap<String> m = new AddressMap<>();
    m.add(0x1000, 64, "first");
    assertThat(m.remove(0x1000)).isPresent();
    assertThat(m.find(0x1000)).isEmpty();
    m.add(0x1000, 128, "second");
    assertThat(m.find(0x107f)).hasValueSatisfying(r -> assertThat(r.value()).isEqualTo("second"));
    assertThat(m.remove(0x5000)).isEmpty();
  }

  @Test
  void overlappingListsEveryRegionTouchingARange() {
    AddressMap<String> m = new AddressMap<>();
    m.add(0x100, 0x100, "a"); // [0x100, 0x200)
    m.add(0x200, 0x100, "b"); // [0x200, 0x300)
    m.add(0x400, 0x100, "c");
    assertThat(m.overlapping(0x180, 0x100)).extracting(AddressMap.Region::value).containsExactly("a", "b");
    assertThat(m.overlapping(0x300, 0x100)).isEmpty();
    assertThat(m.overlapping(0x0, 0x1000)).extracting(AddressMap.Region::value).containsExactly("a", "b", "c");
  }
}
