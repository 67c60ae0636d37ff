package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.apptrace.proto.Module;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Symbolizing the call sites of real programs, compiled and run by {@link CallSitePrograms}. */
class SymbolizerTest {
  @TempDir static Path programs;
  @TempDir Path tmp;
  static CallSitePrograms.Run c;
  static CallSitePrograms.Run cpp;

  @BeforeAll
  static void compileAndRun() throws Exception {
    c = CallSitePrograms.compileAndRun(programs, "callsites.c");
    cpp = CallSitePrograms.compileAndRun(programs, "callsites.cpp");
  }

  @Test
  void namesTheCallingFunctionAndTheExactLineOfTheCall() {
    assertThat(c.module().getBuildId()).as("gcc wrote a build id").isNotEmpty();
    try (Symbolizer s = Symbolizer.of(List.of(c.module()))) {
      CallSite site = s.symbolize(c.site()).orElseThrow();
      assertThat(site.function()).isEqualTo("main");
      assertThat(site.file()).hasValueSatisfying(f -> assertThat(f).endsWith("/callsites.c"));
      assertThat(site.line()).hasValue(c.callLine());
      assertThat(site).hasToString("main (callsites.c:" + c.callLine() + ")");
      assertThat(s.problems()).isEmpty();
    }
  }

  @Test
  void withoutAddr2lineNamesTheFunctionFromTheElfSymbolTable() {
    try (Symbolizer s = Symbolizer.of(List.of(c.module()), Optional.empty())) {
      assertThat(s.symbolize(c.site())).hasValue(CallSite.ofFunction("main"));
      assertThat(s.problems()).singleElement().asString().contains("addr2line is not available");
    }
  }

  @Test
  void cppNamesComeBackDemangled() {
    try (Symbolizer s = Symbolizer.of(List.of(cpp.module()))) {
      assertThat(s.symbolize(cpp.site())).map(CallSite::toString)
          .hasValue("shapes::Circle::area(int) const (callsites.cpp:" + cpp.callLine() + ")");
    }
    try (Symbolizer s = Symbolizer.of(List.of(cpp.module()), Optional.empty())) {
      assertThat(s.symbolize(cpp.site()))
          .hasValue(CallSite.ofFunction("_ZNK6shapes6Circle4areaEi"));
    }
  }

  @Test
  void symbolizesABatchOnceForRepeatedAddressesAndLeavesOutTheUnknown() {
    try (Symbolizer s = Symbolizer.of(List.of(c.module(), cpp.module()))) {
      Map<Long, CallSite> sites = s.symbolize(List.of(c.site(), cpp.site(), c.site(), 16L));
      assertThat(sites).containsOnlyKeys(c.site(), cpp.site());
      assertThat(sites.get(c.site()).function()).isEqualTo("main");
      assertThat(sites.get(cpp.site()).function()).isEqualTo("shapes::Circle::area(int) const");
      assertThat(s.symbolize(c.site())).hasValue(sites.get(c.site()));
    }
  }

  @Test
  void aFileThatNoLongerExistsGivesNothingAndIsReportedOnce() {
    String gone = tmp.resolve("deleted-program").toString();
    try (Symbolizer s = Symbolizer.of(List.of(c.module(gone, c.module().getBuildId())))) {
      assertThat(s.symbolize(c.site())).isEmpty();
      assertThat(s.symbolize(List.of(c.site() + 1, c.site() + 2))).isEmpty();
      assertThat(s.problems()).containsExactly(
          gone + ": file not found; its call sites are left unsymbolized");
    }
  }

  @Test
  void aFileWithAnotherBuildIdGivesNothing() {
    String recorded = "00112233445566778899aabbccddeeff00112233";
    try (Symbolizer s = Symbolizer.of(List.of(c.module(c.program().toString(), recorded)))) {
      assertThat(s.symbolize(c.site())).isEmpty();
      assertThat(s.problems()).singleElement().asString().startsWith(c.program() + ": build id "
          + c.module().getBuildId() + " differs from " + recorded + " recorded in the trace");
    }
  }

  @Test
  void addressesOutsideEveryModuleGiveNothingAndAreCounted() {
    try (Symbolizer s = Symbolizer.of(List.of(c.module()))) {
      List<Long> outside = List.of(c.module().getEnd(), c.module().getStart() - 1, 0L);
      assertThat(s.symbolize(outside)).isEmpty();
      assertThat(s.problems()).containsExactly("3 addresses outside every module (the first: 0x"
          + Long.toHexString(c.module().getEnd()) + ") left unsymbolized");
    }
  }

  @Test
  void theVdsoGivesNothing() {
    Module vdso = Module.newBuilder().setPath("linux-vdso.so.1").setStart(0x7ffd0000_0000L)
        .setEnd(0x7ffd0000_2000L).setLoadBias(0x7ffd0000_0000L).build();
    try (Symbolizer s = Symbolizer.of(List.of(vdso))) {
      assertThat(s.symbolize(0x7ffd0000_0a10L)).isEmpty();
      assertThat(s.problems()).containsExactly("linux-vdso.so.1: the kernel's vDSO has no file to"
          + " read; its call sites are left unsymbolized");
    }
  }

  @Test
  void laterModulesWinWhereRangesOverlap() {
    Module gone = c.module(tmp.resolve("unloaded.so").toString(), "");
    try (Symbolizer s = Symbolizer.of(List.of(gone, c.module()))) {
      assertThat(s.symbolize(c.site())).map(CallSite::function).hasValue("main");
    }
    try (Symbolizer s = Symbolizer.of(List.of(c.module(), gone))) {
      assertThat(s.symbolize(c.site())).isEmpty();
    }
  }

  @Test
  void anAddr2lineThatHangsIsKilledAndTheElfSymbolTableAnswers() throws Exception {
    Addr2Line hanging = new Addr2Line(script("exec sleep 60"), Duration.ofMillis(300));
    long started = System.nanoTime();
    try (Symbolizer s = Symbolizer.of(List.of(c.module()), Optional.of(hanging))) {
      assertThat(s.symbolize(c.site())).hasValue(CallSite.ofFunction("main"));
      assertThat(s.problems()).singleElement().asString()
          .contains("addr2line failed (addr2line took longer than 300 ms)");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void anAddr2lineThatPrintsNonsenseIsNotBelieved() throws Exception {
    Addr2Line confused = new Addr2Line(script("echo 0x1; echo wrong; echo wrong.c:1; echo extra"),
        Duration.ofSeconds(10));
    try (Symbolizer s = Symbolizer.of(List.of(c.module()), Optional.of(confused))) {
      assertThat(s.symbolize(c.site())).hasValue(CallSite.ofFunction("main"));
      assertThat(s.problems()).singleElement().asString().contains("addr2line printed 4 lines");
    }
  }

  @Test
  void aTruncatedProgramNeverThrowsAndNeverGivesAWrongName() throws Exception {
    byte[] whole = Files.readAllBytes(c.program());
    for (int length : new int[] {0, 3, 63, 64, 200, 4096, whole.length / 2, whole.length - 1}) {
      Path cut = tmp.resolve("cut-" + length);
      Files.write(cut, Arrays.copyOf(whole, length));
      for (Optional<Addr2Line> tool : List.of(Addr2Line.onPath(), Optional.<Addr2Line>empty())) {
        try (Symbolizer s = Symbolizer.of(List.of(c.module(cut.toString(), "")), tool)) {
          Optional<CallSite> site = s.symbolize(c.site());
          assertThat(site).as("cut to %d bytes, addr2line %s", length, tool.isPresent())
              .satisfiesAnyOf(o -> assertThat(o).isEmpty(),
                  o -> assertThat(o.orElseThrow().function()).isEqualTo("main"));
          if (length < 64) {
            assertThat(site).isEmpty();
            assertThat(s.problems()).anySatisfy(p -> assertThat(p)
                .startsWith(cut + ": cannot read its ELF symbol table"));
          }
        }
      }
    }
  }

  @Test
  void refusesNullsAndUseAfterClose() {
    Symbolizer s = Symbolizer.of(List.of(c.module()));
    assertThatThrownBy(() -> s.symbolize(Arrays.asList(1L, null)))
        .isInstanceOf(NullPointerException.class).hasMessage("address");
    s.close();
    assertThatThrownBy(() -> s.symbolize(c.site())).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Symbolizer.of(null)).isInstanceOf(NullPointerException.class);
  }

  private Path script(String body) throws Exception {
    Path p = tmp.resolve("fake-addr2line");
    Files.writeString(p, "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
    return p;
  }
}
