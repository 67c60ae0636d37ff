package io.apptrace.topo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JNA calls into NVML and libhwloc, against stand-in libraries compiled here from
 * fake-nvml.c and fake-hwloc.c (with the C compiler apptrace's build needs anyway). They check the
 * calls as Nvml.java and Hwloc.java make them: argument kinds, buffers, a function the library
 * lacks, an error; they say nothing of NVIDIA's real library, which has never been called
 * (docs/TOPO.md).
 */
class TopoFakeLibrariesTest {
  @TempDir Path tmp;

  private Path build(String source, String... defines) throws Exception {
    String path = System.getenv("PATH");
    assumeThat(path != null && Stream.of(path.split(File.pathSeparator)).anyMatch(d -> Files.isExecutable(Path.of(d, "cc"))))
        .as("no C compiler (cc) to build the stand-in libraries").isTrue();
    Path c = tmp.resolve(source);
    try (InputStream in = getClass().getResourceAsStream(source)) {
      Files.write(c, in.readAllBytes());
    }
    Path lib = tmp.resolve("lib" + source.replace(".c", "") + defines.length + ".so");
    List<String> cmd = new ArrayList<>(List.of("cc", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror"));
    cmd.addAll(List.of(defines));
    cmd.addAll(List.of("-o", lib.toString(), c.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as("%s: %s", cmd, out).isTrue();
    return lib;
  }

  @Test
  void nvmlFactsComeThroughTheCalls() throws Exception {
    GpuProbe.Report r = new Nvml(List.of(build("fake-nvml.c").toString())).probe();
    assertThat(r.notes()).isEmpty();
    assertThat(r.library()).hasValue("NVML (driver 999.1.2)");
    assertThat(r.gpus()).containsExactly(
        new GpuFacts(0, "Fake GPU 0", "0000:3b:00.0", OptionalLong.of(16945512448L), 4, 16, 3, List.of(
            new GpuFacts.NvLink(0, GpuFacts.Remote.GPU, "0000:3c:00.0"),
            new GpuFacts.NvLink(1, GpuFacts.Remote.GPU, "0000:3c:00.0")), Set.of(1), false),
        new GpuFacts(1, "Fake GPU 1", "0000:3c:00.0", OptionalLong.of(16945512449L), 4, 16, 3, List.of(
            new GpuFacts.NvLink(0, GpuFacts.Remote.GPU, "0000:3b:00.0"),
            new GpuFacts.NvLink(1, GpuFacts.Remote.GPU, "0000:3b:00.0")), Set.of(), false));
  }

  @Test
  void nvmlWithoutADriverIsANote() throws Exception {
    GpuProbe.Report r = new Nvml(List.of(build("fake-nvml.c", "-DINIT_FAILS").toString())).probe();
    assertThat(r.gpus()).isEmpty();
    assertThat(r.notes()).containsExactly("NVML is installed but cannot start (Driver Not Loaded; is the NVIDIA"
        + " driver loaded?); GPUs are not enumerated");
  }

  @Test
  void noNvmlIsANoteNamingItsPackage() {
    GpuProbe.Report r = new Nvml(List.of("libnvidia-ml-absent.so.1")).probe();
    assertThat(r.library()).isEmpty();
    assertThat(r.notes()).containsExactly("NVML not found (libnvidia-ml.so.1 comes with the NVIDIA driver package,"
        + " e.g. 'nvidia-driver' / 'libnvidia-ml1'); GPUs are not enumerated");
  }

  @Test
  void aLibhwlocOfAnotherMajorVersionIsRefusedAndSysIsRead() throws Exception {
    Topo.Result r = Topo.enumerate(List.of(build("fake-hwloc.c", "-DAPI_VERSION=0x00030100").toString()),
        FakeSysfs.build(tmp.resolve("root")), () -> new GpuProbe.Report(List.of(), Optional.empty(), List.of()),
        phase -> { });
    assertThat(r.notes()).containsExactly("libhwloc has API version 3.1.0, and apptrace reads hwloc 2.x only;"
        + " continuing with /sys");
    assertThat(r.machine().source()).isEqualTo("/sys");
    assertThat(r.machine().numaNodes()).hasSize(3);
  }

  @Test
  void aLibhwlocThatCannotStartIsANote() throws Exception {
    Topo.Result r = Topo.enumerate(List.of(build("fake-hwloc.c", "-DAPI_VERSION=0x00020800").toString()),
        FakeSysfs.build(tmp.resolve("root")), () -> new GpuProbe.Report(List.of(), Optional.empty(), List.of()),
        phase -> { });
    assertThat(r.notes()).containsExactly("libhwloc could not read this machine (hwloc_topology_init returned -1);"
        + " continuing with /sys");
  }
}
