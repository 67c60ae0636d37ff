package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.apptrace.fuzz.FuzzDriver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Kineto importer on damaged JSON (docs/RELIABILITY.md, "Hostile and broken input"): it imports
 * (noting where a file stops being readable) or refuses with a one-line ImportException; never
 * another exception. {@link #kineto} runs its corpus ({@code FuzzKinetoTestInputs/kineto}), and
 * fuzzes under {@code JAZZER_FUZZ=1}; {@link #mutatedFiles} runs a thousand mutated files.
 */
class FuzzKinetoTest {
  private static KinetoFuzzTarget target;

  @BeforeAll
  static void start() throws Exception {
    target = new KinetoFuzzTarget();
    target.seeds();
  }

  @AfterAll
  static void stop() throws Exception {
    target.close();
  }

  @FuzzTest(maxDuration = "10m")
  void kineto(byte[] input) throws Throwable {
    target.run(input);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void mutatedFiles() throws Exception {
    FuzzDriver.Report r = FuzzDriver.run(target, 1000, 1, Duration.ofMinutes(1), null, null);
    assertThat(r.crashes() + r.hangs()).as(r.details()).isZero();
    assertThat(r.outcomes()).containsKeys("imported", "truncated", "refused");
  }
}
