package io.apptrace.cli;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The packages show how data flows: trace -> capture | imports -> graph -> node/cost/validate ->
 * replay -> report -> cli, with topo and calibrate beside node as the producers of node files. A package
 * uses only the layers its row names (all of them earlier in the flow), and no packages depend
 * on each other in a cycle, whatever the chain. Every apptrace package has a row: a new one must
 * be placed in the flow before it builds. The main classes of every module are checked; tests may
 * reach across.
 */
@AnalyzeClasses(packages = "io.apptrace", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  /** A layer of the flow: its packages under io.apptrace, and the layers it may use. */
  private record Layer(String name, List<String> packages, List<String> mayUse) {}

  private static final List<Layer> FLOW = List.of(
      //    layer        its packages                     the layers it may use
      layer("trace",     "trace proto symbols util",      ""),
      layer("capture",   "capture",                       "trace"),
      layer("imports",   "imports",                       "trace"),
      layer("graph",     "graph stats job jobgraph",      "trace"),
      layer("node",      "node",                          "trace"),
      layer("cost",      "cost kernel",                   "trace graph node"),
      layer("producers", "topo calibrate",                "trace node cost"),
      layer("validate",  "validate",                      "trace graph node cost"),
      layer("replay",    "replay",                        "trace graph node cost validate"),
      layer("report",    "report",                        "trace graph node cost replay"),
      layer("cli",       "cli",                           "trace capture imports graph node cost producers validate replay report"));

  @ArchTest
  static final ArchRule packagesDependOnlyOnEarlierLayersOfTheFlow = flow();

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.apptrace.(*)..").should().beFreeOfCycles();

  private static Layer layer(String name, String packages, String mayUse) {
    return new Layer(name, words(packages), words(mayUse));
  }

  private static List<String> words(String s) {
    return s.isBlank() ? List.of() : Arrays.asList(s.trim().split("\\s+"));
  }

  private static LayeredArchitecture flow() {
    LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitecture();
    for (Layer l : FLOW) {
      rule = rule.layer(l.name()).definedBy(l.packages().stream().map(p -> "io.apptrace." + p + "..")
          .toArray(String[]::new));
    }
    List<String> earlier = new ArrayList<>();
    for (Layer l : FLOW) {
      if (!earlier.containsAll(l.mayUse())) {
        throw new IllegalStateException("layer " + l.name() + " may use only layers before it in the flow, not "
            + l.mayUse().stream().filter(u -> !earlier.contains(u)).toList());
      }
      earlier.add(l.name());
      rule = l.mayUse().isEmpty() ? rule.whereLayer(l.name()).mayNotAccessAnyLayer()
          : rule.whereLayer(l.name()).mayOnlyAccessLayers(l.mayUse().toArray(String[]::new));
    }
    return rule;
  }
}
