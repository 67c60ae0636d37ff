package io.apptrace.stats;

import io.apptrace.proto.Event;
import io.apptrace.proto.GraphNode;
import java.util.Locale;

/**
 * What the statistics count of CUDA graphs: executable graphs described, their nodes by kind,
 * launches, and the work issued to streams being captured (graph nodes, not work).
 */
final class GraphCounting {
  private GraphCounting() {}

  /**
   * Whether {@code e} is a copy, memset, kernel launch, stream-ordered allocation or free, event
   * record or wait, or host function issued to a stream being captured.
   */
  static boolean captured(Event e) {
    return switch (e.getBodyCase()) {
      case COPY -> e.getCopy().getCaptureId() != 0;
      case MEMSET -> e.getMemset().getCaptureId() != 0;
      case LAUNCH -> e.getLaunch().getCaptureId() != 0;
      case ALLOC -> e.getAlloc().getCaptureId() != 0;
      case FREE -> e.getFree().getCaptureId() != 0;
      case EVENT -> e.getEvent().getCaptureId() != 0;
      case CALLBACK -> e.getCallback().getCaptureId() != 0;
      default -> false;
    };
  }

  /** Counts a graph record: a description's head, its nodes, a launch. */
  static void count(Event e, Counts[] scopes) {
    if (e.getResult() != 0) {
      return;
    }
    if (e.hasGraphExec()) {
      var g = e.getGraphExec();
      for (Counts c : scopes) {
        if (!g.getPart()) {
          c.graph();
        }
        if (!g.getReplace()) {
          for (GraphNode n : g.getNodesList()) {
            c.graphNode(kind(n));
          }
        }
      }
    } else if (e.hasGraphLaunch() && e.getGraphLaunch().getCaptureId() == 0) {
      for (Counts c : scopes) {
        c.graphLaunch();
      }
    }
  }

  /** "kernel", "memcpy", "memset", "host", "child graph", "empty", "event record", ... */
  static String kind(GraphNode n) {
    String k = n.getKind().name();
    if (!k.startsWith("GRAPH_")) {
      return "unknown";
    }
    return switch (n.getKind()) {
      case GRAPH_CHILD -> "child graph";
      case GRAPH_MEM_ALLOC -> "mem alloc";
      case GRAPH_MEM_FREE -> "mem free";
      default -> k.substring("GRAPH_".length()).toLowerCase(Locale.ROOT).replace('_', ' ');
    };
  }
}
