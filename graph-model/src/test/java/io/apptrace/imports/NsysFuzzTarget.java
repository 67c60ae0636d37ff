package io.apptrace.imports;

import io.apptrace.fuzz.FuzzTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;

/**
 * The Nsight Systems importer fuzzed: the test's exports of both schema generations
 * ({@link NsysFixture}) damaged by {@link SqliteMutator}.
 */
public final class NsysFuzzTarget implements FuzzTarget {
  private List<byte[]> seeds;
  private final ImportFuzzing importer;
  private final SqliteMutator mutator;

  public NsysFuzzTarget() throws IOException {
    importer = new ImportFuzzing("apptrace-fuzz-nsys-");
    mutator = new SqliteMutator(importer.dir());
  }

  @Override
  public String name() {
    return "nsys";
  }

  @Override
  public List<byte[]> seeds() throws IOException, SQLException {
    if (seeds != null) {
      return seeds;
    }
    Path recent = importer.dir().resolve("recent.sqlite");
    Path older = importer.dir().resolve("older.sqlite");
    NsysFixture.recent(recent);
    NsysFixture.older(older);
    seeds = List.of(Files.readAllBytes(recent), Files.readAllBytes(older));
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) throws IOException {
    return mutator.mutate(seeds.get(r.nextInt(seeds.size())), seeds, r);
  }

  @Override
  public String run(byte[] input) throws Throwable {
    return importer.run(input, "input.sqlite");
  }

  @Override
  public void close() throws IOException {
    importer.close();
  }
}
