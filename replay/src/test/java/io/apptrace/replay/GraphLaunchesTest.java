package io.apptrace.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.NodeLoader;
import org.junit.jupiter.api.Test;

/**
 * docs/REPLAY.md, "CUDA graphs": a trace whose program launched CUDA graphs lacks their work, and
 * the operations it issued while capturing a stream are in it as if they had run; the replay says
 * both instead of projecting them silently.
 */
class GraphLaunchesTest {
  @Test
  void graphLaunchesAndCapturedOperationsAreSaid() throws Exception {
    ProgramFixture f = new ProgramFixture();
    int s = f.blocking();
    f.kernel(0, s, "before", 1_000);
    f.api(0, "cudaStreamBeginCapture", 1_000, 0);
    f.kernel(0, s, "captured1", 1_000);
    f.kernel(0, s, "captured2", 1_000);
    f.api(0, "cudaStreamEndCapture", 1_000, 0);
    f.api(0, "cudaGraphInstantiate", 1_000, 0);
    for (int i = 0; i < 3; i++) {
      f.api(0, "cudaGraphLaunch", 1_000, 0);
    }
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("CUDA graphs: 3 graph launch(es) whose work the"
        + " trace does not hold").endsWith("2 operation(s) issued while a stream was being captured are replayed"
            + " once, as if they had run"));
  }

  @Test
  void aProgramWithoutGraphsGetsNoSuchNote() throws Exception {
    ProgramFixture f = new ProgramFixture();
    f.kernel(0, f.blocking(), "k", 1_000);
    ReplayResult r = Replayer.replay(f.build(), NodeLoader.resolve("dgx1"), Replayer.Options.defaults());
    assertThat(r.notes()).noneSatisfy(n -> assertThat(n).contains("CUDA graphs"));
  }
}
