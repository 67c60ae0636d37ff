package io.apptrace.imports;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The functions CUPTI's callback ids name: nvprof stores each API call as the id of its function
 * in CUpti_runtime_api_trace_cbid or CUpti_driver_api_trace_cbid. The tables are resources
 * generated from the toolkit's headers ({@code python3 tracer-native/tools/gen_cbids.py}); both
 * enums are append-only, so they name the calls of profiles older toolkits wrote.
 */
final class CuptiCallbacks {
  private static final Map<Long, String> RUNTIME = load("cupti_runtime_cbid.txt");
  private static final Map<Long, String> DRIVER = load("cupti_driver_cbid.txt");

  private CuptiCallbacks() {}

  /** The runtime function of a callback id ("cudaMemcpy", without CUPTI's version suffix), or null. */
  static String runtime(long cbid) {
    return RUNTIME.get(cbid);
  }

  /** The driver function of a callback id ("cuMemcpyHtoD_v2", the exported symbol), or null. */
  static String driver(long cbid) {
    return DRIVER.get(cbid);
  }

  private static Map<Long, String> load(String resource) {
    Map<Long, String> m = new HashMap<>();
    try (InputStream in = CuptiCallbacks.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("resource " + resource + " missing from the build");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int sp = line.indexOf(' ');
        m.put(Long.parseLong(line.substring(0, sp)), line.substring(sp + 1).strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.copyOf(m);
  }
}
