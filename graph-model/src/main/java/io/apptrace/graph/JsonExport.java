package io.apptrace.graph;

import java.io.Writer;
import java.util.Objects;
import org.jgrapht.nio.json.JSONExporter;

/** Writes a DVDG as JSON ({@code {"nodes": [...], "edges": [...]}}) with the GraphML attributes. */
public final class JsonExport {
  private JsonExport() {}

  public static void write(Dvdg g, CallSites sites, Writer out) {
    Objects.requireNonNull(g, "g");
    write(new DvdgAttributes(g, Objects.requireNonNull(sites, "sites")), out);
  }

  /** Writes any graph the exporters know the attributes of (a DVDG, a job's). */
  public static void write(AttributedGraph g, Writer out) {
    JSONExporter<Integer, Integer> x = new JSONExporter<>(DvdgAttributes::vertexId);
    x.setEdgeIdProvider(DvdgAttributes::edgeId);
    x.setVertexAttributeProvider(g::vertex);
    x.setEdgeAttributeProvider(g::edge);
    x.exportGraph(g.graph(), Objects.requireNonNull(out, "out"));
  }
}
