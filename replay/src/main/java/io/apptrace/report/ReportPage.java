package io.apptrace.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.apptrace.node.NodeFileException;
import io.apptrace.replay.ReplayResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the report page shows, before it is drawn: the numbers ({@link ReportData}, from the
 * {@code replay --json} document), the measured timeline when the trace has one, each node's
 * projected timeline, and each node's copies against the transfer model.
 *
 * @param measured the trace's measured timeline, or null
 */
public record ReportPage(ReportData data, TimelineLanes measured, List<TimelineLanes> projected,
    List<CopyBandwidth> copies) {
  public ReportPage {
    projected = List.copyOf(projected);
    copies = List.copyOf(copies);
  }

  /**
   * The page of a replay on several nodes.
   *
   * @param replayJson the {@code replay --json} document of {@code results}
   *     ({@link io.apptrace.replay.ReplayJson#of})
   * @param region the region of interest projected, or null
   * @throws NodeFileException when a node cannot price its copies' curve
   */
  public static ReportPage of(List<ReplayResult> results, JsonNode replayJson, List<WhatIf> whatIfs, String region)
      throws NodeFileException {
    List<TimelineLanes> projected = new ArrayList<>();
    List<CopyBandwidth> copies = new ArrayList<>();
    for (ReplayResult r : results) {
      projected.add(TimelineLanes.projected(r));
      copies.add(CopyBandwidth.of(r));
    }
    TimelineLanes measured = results.isEmpty() ? null : TimelineLanes.measured(results.get(0).program());
    return new ReportPage(ReportData.of(replayJson, whatIfs, region), measured, projected, copies);
  }

  /** The longest span of its timelines, ns: the time axis every timeline shares. */
  public double spanNs() {
    double s = measured == null ? 0 : measured.spanNs();
    for (TimelineLanes t : projected) {
      s = Math.max(s, t.spanNs());
    }
    return Math.max(1, s);
  }
}
