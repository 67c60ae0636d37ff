package io.apptrace.graph;

import java.io.Writer;
import java.util.Objects;
import org.jgrapht.nio.json.JSONExporter;

/** Writes a DVDG as JSON ({@code {"nodes": [...], "edges": [...]}}) with the GraphML attributes. */
public final class JsonExport {
  private JsonExport() {}

  public static void write(Dvdg g, CallSites sites, Writer out) {
    Objects.requireNonNull(g, "g");
    DvdgAttributes attrs = new DvdgAttributes(g, Objects.requireNonNull(sites, "sites"));
    JSONExporter<Integer, Integer> x = new JSONExporter<>(DvdgAttributes::vertexId);
    x.setEdgeIdProvider(DvdgAttributes::edgeId);
    x.setVertexAttributeProvider(attrs::vertex);
    x.setEdgeAttributeProvider(attrs::edge);
    x.exportGraph(g.graph(), Objects.requireNonNull(out, "out"));
  }
}
