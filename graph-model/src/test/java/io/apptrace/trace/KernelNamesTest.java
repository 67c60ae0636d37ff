package io.apptrace.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.Api;
import io.apptrace.proto.KernelInfo;
import org.junit.jupiter.api.Test;

class KernelNamesTest {
  @Test
  void demangledNamesLoseTheirParametersAndReturnType() {
    assertThat(KernelNames.withoutSignature("vector_add(float*, float const*, float const*, int)"))
        .isEqualTo("vector_add");
    assertThat(KernelNames.withoutSignature("void scale<float>(float*, float const*, int)"))
        .isEqualTo("scale<float>");
    assertThat(KernelNames.withoutSignature("void lib::fill<std::pair<int, float> >(int*)"))
        .isEqualTo("lib::fill<std::pair<int, float> >");
    assertThat(KernelNames.withoutSignature("(anonymous namespace)::k(int)"))
        .isEqualTo("(anonymous namespace)::k");
    assertThat(KernelNames.withoutSignature("plain_c")).isEqualTo("plain_c");
  }

  @Test
  void mangledNamesGiveTheirNamePart() {
    assertThat(KernelNames.fromMangled("_Z10vector_addPfPKfS1_i")).isEqualTo("vector_add");
    assertThat(KernelNames.fromMangled("_ZN2ns6kernelEPfi")).isEqualTo("ns::kernel");
    assertThat(KernelNames.fromMangled("_Z5scaleIfEvPT_PKS0_i")).isEqualTo("scale<...>");
    assertThat(KernelNames.fromMangled("_ZN3libL4fillIiEEvPT_S2_")).isEqualTo("lib::fill<...>");
    assertThat(KernelNames.fromMangled("plain_c")).isEqualTo("plain_c");
  }

  @Test
  void demangledNameWinsOverMangled() {
    KernelInfo k = KernelInfo.newBuilder().setMangledName("_Z5scaleIfEvPT_PKS0_i")
        .setDemangledName("void scale<float>(float*, float const*, int)").build();
    assertThat(KernelNames.of(k)).isEqualTo("scale<float>");
  }

  @Test
  void apiNamesRestoreTheRuntimesUnderscores() {
    assertThat(ApiNames.of(Api.rt__cudaLaunchKernel)).isEqualTo("__cudaLaunchKernel");
    assertThat(ApiNames.of(Api.cudaLaunchKernel)).isEqualTo("cudaLaunchKernel");
    assertThat(ApiNames.forName("__cudaLaunchKernel")).isEqualTo(Api.rt__cudaLaunchKernel);
    assertThat(ApiNames.forName("cuLaunchKernel")).isEqualTo(Api.API_OTHER);
  }
}
