package io.apptrace.topo;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * Reads the XML hwloc 2.x exports ({@code hwloc_topology_export_xmlbuffer}, {@code lstopo --of
 * xml}): nested {@code <object type="...">} elements with their cpusets, nodesets, memory sizes
 * and PCI attributes. Reading the XML instead of hwloc's C structures keeps apptrace free of
 * their layout, which changes between hwloc releases.
 *
 * <p>A NUMA node's cores are the cores inside its cpuset. NUMA nodes that share a cpuset with an
 * earlier one (HBM, CXL or NVDIMM memory beside the DRAM) get none, so that every core is counted
 * once. A PCI device's NUMA node is that of the object it hangs below: its only one, or the only
 * one of them with cores (a package with DRAM and CXL memory). Link rates and widths are not in
 * the XML (only their product, in GB/s), so {@link Topo} reads them from /sys.
 */
public final class HwlocXml {
  private HwlocXml() {}

  /**
   * The machine the XML describes.
   *
   * @throws IOException if the text is not hwloc 2.x XML
   */
  public static Machine parse(String xml) throws IOException {
    Element root = document(xml);
    if (!root.getTagName().equals("topology")) {
      throw new IOException("not hwloc XML: the document is a <" + root.getTagName() + ">, not a <topology>");
    }
    Walk w = new Walk();
    try {
      for (Element e : children(root, "object")) {
        w.visit(e, new ArrayDeque<>());
      }
      return w.machine();
    } catch (NumberFormatException e) {
      throw new IOException("not hwloc XML as apptrace reads it: " + e.getMessage(), e);
    }
  }

  private static Element document(String xml) throws IOException {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      // hwloc's XML names its DTD (hwloc2.dtd) by a relative path: never fetch it
      f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
      f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
      f.setExpandEntityReferences(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(null);
      return b.parse(new InputSource(new StringReader(xml))).getDocumentElement();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK's XML parser cannot be set up securely", e);
    } catch (SAXException e) {
      throw new IOException("not valid XML: " + e.getMessage().replaceAll("\\s+", " ").strip(), e);
    }
  }

  private static List<Element> children(Element e, String tag) {
    List<Element> out = new ArrayList<>();
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(tag)) {
        out.add(c);
      }
    }
    return out;
  }

  private static Optional<String> info(Element e, String name) {
    for (Element i : children(e, "info")) {
      if (i.getAttribute("name").equals(name)) {
        return Optional.of(i.getAttribute("value"));
      }
    }
    return Optional.empty();
  }

  /**
   * An hwloc bitmap: comma-separated 32-bit hex words, most significant first ({@code
   * 0x00000003}, {@code 0xffffffff,0x0000000f}); an infinite leading {@code 0xf...f} is dropped.
   */
  static BitSet bitmap(String text) {
    BitSet b = new BitSet();
    String[] words = text.strip().split(",");
    for (int i = 0; i < words.length; i++) {
      String w = words[i].strip().toLowerCase(Locale.ROOT);
      w = w.startsWith("0x") ? w.substring(2) : w;
      if (w.isEmpty() || w.contains(".")) {
        continue; // 0xf...f: every higher bit set
      }
      long v = Long.parseLong(w, 16);
      int base = 32 * (words.length - 1 - i);
      for (int bit = 0; bit < 32; bit++) {
        if ((v >>> bit & 1) != 0) {
          b.set(base + bit);
        }
      }
    }
    return b;
  }

  /** One pass over the object tree, collecting what the machine record needs. */
  private static final class Walk {
    final List<Element> packages = new ArrayList<>();
    final List<Element> numa = new ArrayList<>();
    final List<BitSet> cores = new ArrayList<>();
    final List<BitSet> pus = new ArrayList<>();
    final List<Machine.PciDevice> pci = new ArrayList<>();
    /** The nodeset of the object each PCI device hangs below, in {@link #pci}'s order. */
    final List<BitSet> pciNodes = new ArrayList<>();
    String version = "2.x";
    Optional<String> machineModel = Optional.empty();

    void visit(Element e, Deque<Element> ancestors) throws IOException {
      String type = e.getAttribute("type");
      switch (type) {
        case "Machine" -> {
          version = info(e, "hwlocVersion").orElse(version);
          machineModel = info(e, "CPUModel");
        }
        case "Package" -> packages.add(e);
        case "NUMANode" -> numa.add(e);
        case "Core" -> cores.add(bitmap(e.getAttribute("cpuset")));
        case "PU" -> pus.add(bitmap(e.getAttribute("cpuset")));
        case "PCIDev", "Bridge" -> {
          if (e.hasAttribute("pci_busid")) {
            pci.add(device(e, ancestors));
            pciNodes.add(ancestors.stream().filter(a -> a.hasAttribute("nodeset")).findFirst()
                .map(a -> bitmap(a.getAttribute("nodeset"))).orElseGet(BitSet::new));
          }
        }
        default -> { }
      }
      ancestors.push(e);
      for (Element c : children(e, "object")) {
        visit(c, ancestors);
      }
      ancestors.pop();
    }

    private static Machine.PciDevice device(Element e, Deque<Element> ancestors) throws IOException {
      String busId = e.getAttribute("pci_busid").toLowerCase(Locale.ROOT);
      // pci_type="0302 [10de:1db4] [10de:1212] a1": class, [vendor:device], [subsystem], revision
      String[] t = e.getAttribute("pci_type").split("[\\s\\[\\]:]+");
      if (t.length < 3) {
        throw new IOException("hwloc XML: PCI device " + busId + " has pci_type \"" + e.getAttribute("pci_type")
            + "\"; expected \"CLASS [VENDOR:DEVICE] ...\"");
      }
      Element up = ancestors.peek(); // the bridge above it, or a host bridge (which has no bus id)
      Optional<String> parent = up != null && up.hasAttribute("pci_busid")
          ? Optional.of(up.getAttribute("pci_busid").toLowerCase(Locale.ROOT)) : Optional.empty();
      return new Machine.PciDevice(busId, Integer.parseInt(t[0], 16), Integer.parseInt(t[1], 16),
          Integer.parseInt(t[2], 16), parent, OptionalInt.empty(), Machine.PciLink.UNKNOWN);
    }

    Machine machine() {
      List<BitSet> cpus = cores.isEmpty() ? pus : cores; // a platform without Core objects: count PUs
      List<Machine.Socket> sockets = new ArrayList<>();
      List<BitSet> socketSets = new ArrayList<>();
      for (Element p : packages) {
        BitSet set = bitmap(p.getAttribute("cpuset"));
        socketSets.add(set);
        sockets.add(new Machine.Socket(index(p), info(p, "CPUModel").or(() -> machineModel).orElse("unknown model"),
            count(cpus, set)));
      }
      if (sockets.isEmpty()) {
        BitSet all = new BitSet();
        cpus.forEach(all::or);
        socketSets.add(all);
        sockets.add(new Machine.Socket(0, machineModel.orElse("unknown model"), cpus.size()));
      }
      List<Machine.NumaNode> nodes = new ArrayList<>();
      BitSet counted = new BitSet();
      numa.sort((a, b) -> Integer.compare(index(a), index(b)));
      for (Element n : numa) {
        BitSet set = bitmap(n.getAttribute("cpuset"));
        set.andNot(counted);
        int c = count(cpus, set);
        counted.or(set);
        int socket = -1;
        for (int s = 0; s < socketSets.size() && c > 0; s++) {
          if (socketSets.get(s).intersects(set)) {
            socket = sockets.get(s).index();
            break;
          }
        }
        String mem = n.getAttribute("local_memory");
        nodes.add(new Machine.NumaNode(index(n), socket, c,
            mem.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(mem))));
      }
      List<Machine.PciDevice> devices = new ArrayList<>();
      for (int i = 0; i < pci.size(); i++) {
        Machine.PciDevice d = pci.get(i);
        devices.add(new Machine.PciDevice(d.busId(), d.classCode(), d.vendor(), d.device(), d.parent(),
            local(pciNodes.get(i), nodes), d.link()));
      }
      devices.sort((a, b) -> a.busId().compareTo(b.busId()));
      return new Machine(sockets, nodes, devices, "hwloc " + version);
    }

    /** The NUMA node of a nodeset: its only node, or its only node with cores. */
    private static OptionalInt local(BitSet set, List<Machine.NumaNode> nodes) {
      if (set.cardinality() == 1) {
        return OptionalInt.of(set.nextSetBit(0));
      }
      List<Integer> withCores = nodes.stream().filter(n -> set.get(n.index()) && n.cores() > 0)
          .map(Machine.NumaNode::index).toList();
      return withCores.size() == 1 ? OptionalInt.of(withCores.get(0)) : OptionalInt.empty();
    }

    private static int index(Element e) {
      String i = e.getAttribute("os_index");
      return i.isEmpty() ? 0 : Integer.parseInt(i);
    }

    /** The cores (or PUs) inside {@code set}. */
    private static int count(List<BitSet> cpus, BitSet set) {
      int n = 0;
      for (BitSet c : cpus) {
        if (c.intersects(set)) {
          n++;
        }
      }
      return n;
    }
  }
}
