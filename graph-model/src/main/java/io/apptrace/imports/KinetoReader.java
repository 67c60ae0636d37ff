package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import io.apptrace.proto.CopyKind;
import io.apptrace.proto.GpuActivityKind;
import io.apptrace.proto.MemoryKind;
import java.io.CharConversionException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a PyTorch profiler / Kineto Chrome-trace JSON file with a streaming parser: one event
 * object at a time, never the whole file in a tree. Both category-name styles are read: the
 * current ({@code cuda_runtime}, {@code cuda_driver}, {@code kernel}, {@code gpu_memcpy},
 * {@code gpu_memset}, {@code cuda_sync}) and the older ({@code Runtime}, {@code Kernel},
 * {@code Memcpy}, {@code Memset}). Calls and GPU work are joined by {@code args.correlation};
 * an event without it is joined through the flow events ({@code ac2g}, {@code async_cpu_to_gpu})
 * that link a launch to its GPU work, in a second pass over the file.
 */
final class KinetoReader {
  /** Counts of what the file holds, by kind, as the import report shows them. */
  final Map<String, Long> source = new LinkedHashMap<>();
  private final ImportAssembler out;
  /** Where the parse stopped early (a truncated or damaged file); null when it read to the end. */
  String truncatedAt;
  /** Why, when the file does not just end there: the JSON parser's one-line reason; else null. */
  String damage;
  /** The file's stream that CUPTI numbers as the legacy default stream (see docs/IMPORT.md). */
  private final long defaultStream;

  private final Map<Long, Long> pidVotes = new HashMap<>();
  /** GPU events and calls with no correlation id, awaiting a flow event: by (pid, tid, ts). */
  private final Map<FlowKey, List<Pending>> needFlow = new HashMap<>();
  private final List<String> gpuNotes = new ArrayList<>();

  private record FlowKey(long pid, long tid, long ts) {}

  /** An event put aside until the flow pass finds its correlation id. */
  private record Pending(boolean call, GpuOpRow gpu, long pid, long tid, long ts, long dur, String name) {}

  KinetoReader(ImportAssembler out, long defaultStream) {
    this.out = out;
    this.defaultStream = defaultStream;
    for (String k : List.of("runtime calls", "driver calls", "kernels", "memcpys", "memsets", "cuda_sync records",
        "flow events")) {
      source.put(k, 0L);
    }
  }

  /** What was wrong with the file as a whole. */
  static final class NotKinetoException extends Exception {
    NotKinetoException(String message) {
      super(message);
    }
  }

  static final JsonFactory JSON = JsonFactory.builder().build();

  /**
   * Reads the file.
   *
   * @param open opens the (decompressed) file; called a second time when events need the flow
   *     pass
   */
  void read(Supplier<InputStream> open) throws IOException, NotKinetoException {
    boolean sawEvents = false;
    List<String> keys = new ArrayList<>();
    try (Counting in = new Counting(open.get()); JsonParser p = JSON.createParser(in)) {
      JsonToken first;
      try {
        first = p.nextToken();
      } catch (JsonProcessingException | CharConversionException e) {
        // the parser detects UTF-16 and UTF-32 from the first bytes; bytes that are neither
        // (CharConversionException) are not JSON either
        throw new NotKinetoException("not JSON (" + firstLine(e) + ")");
      }
      try {
        if (first == JsonToken.START_ARRAY) { // the older Chrome-trace form: a bare array of events
          sawEvents = true;
          events(p, this::event);
        } else if (first == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (key.equals("traceEvents") && v == JsonToken.START_ARRAY) {
              sawEvents = true;
              events(p, this::event);
            } else if (key.equals("deviceProperties") && v == JsonToken.START_ARRAY) {
              deviceProperties(p);
            } else if (key.equals("distributedInfo") && v == JsonToken.START_OBJECT) {
              distributedInfo(p);
            } else if ((key.equals("host_name") || key.equals("hostname")) && v == JsonToken.VALUE_STRING) {
              out.hostname(p.getText());
            } else {
              if (keys.size() < 8) {
                keys.add(key);
              }
              p.skipChildren();
            }
          }
        } else {
          throw new NotKinetoException("expected a JSON object with \"traceEvents\" (a Kineto trace), found "
              + describe(first));
        }
      } catch (JsonProcessingException | CharConversionException | EOFException e) {
        if (!sawEvents) {
          throw new NotKinetoException("not a complete JSON document (" + firstLine(e) + ")");
        }
        long at = p.currentLocation().getByteOffset();
        truncatedAt = "byte " + at;
        if (!in.endsAt(at)) {
          damage = firstLine(e);
        }
      }
    } catch (EOFException | java.util.zip.ZipException e) {
      // the compressed stream ends early or is corrupt: what was decompressed before is kept
      if (!sawEvents) {
        throw new NotKinetoException("the file ends before its first event (" + firstLine(e) + ")");
      }
      if (truncatedAt == null) {
        truncatedAt = "the point where decompression failed (" + firstLine(e) + ")";
      }
    }
    if (!sawEvents) {
      throw new NotKinetoException("expected a JSON object with \"traceEvents\" (a Kineto trace), found an object"
          + " with " + (keys.isEmpty() ? "no keys" : "keys " + String.join(", ", keys)));
    }
    long cudaEvents = source.get("runtime calls") + source.get("driver calls") + source.get("kernels")
        + source.get("memcpys") + source.get("memsets");
    if (cudaEvents == 0) {
      // cut short or whole, a trace without CUDA events gives nothing to replay
      throw new NotKinetoException((truncatedAt != null ? "the file ends early (at " + truncatedAt
          + " of the decompressed JSON), before any CUDA event: " : "a Chrome trace with no CUDA events: ")
          + "expected events of category cuda_runtime, kernel, gpu_memcpy or gpu_memset (or Runtime, Kernel,"
          + " Memcpy, Memset), found " + (categories.isEmpty() ? "none" : String.join(", ", categories.keySet())));
    }
    long mainPid = pidVotes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(0L);
    out.processPid(0, mainPid);
    if (!needFlow.isEmpty()) {
      flowPass(open);
    }
    out.defaultStreamKind(StreamKind.NON_BLOCKING);
    for (String n : gpuNotes) {
      out.note(n, "info");
    }
  }

  /** A stream that counts its bytes, to tell a file that ends early from one damaged earlier. */
  private static final class Counting extends java.io.FilterInputStream {
    private long count;
    private boolean closed;

    Counting(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      count += b < 0 ? 0 : 1;
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      count += Math.max(n, 0);
      return n;
    }

    /** Whether the stream ends at {@code offset}: all of it was read, and nothing follows. */
    boolean endsAt(long offset) throws IOException {
      if (closed) {
        return offset >= count; // the parser closes its input when it reaches the end
      }
      try {
        return offset >= count && read() < 0;
      } catch (EOFException e) {
        return offset >= count; // a compressed stream cut short: it ends here too
      }
    }

    @Override
    public void close() throws IOException {
      closed = true;
      super.close();
    }
  }

  /** Categories seen, for the message when there is nothing to import. */
  private final Map<String, Boolean> categories = new TreeMap<>();

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  private static String describe(JsonToken t) {
    if (t == null) {
      return "an empty file";
    }
    return switch (t) {
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> t.asString();
    };
  }

  // ---- one event ----

  /** The fields of one trace event this reader uses; reused for every event. */
  static final class Ev {
    String ph;
    String cat;
    String name;
    long pid;
    long tid;
    boolean pidNumeric;
    boolean tidNumeric;
    long ts = Long.MIN_VALUE;
    long dur = -1;
    String id;
    String bp;
    // args
    long correlation = -1;
    long stream = Long.MIN_VALUE;
    long device = -1;
    long context;
    long bytes = -1;
    long[] grid = new long[3];
    long[] block = new long[3];
    boolean hasGrid;
    boolean hasBlock;
    long sharedMemory;
    boolean hasSharedMemory;
    long registers;
    /** Kineto's "est. achieved occupancy %", "blocks per SM", "warps per SM"; NaN when absent. */
    float occupancy = Float.NaN;
    float blocksPerSm = Float.NaN;
    float warpsPerSm = Float.NaN;
    String syncKind;
    long waitOnStream = -1;
    long waitOnRecordCorr = -1;
    long waitOnEventId = -1;
    String metaName;

    void reset() {
      ph = cat = name = id = bp = syncKind = metaName = null;
      pid = tid = 0;
      pidNumeric = tidNumeric = false;
      ts = Long.MIN_VALUE;
      dur = -1;
      correlation = -1;
      stream = Long.MIN_VALUE;
      device = -1;
      context = 0;
      bytes = -1;
      hasGrid = hasBlock = hasSharedMemory = false;
      sharedMemory = 0;
      registers = 0;
      occupancy = blocksPerSm = warpsPerSm = Float.NaN;
      waitOnStream = waitOnRecordCorr = waitOnEventId = -1;
    }
  }

  private boolean sawDefaultStream;
  private final Strings idStrings = new Strings();

  interface EventSink {
    void accept(Ev e) throws IOException;
  }

  /** Events handed from the parsing thread to the reading one at a time. */
  private static final int BATCH = 512;
  /** Batches in flight between the two threads: what bounds the memory the handing over takes. */
  private static final int BATCHES = 8;

  /** Parsed events on their way to {@link #event}; the last batch of a pass says how it ended. */
  private static final class Batch {
    final Ev[] events = new Ev[BATCH];
    int size;
    boolean last;
    /** What ended the pass early (the parser's exception), in the last batch; else null. */
    Throwable failure;

    /** The event at {@code i}, made on first use (a small file fills a few). */
    Ev at(int i) {
      Ev e = events[i];
      if (e == null) {
        e = events[i] = new Ev();
      }
      return e;
    }
  }

  /**
   * The elements of a JSON array of events, each given to {@code sink} in file order. The JSON is
   * tokenized and each event's fields read on a thread of its own, a batch of events ahead of
   * {@code sink}, which runs on this thread: tokenizing is four fifths of a Kineto import's
   * reading, and the rest then runs beside it on the second core (docs/BENCHMARKS.md). An
   * exception of the parser reaches this thread after every event parsed before it, as it would
   * without the second thread.
   */
  void events(JsonParser p, EventSink sink) throws IOException {
    BlockingQueue<Batch> full = new ArrayBlockingQueue<>(BATCHES);
    BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
    for (int i = 0; i < BATCHES; i++) {
      free.add(new Batch());
    }
    Thread parser = new Thread(() -> parse(p, full, free), "apptrace-kineto-parser");
    parser.setDaemon(true);
    parser.start();
    boolean done = false;
    try {
      while (true) {
        Batch b = full.take();
        for (int i = 0; i < b.size; i++) {
          sink.accept(b.events[i]);
        }
        if (b.last) {
          done = true;
          parser.join();
          if (b.failure instanceof IOException e) {
            throw e;
          } else if (b.failure instanceof RuntimeException e) {
            throw e;
          } else if (b.failure instanceof Error e) {
            throw e;
          }
          return;
        }
        b.size = 0;
        free.put(b);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while reading the trace");
    } finally {
      if (!done) {
        // the sink failed: the parser stops at its next batch, before this method returns
        parser.interrupt();
        try {
          parser.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** The parsing thread of {@link #events}. */
  private void parse(JsonParser p, BlockingQueue<Batch> full, BlockingQueue<Batch> free) {
    try {
      Batch b = free.take();
      try {
        while (nextObject(p, "traceEvents")) {
          Ev e = b.at(b.size);
          e.reset();
          fields(p, e);
          if (++b.size == BATCH) {
            full.put(b);
            b = free.take();
          }
        }
      } catch (IOException | RuntimeException | Error e) {
        b.failure = e;
      }
      b.last = true;
      full.put(b);
    } catch (InterruptedException e) {
      // the reading thread gave up
    }
  }

  /**
   * Reads field names, guessing each from the one before it in the last object seen: Kineto
   * writes the fields of every event in the same order, and a name guessed right is matched on its
   * bytes without being decoded and looked up.
   */
  static final class FieldNames {
    private static final int MAX = 4096;
    private final Map<String, SerializedString> after = new HashMap<>();
    private String prev = "";

    /** The object's first field comes next. */
    FieldNames start() {
      prev = "";
      return this;
    }

    /** The field after {@code name} comes next (a switch to another predictor mid-object). */
    FieldNames after(String name) {
      prev = name;
      return this;
    }

    /** Moves to the next field and returns its name, or null at the object's end. */
    String next(JsonParser p) throws IOException {
      SerializedString guess = after.get(prev);
      String k;
      if (guess != null && p.nextFieldName(guess)) {
        k = guess.getValue();
      } else {
        JsonToken t = guess == null ? p.nextToken() : p.currentToken();
        if (t != JsonToken.FIELD_NAME) {
          return null;
        }
        k = p.currentName();
        if (guess != null || after.size() < MAX) {
          after.put(prev, new SerializedString(k));
        }
      }
      prev = k;
      return k;
    }
  }

  /**
   * The field-name predictors: the fields of an event after its "ph" by phase, its args by
   * category, since Kineto orders the fields of a complete event, a flow event and a metadata
   * event differently, and the args of a kernel, a memcpy and a runtime call too; one predictor
   * for all would guess wrong at every change of kind. At most {@link #PREDICTORS} of each.
   */
  private final FieldNames eventNames = new FieldNames();
  private final Map<String, FieldNames> eventNamesByPhase = new HashMap<>();
  private final FieldNames argNames = new FieldNames();
  private final Map<String, FieldNames> argNamesByCategory = new HashMap<>();
  private static final int PREDICTORS = 64;

  private static FieldNames predictor(Map<String, FieldNames> by, String kind, FieldNames otherwise) {
    if (kind == null) {
      return otherwise;
    }
    FieldNames f = by.get(kind);
    if (f == null) {
      if (by.size() >= PREDICTORS) {
        return otherwise;
      }
      f = new FieldNames();
      by.put(kind, f);
    }
    return f;
  }

  private void fields(JsonParser p, Ev e) throws IOException {
    FieldNames names = eventNames.start();
    String k;
    while ((k = names.next(p)) != null) {
      JsonToken v = p.nextToken();
      switch (k) {
        case "ph" -> {
          e.ph = text(p, v);
          if (names == eventNames) {
            names = predictor(eventNamesByPhase, e.ph, eventNames).after("ph");
          }
        }
        case "cat" -> {
          e.cat = text(p, v);
          if (e.ph != null && !"M".equals(e.ph) && !imported(e.cat)) {
            // a CPU op, annotation or other event this reader does not use: the rest is skipped unread
            skipRest(p);
            return;
          }
        }
        case "name" -> e.name = text(p, v);
        case "pid" -> {
          e.pidNumeric = v == JsonToken.VALUE_NUMBER_INT;
          e.pid = idOf(p, v);
        }
        case "tid" -> {
          e.tidNumeric = v == JsonToken.VALUE_NUMBER_INT;
          e.tid = idOf(p, v);
        }
        case "ts" -> e.ts = micros(p, v);
        case "dur" -> e.dur = micros(p, v);
        case "id" -> e.id = v.isScalarValue() ? p.getText() : skip(p);
        case "bp" -> e.bp = text(p, v);
        case "args" -> {
          if (v == JsonToken.START_OBJECT) {
            args(p, e);
          } else {
            p.skipChildren();
          }
        }
        default -> p.skipChildren();
      }
    }
  }

  /** Whether events of a category become part of the trace (or link parts of it). */
  private static boolean imported(String cat) {
    if (cat == null) {
      return true;
    }
    return switch (cat) {
      case "cuda_runtime", "Runtime", "cuda_driver", "Driver", "kernel", "Kernel", "gpu_memcpy", "Memcpy",
          "gpu_memset", "Memset", "cuda_sync", "ac2g", "async_cpu_to_gpu" -> true;
      default -> false;
    };
  }

  private static void skipRest(JsonParser p) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      p.nextToken();
      p.skipChildren();
    }
  }

  private static String skip(JsonParser p) throws IOException {
    p.skipChildren();
    return null;
  }

  private void args(JsonParser p, Ev e) throws IOException {
    FieldNames names = predictor(argNamesByCategory, e.cat, argNames).start();
    String k;
    while ((k = names.next(p)) != null) {
      JsonToken v = p.nextToken();
      switch (k) {
        case "correlation" -> e.correlation = integer(p, v, -1);
        case "stream" -> e.stream = integer(p, v, Long.MIN_VALUE);
        case "device" -> e.device = integer(p, v, -1);
        case "context" -> e.context = integer(p, v, 0);
        case "bytes" -> e.bytes = integer(p, v, -1);
        case "grid" -> e.hasGrid = triple(p, v, e.grid);
        case "block" -> e.hasBlock = triple(p, v, e.block);
        case "shared memory" -> {
          e.sharedMemory = integer(p, v, -1);
          e.hasSharedMemory = e.sharedMemory >= 0;
          e.sharedMemory = Math.max(e.sharedMemory, 0);
        }
        case "registers per thread" -> e.registers = Math.max(integer(p, v, 0), 0);
        // the key of current Kineto versions, and the name it had before
        case "est. achieved occupancy %", "est. occupancy %" -> e.occupancy = decimal(p, v);
        case "blocks per SM" -> e.blocksPerSm = decimal(p, v);
        case "warps per SM" -> e.warpsPerSm = decimal(p, v);
        case "cuda_sync_kind" -> e.syncKind = text(p, v);
        case "wait_on_stream" -> e.waitOnStream = integer(p, v, -1);
        case "wait_on_cuda_event_record_corr_id" -> e.waitOnRecordCorr = integer(p, v, -1);
        case "wait_on_cuda_event_id" -> e.waitOnEventId = integer(p, v, -1);
        case "name" -> e.metaName = text(p, v);
        default -> p.skipChildren();
      }
    }
  }

  private static String text(JsonParser p, JsonToken v) throws IOException {
    if (v.isScalarValue()) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  /** A finite number, else NaN. */
  private static float decimal(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return Double.isFinite(d) && Math.abs(d) < Float.MAX_VALUE ? (float) d : Float.NaN;
    }
    p.skipChildren();
    return Float.NaN;
  }

  private static long integer(JsonParser p, JsonToken v, long otherwise) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      return longOr(p, otherwise);
    }
    if (v == JsonToken.VALUE_NUMBER_FLOAT) {
      return (long) p.getDoubleValue();
    }
    if (v == JsonToken.VALUE_STRING) {
      try {
        return Long.parseLong(p.getText().trim());
      } catch (NumberFormatException ex) {
        return otherwise;
      }
    }
    p.skipChildren();
    return otherwise;
  }

  private static boolean triple(JsonParser p, JsonToken v, long[] into) throws IOException {
    if (v != JsonToken.START_ARRAY) {
      p.skipChildren();
      return false;
    }
    int i = 0;
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t == null) {
        throw new EOFException("the file ends inside an array");
      }
      long x = integer(p, t, 1);
      if (i < 3) {
        into[i] = x;
      }
      i++;
    }
    for (; i < 3; i++) {
      into[i] = 1;
    }
    return true;
  }

  /** A pid or tid: numbers as they are; strings ("Spans", "stream 7") by a small id. */
  private long idOf(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      return longOr(p, 0);
    }
    if (v == JsonToken.VALUE_STRING) {
      String s = p.getText();
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException ex) {
        return 0x7e000000L + idStrings.id(s);
      }
    }
    p.skipChildren();
    return 0;
  }

  /**
   * A time in microseconds, read exactly from the number's text into nanoseconds: a double cannot
   * hold an epoch-based microsecond time to the nanosecond.
   */
  static long micros(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      long us = longOr(p, Long.MIN_VALUE);
      // a time no clock gives is no time: the event is counted as lacking one
      return us > Long.MAX_VALUE / 1000 || us < Long.MIN_VALUE / 1000 ? Long.MIN_VALUE : us * 1000;
    }
    if (v == JsonToken.VALUE_NUMBER_FLOAT || v == JsonToken.VALUE_STRING) {
      return microsText(p.getText());
    }
    p.skipChildren();
    return Long.MIN_VALUE;
  }

  static long microsText(String s) {
    if (s.length() > MAX_NUMBER_CHARS) {
      return Long.MIN_VALUE; // no time is written so, and parsing a number costs its digits squared
    }
    s = s.trim();
    int dot = s.indexOf('.');
    if (dot >= 0 && s.indexOf('e') < 0 && s.indexOf('E') < 0) {
      try {
        long whole = dot == 0 ? 0 : Long.parseLong(s.substring(0, dot));
        String frac = (s.substring(dot + 1) + "000").substring(0, 3);
        long ns = Long.parseLong(frac);
        return Math.addExact(Math.multiplyExact(whole, 1000L), s.startsWith("-") ? -ns : ns);
      } catch (NumberFormatException | ArithmeticException ex) {
        return Long.MIN_VALUE;
      }
    }
    try {
      BigDecimal ns = new BigDecimal(s).movePointRight(3);
      // digits before the point, judged before converting: converting 1e999999999 or
      // 1e-999999999 would build a number of a billion digits
      long digits = (long) ns.precision() - ns.scale();
      if (digits <= 0) {
        return 0;
      }
      return digits > 19 ? Long.MIN_VALUE : ns.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
    } catch (NumberFormatException | ArithmeticException ex) {
      return Long.MIN_VALUE;
    }
  }

  /** The longest time read from a string; JSON numbers are limited by the parser (1,000 digits). */
  private static final int MAX_NUMBER_CHARS = 100;

  /** An integer value that fits in a long, else {@code otherwise}. */
  private static long longOr(JsonParser p, long otherwise) throws IOException {
    return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? otherwise : p.getLongValue();
  }

  // ---- what each category becomes ----

  private void count(String k) {
    source.merge(k, 1L, Long::sum);
  }

  private void event(Ev e) throws IOException {
    if (e.cat != null && categories.size() < 64) {
      categories.putIfAbsent(e.cat, true);
    }
    if ("M".equals(e.ph)) {
      metadata(e);
      return;
    }
    if (e.cat == null) {
      return;
    }
    switch (e.cat) {
      case "cuda_runtime", "Runtime" -> callEvent(e, "runtime calls");
      case "cuda_driver", "Driver" -> callEvent(e, "driver calls");
      case "kernel", "Kernel" -> gpuEvent(e, GpuActivityKind.GPU_KERNEL, "kernels");
      case "gpu_memcpy", "Memcpy" -> gpuEvent(e, GpuActivityKind.GPU_MEMCPY, "memcpys");
      case "gpu_memset", "Memset" -> gpuEvent(e, GpuActivityKind.GPU_MEMSET, "memsets");
      case "cuda_sync" -> syncEvent(e);
      case "ac2g", "async_cpu_to_gpu" -> {
        if ("s".equals(e.ph) || "f".equals(e.ph)) {
          count("flow events");
        }
      }
      default -> { }
    }
  }

  private void metadata(Ev e) {
    if (e.metaName == null || !e.tidNumeric && "thread_name".equals(e.name)) {
      return;
    }
    if ("process_name".equals(e.name) && e.pidNumeric) {
      out.processName(e.pid, e.metaName);
    } else if ("thread_name".equals(e.name) && e.pidNumeric) {
      out.threadName(e.pid, e.tid, e.metaName);
    }
  }

  private boolean complete(Ev e, String what) {
    if (!"X".equals(e.ph) || e.ts == Long.MIN_VALUE || e.dur < 0) {
      out.warn(what + " that are not complete events with ts and dur (ignored)");
      return false;
    }
    return true;
  }

  private void callEvent(Ev e, String what) {
    count(what);
    if (!complete(e, what) || e.name == null) {
      return;
    }
    pidVotes.merge(e.pid, 1L, Long::sum);
    if (e.correlation < 0) {
      needFlow.computeIfAbsent(new FlowKey(e.pid, e.tid, e.ts), k -> new ArrayList<>())
          .add(new Pending(true, null, e.pid, e.tid, e.ts, e.dur, e.name));
      return;
    }
    out.call(0, e.correlation, e.pid, e.tid, e.ts, e.dur, e.name, 0);
  }

  private static final Pattern MEMCPY = Pattern.compile("Memcpy\\s+(\\w+)(?:\\s*\\((\\w+)\\s*->\\s*(\\w+)\\))?");
  private static final Pattern MEMSET = Pattern.compile("Memset(?:\\s*\\((\\w+)\\))?");

  private static MemoryKind memoryKind(String s) {
    if (s == null) {
      return MemoryKind.MEMORY_KIND_UNSPECIFIED;
    }
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "pageable" -> MemoryKind.PAGEABLE;
      case "pinned" -> MemoryKind.PINNED;
      case "device", "devicestatic", "device_static" -> MemoryKind.DEVICE;
      case "managed", "managedstatic", "managed_static" -> MemoryKind.MANAGED;
      case "array" -> MemoryKind.ARRAY;
      default -> MemoryKind.MEMORY_KIND_UNSPECIFIED;
    };
  }

  private static CopyKind copyKind(String s) {
    return switch (s) {
      case "HtoD", "HtoA" -> CopyKind.HOST_TO_DEVICE;
      case "DtoH", "AtoH" -> CopyKind.DEVICE_TO_HOST;
      case "HtoH" -> CopyKind.HOST_TO_HOST;
      case "DtoD", "DtoA", "AtoD", "AtoA", "PtoP" -> CopyKind.DEVICE_TO_DEVICE;
      default -> CopyKind.COPY_KIND_UNSPECIFIED;
    };
  }

  private void gpuEvent(Ev e, GpuActivityKind kind, String what) {
    count(what);
    if (!complete(e, what)) {
      return;
    }
    GpuOpRow r = out.gpuOp().proc(0).corr(Math.max(e.correlation, 0)).kind(kind).startNs(e.ts).endNs(e.ts + e.dur)
        // GPU tracks are pid = device, tid = stream when args do not say
        .device(e.device >= 0 ? e.device : e.pidNumeric ? e.pid : 0);
    long stream = e.stream != Long.MIN_VALUE ? e.stream : e.tid;
    r.stream(stream);
    if (stream == defaultStream && !sawDefaultStream) {
      sawDefaultStream = true;
      out.streamKind(0, stream, StreamKind.LEGACY);
    }
    r.context(e.context).bytes(Math.max(e.bytes, 0));
    String name = e.name == null ? "" : e.name;
    switch (kind) {
      case GPU_KERNEL -> {
        r.nameId(out.strings.id(name));
        long[] g = e.hasGrid ? e.grid : new long[] {1, 1, 1};
        long[] b = e.hasBlock ? e.block : new long[] {1, 1, 1};
        r.grid(g[0], g[1], g[2]).block(b[0], b[1], b[2]).sharedMemBytes(e.sharedMemory)
            .resources((e.registers & 0xffff) | (e.hasSharedMemory ? GpuOpRow.RES_TOTAL : 0));
        if (!Float.isNaN(e.occupancy)) {
          r.occupancyPct(e.occupancy);
        }
        if (!Float.isNaN(e.blocksPerSm) && !Float.isNaN(e.warpsPerSm)) {
          r.perSm(e.blocksPerSm, e.warpsPerSm);
        }
      }
      case GPU_MEMCPY -> {
        Matcher m = MEMCPY.matcher(name);
        CopyKind ck = CopyKind.COPY_KIND_UNSPECIFIED;
        MemoryKind src = MemoryKind.MEMORY_KIND_UNSPECIFIED;
        MemoryKind dst = MemoryKind.MEMORY_KIND_UNSPECIFIED;
        if (m.lookingAt()) {
          ck = copyKind(m.group(1));
          src = memoryKind(m.group(2));
          dst = memoryKind(m.group(3));
          if (m.group(1).equals("PtoP")) {
            r.kind(GpuActivityKind.GPU_MEMCPY_PEER);
          }
        } else {
          out.warn("memcpys whose name gives no direction (taken as device to device)");
          ck = CopyKind.DEVICE_TO_DEVICE;
        }
        r.copy(ck, src, dst);
      }
      case GPU_MEMSET -> {
        Matcher m = MEMSET.matcher(name);
        MemoryKind k = m.lookingAt() ? memoryKind(m.group(1)) : MemoryKind.MEMORY_KIND_UNSPECIFIED;
        r.memsetKind(k == MemoryKind.MEMORY_KIND_UNSPECIFIED ? MemoryKind.DEVICE : k);
      }
      default -> { }
    }
    if (e.correlation < 0) {
      needFlow.computeIfAbsent(new FlowKey(e.pid, e.tid, e.ts), k -> new ArrayList<>())
          .add(new Pending(false, r.copy(), e.pid, e.tid, e.ts, e.dur, name));
      return;
    }
    out.gpu(r);
  }

  private void syncEvent(Ev e) {
    count("cuda_sync records");
    if (e.correlation < 0 || e.syncKind == null) {
      out.warn("cuda_sync records without a correlation id or kind (ignored)");
      return;
    }
    int type = switch (e.syncKind) {
      case "Event Sync" -> SyncRow.TYPE_EVENT;
      case "Stream Wait Event" -> SyncRow.TYPE_STREAM_WAIT;
      case "Stream Sync" -> SyncRow.TYPE_STREAM;
      case "Context Sync" -> SyncRow.TYPE_CONTEXT;
      default -> SyncRow.TYPE_UNKNOWN;
    };
    long stream = e.stream != Long.MIN_VALUE && e.stream >= 0 ? e.stream : -1;
    // an event is named by the correlation id of the cudaEventRecord that last recorded it
    long record = e.waitOnRecordCorr > 0 ? e.waitOnRecordCorr : 0;
    out.sync(0, e.correlation, type, stream, record, e.waitOnStream, e.device);
    if (record > 0 && e.waitOnStream >= 0) {
      out.eventRecord(0, record, e.waitOnStream, record, e.device);
    }
  }

  // ---- flows: the second pass ----

  private void flowPass(Supplier<InputStream> open) throws IOException {
    Map<FlowKey, Long> found = new HashMap<>();
    try (InputStream in = open.get(); JsonParser p = JSON.createParser(in)) {
      try {
        JsonToken first = p.nextToken();
        EventSink flows = e -> {
          if (("s".equals(e.ph) || "f".equals(e.ph)) && e.id != null
              && ("ac2g".equals(e.cat) || "async_cpu_to_gpu".equals(e.cat))) {
            FlowKey k = new FlowKey(e.pid, e.tid, e.ts);
            if (needFlow.containsKey(k)) {
              try {
                found.put(k, Long.parseLong(e.id));
              } catch (NumberFormatException ignored) {
                // not a correlation id
              }
            }
          }
        };
        if (first == JsonToken.START_ARRAY) {
          events(p, flows);
        } else {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            JsonToken v = p.nextToken();
            if (p.currentName().equals("traceEvents") && v == JsonToken.START_ARRAY) {
              events(p, flows);
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
    for (Map.Entry<FlowKey, List<Pending>> en : needFlow.entrySet()) {
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

  // ---- top-level sections ----

  /**
   * Moves to the next object of the array {@code section} (elements of other kinds are skipped);
   * false at the array's end.
   */
  private static boolean nextObject(JsonParser p, String section) throws IOException {
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t == null) {
        throw new EOFException("the file ends inside " + section);
      }
      if (t == JsonToken.START_OBJECT) {
        return true;
      }
      p.skipChildren();
    }
    return false;
  }

  private void deviceProperties(JsonParser p) throws IOException {
    while (nextObject(p, "deviceProperties")) {
      Map<String, String> d = new HashMap<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String k = p.currentName();
        JsonToken v = p.nextToken();
        if (v.isScalarValue()) {
          d.put(k, p.getText());
        } else {
          p.skipChildren();
        }
      }
      StringBuilder s = new StringBuilder("GPU ").append(d.getOrDefault("id", "?")).append(": ")
          .append(d.getOrDefault("name", "unknown"));
      if (d.containsKey("numSms")) {
        s.append(", ").append(d.get("numSms")).append(" SMs");
      }
      if (d.containsKey("totalGlobalMem")) {
        try {
          s.append(String.format(Locale.ROOT, ", %.1f GiB", Long.parseLong(d.get("totalGlobalMem")) / (double) (1L << 30)));
        } catch (NumberFormatException ignored) {
          // leave it out
        }
      }
      if (d.containsKey("computeMajor")) {
        s.append(", compute capability ").append(d.get("computeMajor")).append('.')
            .append(d.getOrDefault("computeMinor", "0"));
      }
      gpuNotes.add(s.toString());
      out.device(SourceDevices.kineto(d));
    }
  }

  private void distributedInfo(JsonParser p) throws IOException {
    StringBuilder s = new StringBuilder("distributed run:");
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String k = p.currentName();
      JsonToken v = p.nextToken();
      if (v.isScalarValue() && (k.equals("rank") || k.equals("world_size") || k.equals("backend"))) {
        s.append(' ').append(k).append(' ').append(p.getText());
      } else {
        p.skipChildren();
      }
    }
    gpuNotes.add(s.toString());
  }
}
