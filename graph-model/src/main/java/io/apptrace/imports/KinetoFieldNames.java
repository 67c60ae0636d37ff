package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the field names of Kineto events, guessing each from the one before it in the last
 * object of the same kind: Kineto writes the fields of every event of a kind in the same order,
 * and a name guessed right is matched on its bytes without being decoded and looked up. The kinds
 * are an event's phase (after its "ph") and its args' category, since Kineto orders the fields of
 * a complete event, a flow event and a metadata event differently, and the args of a kernel, a
 * memcpy and a runtime call too; one predictor for all would guess wrong at every change of kind.
 * At most {@link #PREDICTORS} of each.
 */
final class KinetoFieldNames {
  private static final int PREDICTORS = 64;

  private final Predictor events = new Predictor();
  private final Map<String, Predictor> eventsByPhase = new HashMap<>();
  private final Predictor args = new Predictor();
  private final Map<String, Predictor> argsByCategory = new HashMap<>();

  /** The predictor of an event's fields, at its first. */
  Predictor event() {
    return events.start();
  }

  /**
   * The predictor of the fields after "ph" of an event of phase {@code ph}; {@code current}
   * when it already is one of a phase.
   */
  Predictor afterPhase(Predictor current, String ph) {
    return current != events ? current : predictor(eventsByPhase, ph, events).after("ph");
  }

  /** The predictor of the args of an event of category {@code cat}, at their first field. */
  Predictor args(String cat) {
    return predictor(argsByCategory, cat, args).start();
  }

  private static Predictor predictor(Map<String, Predictor> by, String kind, Predictor otherwise) {
    if (kind == null) {
      return otherwise;
    }
    Predictor f = by.get(kind);
    if (f == null) {
      if (by.size() >= PREDICTORS) {
        return otherwise;
      }
      f = new Predictor();
      by.put(kind, f);
    }
    return f;
  }

  /** Guesses each field name from the one before it in the last object this predictor read. */
  static final class Predictor {
    private static final int MAX = 4096;
    private final Map<String, SerializedString> after = new HashMap<>();
    private String prev = "";

    /** The object's first field comes next. */
    Predictor start() {
      prev = "";
      return this;
    }

    /** The field after {@code name} comes next (a switch to another predictor mid-object). */
    Predictor after(String name) {
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
}
