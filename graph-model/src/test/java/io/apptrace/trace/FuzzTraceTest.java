package io.apptrace.trace;

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
 * The trace decoder on damaged files (docs/RELIABILITY.md, "Hostile and broken input"): read up to
 * the damage, or refused with a one-line TraceException; never another exception. In the test
 * suite, {@link #trace} runs its corpus ({@code FuzzTraceTestInputs/trace}) and
 * {@link #mutatedTraces} a few thousand mutated traces; {@code tools/fuzz trace N} runs more, and
 * {@code JAZZER_FUZZ=1} makes {@link #trace} a coverage-guided fuzzer.
 */
class FuzzTraceTest {
  private static TraceFuzzTarget target;

  @BeforeAll
  static void start() throws Exception {
    target = new TraceFuzzTarget();
    target.seeds();
  }

  @AfterAll
  static void stop() throws Exception {
    target.close();
  }

  @FuzzTest(maxDuration = "10m")
  void trace(byte[] input) throws Throwable {
    target.run(input);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void mutatedTraces() throws Exception {
    FuzzDriver.Report r = FuzzDriver.run(target, 2000, 1, Duration.ofMinutes(1), null, null);
    assertThat(r.crashes() + r.hangs()).as(r.details()).isZero();
    // the mutations reach every outcome: whole files, damaged ones, and ones that are no trace
    assertThat(r.outcomes()).containsKeys("read", "truncated", "refused");
  }
}
