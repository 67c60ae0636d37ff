package io.apptrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.node.NodeLoader;
import io.apptrace.node.NodeSkeleton;
import io.apptrace.topo.Topo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code apptrace topo} as a user sees it, on this machine. */
class TopoCommandTest {
  @TempDir Path tmp;

  @Test
  void writesANodeFileTheLoaderReads() throws Exception {
    Path out = tmp.resolve("here.yaml");
    Cli r = Cli.run("topo", "-o", out.toString(), "--name", "here");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isEmpty();
    assertThat(tmp.resolve("here.yaml.partial")).doesNotExist();
    NodeSkeleton s = NodeLoader.loadSkeleton(out);
    assertThat(s.node().name()).isEqualTo("here");
    assertThat(s.node().cpus()).isNotEmpty();
    assertThat(s.unknowns()).extracting(NodeSkeleton.Unknown::field).contains("cpus[0].memory_bandwidth");
    assertThat(r.err()).contains("\n  sockets ", "\n  NUMA nodes ", "\n  cores ", "\n  PCI devices ", "\n  GPUs ",
        "\n  unknown values ").contains("apptrace topo: wrote " + out + "; fill in its "
        + s.unknowns().size() + " unknown value");
    if (s.node().gpus().isEmpty()) {
      assertThat(r.err()).contains("apptrace topo: note: no NVIDIA GPU found: the skeleton has no gpus; a node needs"
          + " at least one to be replayed on");
    }
  }

  @Test
  void withoutOutputTheSkeletonGoesToStdout() {
    Cli r = Cli.run("topo", "--no-hwloc");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).startsWith("# A node file skeleton of ").contains("\ncpus:\n");
    assertThat(r.err()).startsWith("apptrace topo: read /sys\n");
  }

  @Test
  void aMissingLibhwlocIsANoteAndTopoGoesOn() {
    String before = System.getProperty(Topo.HWLOC_PROPERTY);
    System.setProperty(Topo.HWLOC_PROPERTY, "libhwloc-absent.so.99");
    try {
      Cli r = Cli.run("topo", "-o", tmp.resolve("x.yaml").toString());
      assertThat(r.exit()).as(r.err()).isZero();
      assertThat(r.err()).contains("apptrace topo: note: libhwloc not found: install the 'libhwloc15' package"
          + " (Debian/Ubuntu) or 'hwloc-libs' (RHEL); continuing with /sys\n");
    } finally {
      if (before == null) {
        System.clearProperty(Topo.HWLOC_PROPERTY);
      } else {
        System.setProperty(Topo.HWLOC_PROPERTY, before);
      }
    }
  }

  @Test
  void aMissingNvmlIsANoteNamingItsPackage() {
    Cli r = Cli.run("topo", "--no-hwloc");
    if (r.err().contains("(NVML not available)")) {
      assertThat(r.err()).contains("apptrace topo: note: NVML not found (libnvidia-ml.so.1 comes with the NVIDIA"
          + " driver package, e.g. 'nvidia-driver' / 'libnvidia-ml1'); GPUs are not enumerated\n");
    }
  }

  @Test
  void anUnwritableOutputIsAOneLineError() {
    Path out = tmp.resolve("no/such/folder/x.yaml");
    Cli r = Cli.run("topo", "-o", out.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err().strip()).isEqualTo("apptrace topo: cannot write " + out + ": its folder does not exist");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void replayAndModelRefuseTheSkeletonNamingWhatToFill() throws Exception {
    Path out = tmp.resolve("here.yaml");
    assertThat(Cli.run("topo", "-o", out.toString()).exit()).isZero();
    String text = Files.readString(out);
    Cli model = Cli.run("model", "--node", out.toString(), "--bytes", "1MiB");
    assertThat(model.exit()).isEqualTo(1);
    if (NodeLoader.loadSkeleton(out).node().gpus().isEmpty()) { // no GPU here
      assertThat(model.err().strip()).matches("apptrace model: " + Pattern.quote(out.toString())
          + ":\\d+:7: gpus: a node needs at least one GPU");
      // with a GPU written in, the first unknown value is the one named
      String gpu = "gpus:\n  - {id: gpu0, model: X, memory: \"16 GiB\", memory_bandwidth: \"900 GB/s\", copy_engines: 2}\n";
      String link = "links:\n  - {between: [cpu0, gpu0], type: pcie, generation: 3, lanes: 16}\n";
      Files.writeString(out, text.replaceFirst("gpus: \\[\\].*\n", gpu)
          .replaceFirst("links: \\[\\]\n|links:\n", link)); // one CPU has no links; several have smp links
      model = Cli.run("model", "--node", out.toString(), "--bytes", "1MiB");
      assertThat(model.exit()).isEqualTo(1);
    }
    assertThat(model.err().strip()).matches("apptrace model: " + Pattern.quote(out.toString())
        + ":\\d+:\\d+: cpus\\[0\\]\\.memory_bandwidth: unknown: write the socket's memory bandwidth in the file, .*")
        .doesNotContain("\n");
  }
}
