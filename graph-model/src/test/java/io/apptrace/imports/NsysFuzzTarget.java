package io.apptrace.imports;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;

/**
 * The Nsight Systems importer fuzzed: the test's exports of both schema generations
 * ({@link NsysFixture}) damaged by {@link SqliteMutator}.
 */
public final class NsysFuzzTarget extends SqliteFuzzTarget {
  public NsysFuzzTarget() throws IOException {
    super("nsys", "sqlite");
  }

  @Override
  List<Path> writeSeeds(Path dir) throws IOException, SQLException {
    Path recent = dir.resolve("recent.sqlite");
    Path older = dir.resolve("older.sqlite");
    NsysFixture.recent(recent);
    NsysFixture.older(older);
    return List.of(recent, older);
  }
}
