package io.apptrace.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The GPU models apptrace knows the datasheet figures of: the bundled catalogue ({@code
 * replay/src/main/resources/io/apptrace/gpus/catalogue.yaml}, docs/NODE-FORMAT.md), or a file of
 * the same format. Names match case-insensitively against each entry's name and aliases.
 */
public final class GpuCatalogue {
  /** Where the bundled catalogue is, on the class path. */
  static final String BUNDLED = "/io/apptrace/gpus/catalogue.yaml";

  private static volatile GpuCatalogue bundled;

  private final String file;
  private final List<GpuSpec> gpus;
  /** Every name and alias in lower case, to its entry. */
  private final Map<String, GpuSpec> byName = new HashMap<>();

  GpuCatalogue(String file, List<GpuSpec> gpus) throws NodeFileException {
    this.file = file;
    this.gpus = List.copyOf(gpus);
    for (GpuSpec g : gpus) {
      for (String n : names(g)) {
        GpuSpec other = byName.putIfAbsent(key(n), g);
        if (other != null) {
          throw new NodeFileException(file + ": the name '" + n + "' is used by two entries, " + other.name()
              + " and " + g.name() + "; each name and alias names one GPU model");
        }
      }
    }
  }

  /** The catalogue that ships with apptrace (read once). */
  public static GpuCatalogue bundled() {
    GpuCatalogue c = bundled;
    if (c == null) {
      try (InputStream in = GpuCatalogue.class.getResourceAsStream(BUNDLED)) {
        if (in == null) {
          throw new IllegalStateException("the bundled GPU catalogue is missing from the class path");
        }
        bundled = c = parse("catalogue.yaml", new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException | NodeFileException e) {
        throw new IllegalStateException("the bundled GPU catalogue does not load: " + e.getMessage(), e);
      }
    }
    return c;
  }

  /** A catalogue file. */
  public static GpuCatalogue load(Path path) throws NodeFileException {
    Objects.requireNonNull(path, "path");
    try {
      return parse(path.toString(), Files.readString(path, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      throw new NodeFileException(path + ": no such file");
    } catch (IOException e) {
      throw new NodeFileException(path + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /**
   * A catalogue from its text; {@code file} names it in errors.
   *
   * @throws NodeFileException naming the file, line, column and key of what is wrong
   */
  public static GpuCatalogue parse(String file, String text) throws NodeFileException {
    return new GpuCatalogue(file, GpuCatalogueReader.read(YamlMap.parse(file, text)));
  }

  /** Where it was read from. */
  public String file() {
    return file;
  }

  /** Every entry, in the file's order. */
  public List<GpuSpec> gpus() {
    return gpus;
  }

  /** The entry {@code typed} names (its name or an alias, ignoring case). */
  public Optional<GpuSpec> find(String typed) {
    return Optional.ofNullable(byName.get(key(typed)));
  }

  /**
   * The entry {@code typed} names.
   *
   * @throws NodeFileException when none does, naming the nearest names and how to list them all
   */
  public GpuSpec resolve(String typed) throws NodeFileException {
    Optional<GpuSpec> g = find(typed);
    if (g.isPresent()) {
      return g.get();
    }
    List<String> near = nearest(typed);
    throw new NodeFileException("no GPU named '" + typed + "' in the GPU catalogue" + (near.isEmpty() ? ""
        : " (nearest: " + String.join(", ", near) + ")") + "; 'apptrace gpus' lists the names it knows");
  }

  /**
   * The entries' names closest to {@code typed}, nearest first, at most three: by edit distance
   * between the typed name and each name or alias, ignoring case and punctuation; a name that
   * contains what was typed counts as near.
   */
  public List<String> nearest(String typed) {
    String t = squash(typed);
    List<Map.Entry<String, Integer>> scored = new ArrayList<>();
    for (GpuSpec g : gpus) {
      int d = Integer.MAX_VALUE;
      for (String n : names(g)) {
        String s = squash(n);
        d = Math.min(d, !t.isEmpty() && s.contains(t) ? s.length() - t.length() : EditDistance.of(t, s));
      }
      if (d <= Math.max(2, t.length() / 2)) {
        scored.add(Map.entry(g.name(), d));
      }
    }
    scored.sort(Map.Entry.comparingByValue());
    return scored.stream().limit(3).map(Map.Entry::getKey).toList();
  }

  private static List<String> names(GpuSpec g) {
    List<String> all = new ArrayList<>();
    all.add(g.name());
    all.addAll(g.aliases());
    return all;
  }

  private static String key(String name) {
    return name.strip().toLowerCase(Locale.ROOT);
  }

  private static String squash(String s) {
    return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
  }
}
