package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** How a call site prints, and what it refuses. */
class CallSiteTest {
  @Test
  void printsTheFileNameAndLineAfterTheFunction() {
    assertThat(new CallSite("main", Optional.of("/src/app/vecadd.cu"), OptionalInt.of(31)))
        .hasToString("main (vecadd.cu:31)");
    assertThat(new CallSite("main", Optional.of("vecadd.cu"), OptionalInt.empty()))
        .hasToString("main (vecadd.cu)");
    assertThat(CallSite.ofFunction("_Z3fooi")).hasToString("_Z3fooi");
  }

  @Test
  void refusesBlankNamesAndLinesWithoutFiles() {
    assertThatThrownBy(() -> CallSite.ofFunction(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallSite("f", Optional.empty(), OptionalInt.of(3)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new CallSite("f", Optional.of("a.c"), OptionalInt.of(0)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
