package io.apptrace.imports;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The joined rows ({@link JoinedRow}), sorted on disk into each host thread's events in time
 * order, and what each process's rows use: its streams, the devices its GPU work ran on, and its
 * earliest time, which {@link TraceEmitter} needs before it writes the process's first event.
 */
final class JoinedRows implements Closeable {
  private final RecordSorter rows;
  /** Per pid: the streams its rows use (profiler ids, with their process key). */
  private final Map<Long, Map<Long, Long>> streamsOfPid = new HashMap<>();
  private final Map<Long, Long> firstOfPid = new HashMap<>();
  /** Per pid: the devices its GPU work ran on. */
  private final Map<Long, Set<Long>> devicesOfPid = new HashMap<>();

  JoinedRows(Path tmpDir) {
    rows = new RecordSorter(JoinedRow.WIDTH, JoinedRow.KEYS, tmpDir, RecordSorter.DEFAULT_CHUNK);
  }

  /** Adds a row, noting what its process uses. */
  void add(JoinedRow row) {
    long pid = row.pid();
    firstOfPid.merge(pid, row.startNs(), Math::min);
    Map<Long, Long> used = streamsOfPid.computeIfAbsent(pid, k -> new HashMap<>());
    if (row.hasGpu()) {
      used.putIfAbsent(row.gpu().stream(), row.proc());
      devicesOfPid.computeIfAbsent(pid, k -> new HashSet<>()).add(row.gpu().device());
    }
    if (row.hasSync()) {
      for (long st : new long[] {row.sync().stream(), row.sync().waitStream()}) {
        if (st >= 0) {
          used.putIfAbsent(st, row.proc());
        }
      }
    }
    if (row.record().stream() >= 0) {
      used.putIfAbsent(row.record().stream(), row.proc());
    }
    rows.add(row.cells);
  }

  /** The rows in order; no more may be added. */
  RecordSorter.Cursor sorted() {
    return rows.sorted();
  }

  /** The streams process {@code pid} uses: profiler stream id to process key. */
  Map<Long, Long> streamsOf(long pid) {
    return streamsOfPid.getOrDefault(pid, Map.of());
  }

  /** Whether process {@code pid} has rows. */
  boolean hasProcess(long pid) {
    return firstOfPid.containsKey(pid);
  }

  /** The earliest time of process {@code pid}'s rows, else {@code otherwise}. */
  long firstOf(long pid, long otherwise) {
    return firstOfPid.getOrDefault(pid, otherwise);
  }

  /** The devices process {@code pid}'s GPU work ran on; null when none. */
  Set<Long> devicesOf(long pid) {
    return devicesOfPid.get(pid);
  }

  @Override
  public void close() {
    rows.close();
  }
}
