package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.apptrace.fuzz.DataRandom;
import io.apptrace.fuzz.FuzzDriver;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The nvprof importer on damaged profiles (docs/RELIABILITY.md, "Hostile and broken
 * input"): tables and columns dropped, values NULL, out of range or of another type, pages
 * corrupted ({@link SqliteMutator}). It imports, with warnings for what is missing, or refuses
 * with a one-line ImportException; never another exception, never a hang. Under {@code
 * JAZZER_FUZZ=1}, {@link #nvprof} lets the fuzzer make the mutator's choices.
 */
class FuzzNvprofTest {
  private static NvprofFuzzTarget target;

  @BeforeAll
  static void start() throws Exception {
    target = new NvprofFuzzTarget();
    target.seeds();
  }

  @AfterAll
  static void stop() throws Exception {
    target.close();
  }

  @FuzzTest(maxDuration = "10m")
  void nvprof(FuzzedDataProvider data) throws Throwable {
    target.run(target.mutate(target.seeds(), new DataRandom(data)));
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void mutatedProfiles() throws Exception {
    FuzzDriver.Report r = FuzzDriver.run(target, 300, 1, Duration.ofMinutes(1), null, null);
    assertThat(r.crashes() + r.hangs()).as(r.details()).isZero();
    assertThat(r.outcomes()).containsKeys("imported", "refused");
  }
}
