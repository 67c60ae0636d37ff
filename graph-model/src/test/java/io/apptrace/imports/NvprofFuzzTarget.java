package io.apptrace.imports;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * The nvprof importer fuzzed: the test's profile and its empty profile ({@link NvprofFixture})
 * damaged by {@link SqliteMutator}.
 */
public final class NvprofFuzzTarget extends SqliteFuzzTarget {
  public NvprofFuzzTarget() throws IOException {
    super("nvprof", "nvvp");
  }

  @Override
  List<Path> writeSeeds(Path dir) throws IOException, SQLException {
    Path full = dir.resolve("full.nvvp");
    Path empty = dir.resolve("empty.nvvp");
    NvprofFixture.write(full);
    NvprofFixture.writeEmpty(empty);
    return List.of(full, empty);
  }
}
