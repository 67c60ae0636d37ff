package io.apptrace.node;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * The bundled node files composed at build time: each {@code NAME.yaml} of the bundled folder is
 * composed (and checked) by {@link BoundedYaml#compose} and its node tree written beside it as {@code
 * NAME.tree}, which {@link NodeLoader#bundled} reads back instead of parsing the YAML. The tree
 * holds what the reading needs (tags, values, scalar styles, the line and column of every node)
 * and goes through the same {@code NodeLoader} reading as the YAML; it only spares the cold
 * YAML parser, the largest part of {@code apptrace model}'s startup after picocli's
 * (docs/BENCHMARKS.md). A tree records the length and CRC-32 of the text it was made from: a
 * tree older than its file (a build that skipped making them) is not used.
 *
 * <p>Run by the build ({@code replay/pom.xml}, phase process-classes): {@code NodeTrees DIR}.
 */
public final class NodeTrees {
  private static final int MAGIC = 0x41544e54; // "ATNT"
  private static final int VERSION = 1;
  private static final byte MAP = 1;
  private static final byte SEQ = 2;
  private static final byte SCALAR = 3;

  private NodeTrees() {}

  /** Writes {@code NAME.tree} beside every {@code NAME.yaml} in {@code dir}. */
  public static void main(String[] args) throws IOException, NodeFileException {
    if (args.length != 1) {
      System.err.println("usage: NodeTrees DIR");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    try (var files = Files.list(dir)) {
      for (Path yaml : files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList()) {
        String name = yaml.getFileName().toString();
        String text = Files.readString(yaml, StandardCharsets.UTF_8);
        MappingNode root = BoundedYaml.compose(name, text);
        Files.write(dir.resolve(name.substring(0, name.length() - ".yaml".length()) + ".tree"), encode(text, root));
      }
    }
  }

  /** The tree's bytes: {@code root}, composed from {@code text}. */
  static byte[] encode(String text, MappingNode root) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(text.length());
      out.writeLong(crc(text));
      write(out, root);
    }
    return b.toByteArray();
  }

  private static void write(DataOutputStream out, Node n) throws IOException {
    Mark m = n.getStartMark().orElseThrow(() -> new IOException("a node without a position"));
    if (n instanceof MappingNode map) {
      out.writeByte(MAP);
      marks(out, m, map.getTag(), map.getFlowStyle());
      out.writeInt(map.getValue().size());
      for (NodeTuple t : map.getValue()) {
        write(out, t.getKeyNode());
        write(out, t.getValueNode());
      }
    } else if (n instanceof SequenceNode seq) {
      out.writeByte(SEQ);
      marks(out, m, seq.getTag(), seq.getFlowStyle());
      out.writeInt(seq.getValue().size());
      for (Node c : seq.getValue()) {
        write(out, c);
      }
    } else if (n instanceof ScalarNode s) {
      out.writeByte(SCALAR);
      out.writeInt(m.getLine());
      out.writeInt(m.getColumn());
      out.writeUTF(s.getTag().getValue());
      out.writeByte(s.getScalarStyle().ordinal());
      out.writeUTF(s.getValue());
    } else {
      throw new IOException("an anchor or alias node: bundled node files have none");
    }
  }

  private static void marks(DataOutputStream out, Mark m, Tag tag, FlowStyle flow) throws IOException {
    out.writeInt(m.getLine());
    out.writeInt(m.getColumn());
    out.writeUTF(tag.getValue());
    out.writeByte(flow.ordinal());
  }

  private static long crc(String text) {
    CRC32 c = new CRC32();
    c.update(text.getBytes(StandardCharsets.UTF_8));
    return c.getValue();
  }

  /**
   * The tree the build made from a bundled node's {@code text}, if there is one and it was made
   * from that text.
   */
  static Optional<MappingNode> bundled(String name, String text) throws NodeFileException {
    try (InputStream in = NodeTrees.class.getResourceAsStream(NodeLoader.BUNDLED + name + ".tree")) {
      if (in == null) {
        return Optional.empty();
      }
      return decode(name + ".yaml", text, in.readAllBytes());
    } catch (IOException e) {
      throw new NodeFileException("cannot read the bundled node " + name + ": " + e.getMessage());
    }
  }

  /** A tree's node, its marks naming {@code file}; empty if it was not made from {@code text}. */
  static Optional<MappingNode> decode(String file, String text, byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    if (in.readInt() != MAGIC || in.readInt() != VERSION || in.readInt() != text.length() || in.readLong() != crc(text)) {
      return Optional.empty();
    }
    if (!(read(in, file) instanceof MappingNode m)) {
      throw new IOException("a node tree whose root is not a mapping");
    }
    return Optional.of(m);
  }

  private static final ScalarStyle[] SCALAR_STYLES = ScalarStyle.values();
  private static final FlowStyle[] FLOW_STYLES = FlowStyle.values();

  private static Node read(DataInputStream in, String file) throws IOException {
    byte kind = in.readByte();
    Optional<Mark> at = Optional.of(new Mark(file, 0, in.readInt(), in.readInt(), new int[0], 0));
    Tag tag = tag(in.readUTF());
    switch (kind) {
      case MAP -> {
        FlowStyle flow = FLOW_STYLES[in.readByte()];
        int n = in.readInt();
        List<NodeTuple> tuples = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          tuples.add(new NodeTuple(read(in, file), read(in, file)));
        }
        return new MappingNode(tag, true, tuples, flow, at, at);
      }
      case SEQ -> {
        FlowStyle flow = FLOW_STYLES[in.readByte()];
        int n = in.readInt();
        List<Node> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(read(in, file));
        }
        return new SequenceNode(tag, true, items, flow, at, at);
      }
      case SCALAR -> {
        ScalarStyle style = SCALAR_STYLES[in.readByte()];
        return new ScalarNode(tag, true, in.readUTF(), style, at, at);
      }
      default -> throw new IOException("a damaged node tree (node kind " + kind + ")");
    }
  }

  /** The standard tags as their constants (compared by value either way). */
  private static Tag tag(String value) {
    for (Tag t : new Tag[] {Tag.STR, Tag.INT, Tag.FLOAT, Tag.BOOL, Tag.NULL, Tag.MAP, Tag.SEQ}) {
      if (t.getValue().equals(value)) {
        return t;
      }
    }
    return new Tag(value);
  }
}
