package io.apptrace.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A node file's host_overheads section (docs/NODE-FORMAT.md) over the bundled defaults. */
class HostOverheadsTest {
  private static String dgx1() throws Exception {
    try (InputStream in = NodeLoader.class.getResourceAsStream("/io/apptrace/nodes/dgx1.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aNodeWithoutTheSectionHasTheDefaults() throws Exception {
    Node n = NodeLoader.parse("dgx1.yaml", dgx1(), "test");
    assertThat(n.hostOverheads()).isEqualTo(HostOverheads.defaults());
    assertThat(n.hostOverheads().fromNodeFile()).isFalse();
    // every class has a figure; the pinning ones grow with the bytes
    for (ApiClass c : ApiClass.values()) {
      assertThat(n.hostOverheads().costNs(c, 0)).as(c.key()).isPositive();
    }
    assertThat(n.hostOverheads().costNs(ApiClass.HOST_ALLOC, 2L << 20))
        .isEqualTo(n.hostOverheads().costNs(ApiClass.HOST_ALLOC, 0) + 2 * 696_000);
  }

  @Test
  void theSectionsFiguresWinAndTheRestStayDefaults() throws Exception {
    Node n = NodeLoader.parse("n.yaml", dgx1() + "\nhost_overheads:\n  source: \"calibrate on n\"\n"
        + "  context_create: \"100 ms\"\n  host_alloc_per_mib: \"200 us\"\n", "test");
    HostOverheads h = n.hostOverheads();
    assertThat(h.source()).isEqualTo("calibrate on n");
    assertThat(h.costNs(ApiClass.CONTEXT_CREATE, 0)).isEqualTo(100_000_000);
    assertThat(h.costNs(ApiClass.HOST_ALLOC, 1L << 20)).isEqualTo(880_000 + 200_000);
    assertThat(h.costNs(ApiClass.STREAM_CREATE, 0)).isEqualTo(HostOverheads.defaults().costNs(ApiClass.STREAM_CREATE, 0));
    assertThat(h.overridden()).containsExactlyInAnyOrder(ApiClass.CONTEXT_CREATE, ApiClass.HOST_ALLOC);
  }

  @Test
  void aBadFigureNamesItsKey() {
    assertThatThrownBy(() -> NodeLoader.parse("n.yaml", dgx1() + "\nhost_overheads:\n  stream_create: \"fast\"\n",
        "test")).isInstanceOf(NodeFileException.class).hasMessageContaining("host_overheads.stream_create");
    assertThatThrownBy(() -> NodeLoader.parse("n.yaml", dgx1() + "\nhost_overheads:\n  stream_creat: \"2 us\"\n",
        "test")).isInstanceOf(NodeFileException.class).hasMessageContaining("stream_creat");
    // a fixed cost is more than zero; a cost per MiB may be zero (it does not grow with the bytes), not less
    assertThatThrownBy(() -> NodeLoader.parse("n.yaml", dgx1() + "\nhost_overheads:\n  host_alloc: \"0 us\"\n",
        "test")).hasMessageContaining("host_overheads.host_alloc: \"0 us\" must be more than zero");
    assertThatThrownBy(() -> NodeLoader.parse("n.yaml", dgx1() + "\nhost_overheads:\n  host_alloc_per_mib: \"-1 us\"\n",
        "test")).isInstanceOf(NodeFileException.class).hasMessageContaining("host_overheads.host_alloc_per_mib: \"-1 us\"");
  }

  @Test
  void callsAreClassedByTheirApiName() {
    assertThat(ApiClass.of("cudaMalloc_v3020")).isEqualTo(ApiClass.DEVICE_ALLOC);
    assertThat(ApiClass.of("cudaMallocHost")).isEqualTo(ApiClass.HOST_ALLOC);
    assertThat(ApiClass.of("cudaMallocManaged")).isEqualTo(ApiClass.MANAGED_ALLOC);
    assertThat(ApiClass.of("cudaMallocAsync_ptsz")).isEqualTo(ApiClass.OTHER);
    assertThat(ApiClass.of("cudaFreeHost")).isEqualTo(ApiClass.HOST_FREE);
    assertThat(ApiClass.of("cuMemHostRegister_v2")).isEqualTo(ApiClass.HOST_REGISTER);
    assertThat(ApiClass.of("cudaStreamCreateWithPriority")).isEqualTo(ApiClass.STREAM_CREATE);
    assertThat(ApiClass.of("cudaStreamWaitEvent")).isEqualTo(ApiClass.EVENT_RECORD);
    assertThat(ApiClass.of("cudaEventSynchronize")).isEqualTo(ApiClass.SYNC);
    assertThat(ApiClass.of("__cudaRegisterFunction")).isEqualTo(ApiClass.MODULE);
    assertThat(ApiClass.of("cudaGetLastError")).isEqualTo(ApiClass.OTHER);
    assertThat(ApiClass.createsContext("__cudaRegisterFatBinary")).isFalse();
    assertThat(ApiClass.createsContext("cudaGetDeviceCount")).isFalse();
    assertThat(ApiClass.createsContext("cudaSetDevice")).isTrue();
    assertThat(ApiClass.createsContext("cudaMalloc")).isTrue();
  }
}
