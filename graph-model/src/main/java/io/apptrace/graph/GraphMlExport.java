package io.apptrace.graph;

import java.io.Writer;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.jgrapht.nio.graphml.GraphMLExporter;

/**
 * Writes a DVDG as GraphML through JGraphT's exporter, with typed attributes (keys declared with
 * their types, readable by networkx's read_graphml, Gephi and yEd).
 */
public final class GraphMlExport {
  private GraphMlExport() {}

  public static void write(Dvdg g, CallSites sites, Writer out) {
    Objects.requireNonNull(g, "g");
    write(new DvdgAttributes(g, Objects.requireNonNull(sites, "sites")), out);
  }

  /** Writes any graph the exporters know the attributes of (a DVDG, a job's). */
  public static void write(AttributedGraph g, Writer out) {
    GraphMLExporter<Integer, Integer> x = new GraphMLExporter<>(DvdgAttributes::vertexId);
    x.setEdgeIdProvider(DvdgAttributes::edgeId);
    // JGraphT keys attributes by name: a name nodes and edges share is declared once for both.
    Set<String> edgeNames = new HashSet<>();
    g.edgeAttributes().forEach(a -> edgeNames.add(a.name()));
    Set<String> shared = new HashSet<>();
    for (AttributedGraph.Declared a : g.vertexAttributes()) {
      boolean both = edgeNames.contains(a.name());
      if (both) {
        shared.add(a.name());
      }
      x.registerAttribute(a.name(), both ? GraphMLExporter.AttributeCategory.ALL
          : GraphMLExporter.AttributeCategory.NODE, a.type());
    }
    for (AttributedGraph.Declared a : g.edgeAttributes()) {
      if (!shared.contains(a.name())) {
        x.registerAttribute(a.name(), GraphMLExporter.AttributeCategory.EDGE, a.type());
      }
    }
    x.setVertexAttributeProvider(g::vertex);
    x.setEdgeAttributeProvider(g::edge);
    x.exportGraph(g.graph(), Objects.requireNonNull(out, "out"));
  }
}
