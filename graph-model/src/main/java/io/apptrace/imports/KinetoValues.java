package io.apptrace.imports;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Reads one JSON value as the type a Kineto field has: text, an integer, a finite decimal, a
 * triple such as a grid, a time in microseconds (exactly, into nanoseconds). A value of another
 * type is skipped and read as the field's "absent" value, so a damaged event is an event with
 * fewer fields, never an error.
 */
final class KinetoValues {
  /** The longest time read from a string; JSON numbers are limited by the parser (1,000 digits). */
  private static final int MAX_NUMBER_CHARS = 100;

  private KinetoValues() {}

  static String text(JsonParser p, JsonToken v) throws IOException {
    if (v.isScalarValue()) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  /** A finite number, else NaN. */
  static float decimal(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT || v == JsonToken.VALUE_NUMBER_FLOAT) {
      double d = p.getDoubleValue();
      return Double.isFinite(d) && Math.abs(d) < Float.MAX_VALUE ? (float) d : Float.NaN;
    }
    p.skipChildren();
    return Float.NaN;
  }

  /** An integer, a decimal cut to one, or a string holding one; else {@code otherwise}. */
  static long integer(JsonParser p, JsonToken v, long otherwise) throws IOException {
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

  /**
   * An array of up to three integers into {@code into} (missing ones are 1, further ones are
   * ignored); false, and nothing read, when the value is not an array.
   */
  static boolean triple(JsonParser p, JsonToken v, long[] into) throws IOException {
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

  /** A pid or tid: numbers as they are; strings ("Spans", "stream 7") by a small id of {@code ids}. */
  static long idOf(JsonParser p, JsonToken v, Strings ids) throws IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      return longOr(p, 0);
    }
    if (v == JsonToken.VALUE_STRING) {
      String s = p.getText();
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException ex) {
        return 0x7e000000L + ids.id(s);
      }
    }
    p.skipChildren();
    return 0;
  }

  /**
   * A time in microseconds, read exactly from the number's text into nanoseconds: a double cannot
   * hold an epoch-based microsecond time to the nanosecond. Long.MIN_VALUE when it is no time.
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

  /** {@link #micros} of a number's text; below a nanosecond is dropped. */
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
      return digits > 19 ? Long.MIN_VALUE : ns.setScale(0, RoundingMode.DOWN).longValueExact();
    } catch (NumberFormatException | ArithmeticException ex) {
      return Long.MIN_VALUE;
    }
  }

  /** An integer value that fits in a long, else {@code otherwise}. */
  private static long longOr(JsonParser p, long otherwise) throws IOException {
    return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? otherwise : p.getLongValue();
  }
}
