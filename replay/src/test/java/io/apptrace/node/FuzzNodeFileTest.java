package io.apptrace.node;

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
 * The node-file loader on damaged and hostile YAML (docs/RELIABILITY.md, "Hostile and broken
 * input"): a file loads, or is refused with one line naming it (NodeFileException); never another
 * exception. {@link #node} runs its corpus ({@code FuzzNodeFileTestInputs/node}) and fuzzes under
 * {@code JAZZER_FUZZ=1}; {@link #mutatedFiles} runs a thousand mutated files.
 */
class FuzzNodeFileTest {
  private static NodeFileFuzzTarget target;

  @BeforeAll
  static void start() throws Exception {
    target = new NodeFileFuzzTarget();
  }

  @AfterAll
  static void stop() throws Exception {
    target.close();
  }

  @FuzzTest(maxDuration = "10m")
  void node(byte[] input) throws Throwable {
    target.run(input);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void mutatedFiles() throws Exception {
    FuzzDriver.Report r = FuzzDriver.run(target, 1000, 1, Duration.ofMinutes(1), null, null);
    assertThat(r.crashes() + r.hangs()).as(r.details()).isZero();
    assertThat(r.outcomes()).containsKeys("loaded", "refused");
  }
}
