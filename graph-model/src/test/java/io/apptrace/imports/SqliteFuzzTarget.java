package io.apptrace.imports;

import io.apptrace.fuzz.FuzzTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A SQLite importer fuzzed: a profiler's test exports damaged by {@link SqliteMutator}, each
 * imported as a file with the profiler's extension. {@link NsysFuzzTarget} and {@link
 * NvprofFuzzTarget} say which exports.
 */
abstract class SqliteFuzzTarget implements FuzzTarget {
  private final String name;
  private final String extension;
  private List<byte[]> seeds;
  private final ImportFuzzing importer;
  private final SqliteMutator mutator;

  SqliteFuzzTarget(String name, String extension) throws IOException {
    this.name = name;
    this.extension = extension;
    importer = new ImportFuzzing("apptrace-fuzz-" + name + "-");
    mutator = new SqliteMutator(importer.dir());
  }

  /** Writes the seed exports into {@code dir}; returns their paths. */
  abstract List<Path> writeSeeds(Path dir) throws IOException, SQLException;

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<byte[]> seeds() throws IOException, SQLException {
    if (seeds == null) {
      List<byte[]> s = new ArrayList<>();
      for (Path p : writeSeeds(importer.dir())) {
        s.add(Files.readAllBytes(p));
      }
      seeds = List.copyOf(s);
    }
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) throws IOException {
    return mutator.mutate(seeds.get(r.nextInt(seeds.size())), seeds, r);
  }

  @Override
  public String run(byte[] input) throws Throwable {
    return importer.run(input, "input." + extension);
  }

  @Override
  public void close() throws IOException {
    importer.close();
  }
}
