package io.apptrace.node;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * The YAML of a node file (or cluster file, GPU catalogue, or a value given with {@code --set})
 * composed into a node tree, within limits against hostile files: a document too big, too
 * aliased, too deeply nested or with too long a value is refused with one line saying so, before
 * it can exhaust memory or the stack. Invalid YAML is an error located at its file, line and
 * column; so is any later error about a node of the tree ({@link #error}). {@link YamlMap} then
 * reads the tree key by key.
 */
final class BoundedYaml {
  /**
   * Limits against hostile files: a document this big, this aliased (billion laughs), this deeply
   * nested or with a value this long is no node file. The largest bundled file is 19 KiB.
   */
  static final int MAX_CODE_POINTS = 128 * 1024;
  static final int MAX_ALIASES = 20;
  static final int MAX_DEPTH = 32;
  static final int MAX_SCALAR_CHARS = 64 * 1024;

  private BoundedYaml() {}

  /**
   * Composes a whole document, which must be a mapping, into its node tree (for {@link
   * NodeOverrides} to change before {@link YamlMap#root} reads it).
   */
  static MappingNode compose(String file, String text) throws NodeFileException {
    Optional<Node> root = composeText(file, true, text);
    if (root.isEmpty()) {
      throw new NodeFileException(file + ": the file is empty; a node file starts with 'name:'");
    }
    checkDepth(file, root.get(), 0);
    if (!(root.get() instanceof MappingNode m)) {
      throw error(file, root.get(), "", "a node file is a mapping of keys (name, cpus, gpus, links, ...)");
    }
    return m;
  }

  /**
   * Composes one value given outside the file ({@code --set PATH=VALUE}): its nodes' marks carry
   * {@code label} instead of the file's name, so that errors about them name the label. An empty
   * text is a null value.
   */
  static Node composeValue(String label, String text) throws NodeFileException {
    Optional<Node> n = composeText(label, false, text);
    if (n.isEmpty()) {
      Optional<Mark> at = Optional.of(mark(label));
      return new ScalarNode(Tag.NULL, true, "", ScalarStyle.PLAIN, at, at);
    }
    return n.get();
  }

  /** A mark for nodes made outside any text, which errors locate as {@code label}. */
  static Mark mark(String label) {
    return new Mark(label, 0, 0, 0, new int[0], 0);
  }

  /**
   * Composes {@code text}, whose nodes' marks carry {@code label}; invalid YAML is an error located
   * at {@code label}, with the line and column if {@code atLine}.
   */
  private static Optional<Node> composeText(String label, boolean atLine, String text) throws NodeFileException {
    // the whole text in one buffer: read in buffer-sized steps, a long value cost its length
    // squared (5.7 s for 2.9 MB, 0.5 s in one buffer)
    LoadSettings settings = LoadSettings.builder().setLabel(label).setAllowDuplicateKeys(false)
        .setBufferSize(Math.min(text.length(), MAX_CODE_POINTS) + 1)
        .setMaxAliasesForCollections(MAX_ALIASES).setCodePointLimit(MAX_CODE_POINTS)
        .setAllowRecursiveKeys(false).build();
    try {
      // composed from the checked events: the text is parsed once
      return new Composer(settings, new EventReplay(checkEvents(label, atLine, settings, text))).getSingleNode();
    } catch (MarkedYamlEngineException e) {
      Mark m = e.getProblemMark().orElse(e.getContextMark().orElse(null));
      String where = m == null || !atLine ? label : label + ":" + (m.getLine() + 1) + ":" + (m.getColumn() + 1);
      throw new NodeFileException(where + ": not valid YAML: " + oneLine(e.getProblem()));
    } catch (YamlEngineException e) {
      throw new NodeFileException(label + ": not valid YAML: " + oneLine(e.getMessage()));
    }
  }

  /**
   * Refuses nesting deeper than {@link #MAX_DEPTH} and values longer than {@link
   * #MAX_SCALAR_CHARS} from the parser's events, before any node is composed: SnakeYAML composes
   * nested collections by recursion, so ten thousand nested lists would overflow the stack.
   *
   * @return the events, which the node tree is then composed from
   */
  private static List<Event> checkEvents(String label, boolean atLine, LoadSettings settings, String text)
      throws NodeFileException {
    int depth = 0;
    List<Event> events = new ArrayList<>();
    for (Event e : new Parse(settings).parseString(text)) {
      events.add(e);
      Event.ID id = e.getEventId();
      if (id == Event.ID.SequenceStart || id == Event.ID.MappingStart) {
        if (++depth > MAX_DEPTH) {
          throw new NodeFileException(at(label, atLine, e) + ": nested more than " + MAX_DEPTH
              + " levels deep; no node file is");
        }
      } else if (id == Event.ID.SequenceEnd || id == Event.ID.MappingEnd) {
        depth--;
      } else if (e instanceof ScalarEvent v && v.getValue().length() > MAX_SCALAR_CHARS) {
        throw new NodeFileException(at(label, atLine, e) + ": a value of " + v.getValue().length()
            + " characters; no node file has one longer than " + MAX_SCALAR_CHARS);
      }
    }
    return events;
  }

  /** A parser that gives back events already parsed, for the composer. */
  private static final class EventReplay implements Parser {
    private final List<Event> events;
    private int next;

    EventReplay(List<Event> events) {
      this.events = events;
    }

    @Override
    public boolean checkEvent(Event.ID id) {
      return next < events.size() && events.get(next).getEventId() == id;
    }

    @Override
    public Event peekEvent() {
      if (next == events.size()) {
        throw new NoSuchElementException("no more events");
      }
      return events.get(next);
    }

    @Override
    public boolean hasNext() {
      return next < events.size();
    }

    @Override
    public Event next() {
      Event e = peekEvent();
      next++;
      return e;
    }
  }

  private static String at(String label, boolean atLine, Event e) {
    return e.getStartMark().filter(m -> atLine).map(m -> label + ":" + (m.getLine() + 1) + ":" + (m.getColumn() + 1))
        .orElse(label);
  }

  /** Refuses a tree nested deeper than {@link #MAX_DEPTH} (after overrides changed it). */
  static void checkDepth(String file, Node n, int depth) throws NodeFileException {
    if (depth > MAX_DEPTH) {
      throw error(file, n, "", "nested more than " + MAX_DEPTH + " levels deep; no node file is");
    }
    if (n instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        checkDepth(file, t.getValueNode(), depth + 1);
      }
    } else if (n instanceof SequenceNode s) {
      for (Node c : s.getValue()) {
        checkDepth(file, c, depth + 1);
      }
    }
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }

  /** An error about node {@code at} of {@code file}, at key path {@code where} (empty: none). */
  static NodeFileException error(String file, Node at, String where, String message) {
    return new NodeFileException(location(file, at) + ": " + (where.isEmpty() ? "" : where + ": ") + message);
  }

  /** Where a value is: {@code file:line:column}, or the label of a value given outside the file. */
  static String location(String file, Node at) {
    // a value from the file is located by line and column; one given outside it (--set) by its label
    return at.getStartMark().map(m -> !m.getName().equals(file) ? m.getName()
        : file + ":" + (m.getLine() + 1) + ":" + (m.getColumn() + 1)).orElse(file);
  }
}
