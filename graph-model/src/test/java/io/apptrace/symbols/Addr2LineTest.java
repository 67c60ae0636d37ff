package io.apptrace.symbols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Reading what {@code addr2line -a -f -C} prints, as binutils 2.40 prints it. */
class Addr2LineTest {
  @Test
  void readsFileAndLine() {
    assertThat(Addr2Line.location("/src/vecadd.cu:31")).isEqualTo(
        new Addr2Line.Answer(Optional.empty(), Optional.of("/src/vecadd.cu"), OptionalInt.of(31)));
  }

  @Test
  void dropsTheDiscriminator() {
    assertThat(Addr2Line.location("/src/file.c:31 (discriminator 2)")).isEqualTo(
        new Addr2Line.Answer(Optional.empty(), Optional.of("/src/file.c"), OptionalInt.of(31)));
  }

  @Test
  void unknownPartsAreEmpty() {
    Addr2Line.Answer nothing =
        new Addr2Line.Answer(Optional.empty(), Optional.empty(), OptionalInt.empty());
    assertThat(Addr2Line.location("??:0")).isEqualTo(nothing);
    assertThat(Addr2Line.location("??:?")).isEqualTo(nothing);
    assertThat(Addr2Line.location("/src/file.c:?"))
        .isEqualTo(new Addr2Line.Answer(Optional.empty(), Optional.of("/src/file.c"),
            OptionalInt.empty()));
    assertThat(Addr2Line.location("/src/file.c:0").line()).isEmpty();
  }

  @Test
  void pairsThreeLinesWithEachAddress() throws IOException {
    Map<Long, Addr2Line.Answer> answers = Addr2Line.parse(List.of(
        "0x0000000000001149", "main", "/src/a.c:12",
        "0x0000000000000001", "??", "??:0"), List.of(0x1149L, 1L));
    assertThat(answers.get(0x1149L)).isEqualTo(new Addr2Line.Answer(Optional.of("main"),
        Optional.of("/src/a.c"), OptionalInt.of(12)));
    assertThat(answers.get(1L).function()).isEmpty();
  }

  @Test
  void refusesOutputOutOfStep() {
    assertThatThrownBy(() -> Addr2Line.parse(List.of("0x10", "f", "a.c:1"), List.of(0x20L)))
        .isInstanceOf(IOException.class).hasMessageContaining("out of step");
    assertThatThrownBy(() -> Addr2Line.parse(List.of("0x10", "f"), List.of(0x10L)))
        .isInstanceOf(IOException.class).hasMessageContaining("2 lines for 1 addresses");
  }
}
