package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.CharConversionException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Joins Kineto events that lack {@code args.correlation} (older traces) to their correlation id
 * through the flow events that link a launch to its GPU work ({@code ac2g},
 * {@code async_cpu_to_gpu}, phases "s" and "f"): a flow event at the same (pid, tid, ts) as such
 * an event carries the correlation id as its {@code id}. The flow events may come anywhere in the
 * file, so the events are put aside and found in a second pass over it; then they are handed to
 * the assembler, those no flow event names with correlation id 0 (calls that issue nothing, GPU
 * work with no call).
 */
final class KinetoFlowJoin {
  private final ImportAssembler out;
  /** GPU events and calls with no correlation id, awaiting a flow event: by (pid, tid, ts). */
  private final Map<FlowKey, List<Pending>> waiting = new HashMap<>();

  private record FlowKey(long pid, long tid, long ts) {}

  /** An event put aside until the flow pass finds its correlation id: a call, or GPU work. */
  private record Pending(boolean call, GpuOpRow gpu, long pid, long tid, long ts, long dur, String name) {}

  KinetoFlowJoin(ImportAssembler out) {
    this.out = out;
  }

  /** A call without a correlation id. */
  void deferCall(long pid, long tid, long tsNs, long durNs, String name) {
    waiting.computeIfAbsent(new FlowKey(pid, tid, tsNs), k -> new ArrayList<>())
        .add(new Pending(true, null, pid, tid, tsNs, durNs, name));
  }

  /** GPU work without a correlation id: {@code op}, kept as it is. */
  void deferGpu(long pid, long tid, long tsNs, long durNs, String name, GpuOpRow op) {
    waiting.computeIfAbsent(new FlowKey(pid, tid, tsNs), k -> new ArrayList<>())
        .add(new Pending(false, op, pid, tid, tsNs, durNs, name));
  }

  /** Whether any event waits for the flow pass. */
  boolean needed() {
    return !waiting.isEmpty();
  }

  /**
   * Reads the file again for its flow events, then hands every waiting event to the assembler.
   *
   * @param open opens the (decompressed) file
   */
  void run(Supplier<InputStream> open, KinetoTokenizer tokenizer) throws IOException {
    Map<FlowKey, Long> found = new HashMap<>();
    try (InputStream in = open.get(); JsonParser p = KinetoTokenizer.JSON.createParser(in)) {
      try {
        JsonToken first = p.nextToken();
        if (first == JsonToken.START_ARRAY) {
          flows(tokenizer, p, found);
        } else {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            JsonToken v = p.nextToken();
            if (p.currentName().equals("traceEvents") && v == JsonToken.START_ARRAY) {
              flows(tokenizer, p, found);
            } else {
              p.skipChildren();
            }
          }
        }
      } catch (JsonProcessingException | CharConversionException | EOFException e) {
        // truncated: already reported by the first pass
      }
    }
    long unmatched = 0;
    for (Map.Entry<FlowKey, List<Pending>> en : waiting.entrySet()) {
      Long corr = found.get(en.getKey());
      for (Pending pe : en.getValue()) {
        if (pe.call()) {
          out.call(0, corr == null ? 0 : corr, pe.pid(), pe.tid(), pe.ts(), pe.dur(), pe.name(), 0);
        } else {
          out.gpu(out.gpuOp().copyFrom(pe.gpu()).corr(corr == null ? 0 : corr));
        }
        if (corr == null) {
          unmatched++;
        }
      }
    }
    out.warn("events with neither a correlation id nor a flow event linking them (calls issue nothing;"
        + " GPU work goes on a synthetic thread)", unmatched);
    out.warn("events joined through flow events (they had no correlation id)", found.size());
  }

  /** The correlation ids the flow events of an event array give the waiting events. */
  private void flows(KinetoTokenizer tokenizer, JsonParser p, Map<FlowKey, Long> found) throws IOException {
    try (KinetoTokenizer.Events events = tokenizer.events(p)) {
      for (KinetoEvent e = events.next(); e != null; e = events.next()) {
        if (("s".equals(e.ph) || "f".equals(e.ph)) && e.id != null
            && ("ac2g".equals(e.cat) || "async_cpu_to_gpu".equals(e.cat))) {
          FlowKey k = new FlowKey(e.pid, e.tid, e.ts);
          if (waiting.containsKey(k)) {
            try {
              found.put(k, Long.parseLong(e.id));
            } catch (NumberFormatException ignored) {
              // not a correlation id
            }
          }
        }
      }
    }
  }
}
