package io.apptrace.graph;

import java.io.Writer;
import java.util.Map;
import java.util.Objects;
import org.jgrapht.nio.Attribute;
import org.jgrapht.nio.DefaultAttribute;
import org.jgrapht.nio.dot.DOTExporter;

/**
 * Writes a DVDG in Graphviz DOT: values as boxes labeled "alloc N vK" with their location, memory
 * kind and size (a job's: "rank R alloc N vK"), operations as edges labeled with their name (as in
 * Pearson 2018, Fig. 6.1); every attribute of the GraphML form is there too, except that a value's
 * {@code label} (what allocated it) is written as {@code alloc_label}, since DOT draws
 * {@code label}.
 */
public final class DotExport {
  private DotExport() {}

  public static void write(Dvdg g, CallSites sites, Writer out) {
    Objects.requireNonNull(g, "g");
    write(new DvdgAttributes(g, Objects.requireNonNull(sites, "sites")), out);
  }

  /** Writes any graph the exporters know the attributes of (a DVDG, a job's). */
  public static void write(AttributedGraph g, Writer out) {
    DOTExporter<Integer, Integer> x = new DOTExporter<>(DvdgAttributes::vertexId);
    x.setGraphIdProvider(() -> "dvdg");
    x.setVertexAttributeProvider(v -> {
      Map<String, Attribute> m = g.vertex(v);
      String role = m.get("role").getValue();
      String rank = m.containsKey("rank") ? "rank " + m.get("rank").getValue() + " " : "";
      String label = role.equals("value")
          ? rank + "alloc " + m.get("alloc").getValue() + " v" + m.get("version").getValue() + "\n"
              + m.get("location").getValue() + " " + m.get("memory").getValue() + " "
              + m.get("bytes").getValue() + " B"
          : role + " of op " + m.get("op").getValue();
      Attribute allocLabel = m.put("label", DefaultAttribute.createAttribute(label));
      if (allocLabel != null) { // DOT's label is what is drawn: the allocation's moves aside
        m.put("alloc_label", allocLabel);
      }
      m.put("shape", DefaultAttribute.createAttribute(role.equals("value") ? "box" : "point"));
      return m;
    });
    x.setEdgeAttributeProvider(e -> {
      Map<String, Attribute> m = g.edge(e);
      m.put("label", DefaultAttribute.createAttribute(m.get("name").getValue()));
      return m;
    });
    x.exportGraph(g.graph(), Objects.requireNonNull(out, "out"));
  }
}
