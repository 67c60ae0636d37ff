package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Module;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Later modules are painted over earlier ones where their ranges overlap. */
class ModuleRangesTest {
  private static Module module(String path, long start, long end) {
    return Module.newBuilder().setPath(path).setStart(start).setEnd(end).build();
  }

  private static Optional<String> at(ModuleRanges r, long address) {
    return r.moduleAt(address).map(Module::getPath);
  }

  /**
   * <pre>
   *   0x100        0x200   0x300        0x400
   *   |----- a ---------------------------|      listed first
   *                |--- b --|                    listed second, wins over a
   *                                 |---- c -----|0x500   listed third, wins over a
   * </pre>
   */
  @Test
  void laterRangesWin() {
    ModuleRanges r = new ModuleRanges(List.of(module("a", 0x100, 0x400),
        module("b", 0x200, 0x300), module("c", 0x380, 0x500)));
    assertThat(at(r, 0x0ff)).isEmpty();
    assertThat(at(r, 0x100)).hasValue("a");
    assertThat(at(r, 0x1ff)).hasValue("a");
    assertThat(at(r, 0x200)).hasValue("b");
    assertThat(at(r, 0x2ff)).hasValue("b");
    assertThat(at(r, 0x300)).hasValue("a");
    assertThat(at(r, 0x37f)).hasValue("a");
    assertThat(at(r, 0x380)).hasValue("c");
    assertThat(at(r, 0x4ff)).hasValue("c");
    assertThat(at(r, 0x500)).isEmpty();
  }

  @Test
  void aModuleCoveringSeveralEarlierOnesReplacesThemAll() {
    ModuleRanges r = new ModuleRanges(List.of(module("a", 0x100, 0x200),
        module("b", 0x300, 0x400), module("c", 0x000, 0x1000)));
    assertThat(at(r, 0x150)).hasValue("c");
    assertThat(at(r, 0x350)).hasValue("c");
    assertThat(at(r, 0xfff)).hasValue("c");
  }

  @Test
  void emptyAndInvertedRangesHoldNothingAndHighAddressesCompareUnsigned() {
    ModuleRanges r = new ModuleRanges(List.of(module("empty", 0x100, 0x100),
        module("inverted", 0x300, 0x200), module("high", 0xffff_0000_0000_0000L, -1L)));
    assertThat(at(r, 0x100)).isEmpty();
    assertThat(at(r, 0x250)).isEmpty();
    assertThat(at(r, 0xffff_8000_0000_0000L)).hasValue("high");
    assertThat(at(r, 0x7fff_0000_0000_0000L)).isEmpty();
  }
}
