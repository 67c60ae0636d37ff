package io.apptrace.imports;

import io.apptrace.fuzz.FuzzTarget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;

/**
 * The nvprof importer fuzzed: the test's profile and its empty profile
 * ({@link NvprofFixture}) damaged by {@link SqliteMutator}.
 */
public final class NvprofFuzzTarget implements FuzzTarget {
  private List<byte[]> seeds;
  private final ImportFuzzing importer;
  private final SqliteMutator mutator;

  public NvprofFuzzTarget() throws IOException {
    importer = new ImportFuzzing("apptrace-fuzz-nvprof-");
    mutator = new SqliteMutator(importer.dir());
  }

  @Override
  public String name() {
    return "nvprof";
  }

  @Override
  public List<byte[]> seeds() throws IOException, SQLException {
    if (seeds != null) {
      return seeds;
    }
    Path full = importer.dir().resolve("full.nvvp");
    Path empty = importer.dir().resolve("empty.nvvp");
    NvprofFixture.write(full);
    NvprofFixture.writeEmpty(empty);
    seeds = List.of(Files.readAllBytes(full), Files.readAllBytes(empty));
    return seeds;
  }

  @Override
  public byte[] mutate(List<byte[]> seeds, Random r) throws IOException {
    return mutator.mutate(seeds.get(r.nextInt(seeds.size())), seeds, r);
  }

  @Override
  public String run(byte[] input) throws Throwable {
    return importer.run(input, "input.nvvp");
  }

  @Override
  public void close() throws IOException {
    importer.close();
  }
}
