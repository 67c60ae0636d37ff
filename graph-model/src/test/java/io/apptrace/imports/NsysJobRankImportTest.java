package io.apptrace.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.apptrace.proto.JobRank;
import io.apptrace.trace.TraceReader;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An Nsight Systems export of one rank of an MPI job imports as that rank (docs/JOBS.md): Nsight
 * Systems keeps the target's environment as a NUL-separated block in StringIds, whose launcher
 * variables name the rank and the job's size.
 */
class NsysJobRankImportTest {
  @TempDir Path tmp;

  private JobRank imported(Path db) throws Exception {
    Path out = tmp.resolve(db.getFileName() + ".apptrace");
    Importer.run(db, out, Importer.Options.defaults().withTmpDir(tmp));
    try (TraceReader r = TraceReader.open(out)) {
      assertThat(r.header().hasJob()).as("the header names the job's rank").isTrue();
      return r.header().getJob();
    }
  }

  /** A drawn export whose process ran under Open MPI's mpirun as rank 3 of 4. */
  @Test
  void theRecordedEnvironmentNamesTheRank() throws Exception {
    Path db = tmp.resolve("rank3.sqlite");
    NsysFixture.recent(db);
    String env = String.join("\0", "HOME=/home/u", "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4",
        "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "PATH=/usr/bin");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        PreparedStatement p = c.prepareStatement("INSERT INTO StringIds VALUES (?, ?)")) {
      p.setLong(1, 999_999);
      p.setBytes(2, env.getBytes(StandardCharsets.UTF_8));
      p.execute();
    }
    JobRank j = imported(db);
    assertThat(j.getRank()).isEqualTo(3);
    assertThat(j.getWorldSize()).isEqualTo(4);
    assertThat(j.getLocalRank()).isEqualTo(1);
    assertThat(j.getLauncher()).isEqualTo("open-mpi");
  }

  /** realdata's saxpy-mpi-cuda: rank 0 of the 2 ranks Cray MPICH ran under srun on Perlmutter. */
  @Test
  void theSaxpyMpiExportIsRankZeroOfTwo() throws Exception {
    Path in = RealTraceImportTest.realdata().resolve("pipit-nsys-perlmutter/saxpy-mpi-cuda_nsys_perlmutter0.sqlite.gz");
    assumeThat(Files.isDirectory(RealTraceImportTest.realdata())).as("the realdata folder (-Dapptrace.realdata.dir)"
        + " is absent here").isTrue();
    assertThat(in).as("a present realdata folder holds this trace").isRegularFile();
    Path db = tmp.resolve("saxpy.sqlite");
    try (InputStream s = new GZIPInputStream(Files.newInputStream(in))) {
      Files.copy(s, db);
    }
    JobRank j = imported(db);
    assertThat(j.getRank()).isZero();
    assertThat(j.getWorldSize()).isEqualTo(2);
    assertThat(j.getHost()).isEqualTo("nid001608");
    // Cray MPICH's PMI variables give the rank and size; srun's step its place on the node (one
    // rank on each of the job's two nodes)
    assertThat(List.of(j.getLocalRank(), j.getLocalSize())).containsExactly(0, 1);
    assertThat(j.getLauncher()).isEqualTo("pmi+slurm");
  }
}
