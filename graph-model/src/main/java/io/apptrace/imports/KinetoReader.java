package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.CharConversionException;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads a PyTorch profiler / Kineto Chrome-trace JSON file, one event at a time, never the whole
 * file in a tree: walks the document's top level (the event array, {@code deviceProperties},
 * {@code distributedInfo}, the host name), has each event tokenized ({@link KinetoTokenizer}) and
 * mapped to the assembler's rows ({@link KinetoMapper}), and runs the flow pass
 * ({@link KinetoFlowJoin}) when events lack their correlation id. A file cut short or damaged part
 * way keeps the events before the point where it stops being JSON; a file that is not a Kineto
 * trace at all is a {@link NotKinetoException}.
 */
final class KinetoReader {
  private final ImportAssembler out;
  private final KinetoFlowJoin flows;
  private final KinetoMapper mapper;
  private final KinetoTokenizer tokenizer = new KinetoTokenizer(KinetoMapper::imported);
  /** Counts of what the file holds, by kind, as the import report shows them. */
  final Map<String, Long> source;
  /** Where the parse stopped early (a truncated or damaged file); null when it read to the end. */
  String truncatedAt;
  /** Why, when the file does not just end there: the JSON parser's one-line reason; else null. */
  String damage;

  /** @param defaultStream the file's stream taken as the legacy default stream (docs/IMPORT.md) */
  KinetoReader(ImportAssembler out, long defaultStream) {
    this.out = out;
    flows = new KinetoFlowJoin(out);
    mapper = new KinetoMapper(out, flows, defaultStream);
    source = mapper.source;
  }

  /** What was wrong with the file as a whole. */
  static final class NotKinetoException extends Exception {
    NotKinetoException(String message) {
      super(message);
    }
  }

  /**
   * Reads the file.
   *
   * @param open opens the (decompressed) file; called a second time when events need the flow
   *     pass
   */
  void read(Supplier<InputStream> open) throws IOException, NotKinetoException {
    boolean sawEvents = false;
    List<String> keys = new ArrayList<>();
    try (Counting in = new Counting(open.get()); JsonParser p = KinetoTokenizer.JSON.createParser(in)) {
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
          events(p);
        } else if (first == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (key.equals("traceEvents") && v == JsonToken.START_ARRAY) {
              sawEvents = true;
              events(p);
            } else if (key.equals("deviceProperties") && v == JsonToken.START_ARRAY) {
              while (KinetoTokenizer.nextObject(p, "deviceProperties")) {
                Map<String, String> d = new HashMap<>();
                for (Map.Entry<String, String> f : scalars(p)) {
                  d.put(f.getKey(), f.getValue());
                }
                mapper.deviceProperties(d);
              }
            } else if (key.equals("distributedInfo") && v == JsonToken.START_OBJECT) {
              mapper.distributedInfo(scalars(p));
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
    if (mapper.cudaEvents() == 0) {
      // cut short or whole, a trace without CUDA events gives nothing to replay
      throw new NotKinetoException((truncatedAt != null ? "the file ends early (at " + truncatedAt
          + " of the decompressed JSON), before any CUDA event: " : "a Chrome trace with no CUDA events: ")
          + "expected events of category cuda_runtime, kernel, gpu_memcpy or gpu_memset (or Runtime, Kernel,"
          + " Memcpy, Memset), found " + (mapper.categories().isEmpty() ? "none"
          : String.join(", ", mapper.categories())));
    }
    mapper.finishEvents();
    if (flows.needed()) {
      flows.run(open, tokenizer);
    }
    mapper.finish();
  }

  /** Every event of the array the parser is at, mapped. */
  private void events(JsonParser p) throws IOException {
    try (KinetoTokenizer.Events events = tokenizer.events(p)) {
      for (KinetoEvent e = events.next(); e != null; e = events.next()) {
        mapper.event(e);
      }
    }
  }

  /** The scalar fields of the object the parser is in, in file order (the others skipped). */
  private static List<Map.Entry<String, String>> scalars(JsonParser p) throws IOException {
    List<Map.Entry<String, String>> fields = new ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String k = p.currentName();
      JsonToken v = p.nextToken();
      if (v.isScalarValue()) {
        fields.add(new AbstractMap.SimpleImmutableEntry<>(k, p.getText()));
      } else {
        p.skipChildren();
      }
    }
    return fields;
  }

  /** A stream that counts its bytes, to tell a file that ends early from one damaged earlier. */
  private static final class Counting extends FilterInputStream {
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
}
