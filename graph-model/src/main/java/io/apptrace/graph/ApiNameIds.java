package io.apptrace.graph;

import io.apptrace.proto.Api;
import io.apptrace.trace.GraphEvent;
import java.util.Arrays;

/**
 * The operation table's name id of each call's API function, cached by Api number: a trace makes
 * millions of calls to a few functions.
 */
final class ApiNameIds {
  private final OperationTable ops;
  /** Name ids of runtime functions, by Api number (-1: not looked up yet). */
  private final int[] ids = new int[1024];

  ApiNameIds(OperationTable ops) {
    this.ops = ops;
    Arrays.fill(ids, -1);
  }

  /** The name id of {@code c}'s function. */
  int of(GraphEvent.Call c) {
    int api = c.api();
    boolean cacheable = api > Api.API_OTHER_VALUE && api < ids.length;
    if (cacheable && ids[api] >= 0) {
      return ids[api];
    }
    int id = ops.nameId(c.function());
    if (cacheable) {
      ids[api] = id;
    }
    return id;
  }
}
