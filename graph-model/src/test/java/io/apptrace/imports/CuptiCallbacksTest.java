package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The callback-id tables nvprof calls are named with: the ids of the functions the importer gives
 * meaning to, and agreement with the toolkit's headers where a toolkit is installed (a newer one
 * may add ids; none may change).
 */
class CuptiCallbacksTest {
  @Test
  void runtimeIdsNameTheFunctionsTheImportInterprets() {
    assertThat(CuptiCallbacks.runtime(20)).isEqualTo("cudaMalloc");
    assertThat(CuptiCallbacks.runtime(31)).isEqualTo("cudaMemcpy");
    assertThat(CuptiCallbacks.runtime(41)).isEqualTo("cudaMemcpyAsync");
    assertThat(CuptiCallbacks.runtime(126)).isEqualTo("cudaThreadSynchronize");
    assertThat(CuptiCallbacks.runtime(131)).isEqualTo("cudaStreamSynchronize");
    assertThat(CuptiCallbacks.runtime(135)).isEqualTo("cudaEventRecord");
    assertThat(CuptiCallbacks.runtime(137)).isEqualTo("cudaEventSynchronize");
    assertThat(CuptiCallbacks.runtime(147)).isEqualTo("cudaStreamWaitEvent");
    assertThat(CuptiCallbacks.runtime(165)).isEqualTo("cudaDeviceSynchronize");
    assertThat(CuptiCallbacks.runtime(211)).isEqualTo("cudaLaunchKernel");
    assertThat(CuptiCallbacks.runtime(409)).as("a _v2 that is part of the name")
        .isEqualTo("cudaStreamGetCaptureInfo_v2");
    assertThat(CuptiCallbacks.runtime(0)).as("CUPTI_RUNTIME_TRACE_CBID_INVALID").isNull();
    assertThat(CuptiCallbacks.runtime(100_000)).isNull();
  }

  @Test
  void driverIdsAreTheExportedSymbols() {
    assertThat(CuptiCallbacks.driver(1)).isEqualTo("cuInit");
    assertThat(CuptiCallbacks.driver(17)).isEqualTo("cuCtxSynchronize");
    assertThat(CuptiCallbacks.driver(276)).isEqualTo("cuMemcpyHtoD_v2");
    assertThat(CuptiCallbacks.driver(307)).isEqualTo("cuLaunchKernel");
    assertThat(CuptiCallbacks.driver(0)).isNull();
  }

  @Test
  void tablesAgreeWithTheInstalledHeaders() throws Exception {
    Path include = Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "include");
    assumeThat(Files.isRegularFile(include.resolve("cupti_runtime_cbid.h")))
        .as("no CUDA toolkit headers in " + include).isTrue();
    agree(include.resolve("cupti_runtime_cbid.h"), "CUPTI_RUNTIME_TRACE_CBID_", true, CuptiCallbacks::runtime);
    agree(include.resolve("cupti_driver_cbid.h"), "CUPTI_DRIVER_TRACE_CBID_", false, CuptiCallbacks::driver);
  }

  private static void agree(Path header, String prefix, boolean stripVersion, LongFunction<String> table)
      throws Exception {
    Matcher m = Pattern.compile("\\b" + prefix + "(\\w+)\\s*=\\s*(\\d+)\\b").matcher(Files.readString(header));
    int n = 0;
    while (m.find()) {
      String name = m.group(1);
      if (name.equals("INVALID") || name.equals("SIZE")) {
        continue;
      }
      String expected = stripVersion ? name.replaceFirst("_v\\d{4,}$", "") : name;
      String got = table.apply(Long.parseLong(m.group(2)));
      // a toolkit newer than the table may add ids at the end
      if (got != null) {
        assertThat(got).as(header.getFileName() + " id " + m.group(2)).isEqualTo(expected);
        n++;
      }
    }
    assertThat(n).as("ids of " + header.getFileName() + " found in the table").isGreaterThan(500);
  }
}
