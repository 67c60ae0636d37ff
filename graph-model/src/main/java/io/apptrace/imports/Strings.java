package io.apptrace.imports;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Names (functions, kernels) by small integer id, so records stay fixed-width longs. */
final class Strings {
  private final Map<String, Integer> ids = new HashMap<>();
  private final List<String> names = new ArrayList<>();

  /** The id of {@code s}, adding it when new. */
  int id(String s) {
    Integer id = ids.get(s);
    if (id == null) {
      id = names.size();
      names.add(s);
      ids.put(s, id);
    }
    return id;
  }

  /** The name of an id; "" for -1. */
  String get(long id) {
    return id < 0 || id >= names.size() ? "" : names.get((int) id);
  }

  int size() {
    return names.size();
  }
}
