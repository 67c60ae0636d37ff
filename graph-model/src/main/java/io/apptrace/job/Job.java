package io.apptrace.job;

import io.apptrace.trace.TraceException;
import io.apptrace.trace.TraceFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The traces of one job's ranks, by rank.
 *
 * @param ranks one trace per rank, in rank order
 * @param worldSize the job's ranks, as its traces say (or as many as were given)
 */
public record Job(List<RankTrace> ranks, int worldSize) {
  public Job {
    ranks = List.copyOf(ranks);
  }

  /** The trace of world rank {@code r}, or null when it was not given. */
  public RankTrace rank(int r) {
    for (RankTrace t : ranks) {
      if (t.rank() == r) {
        return t;
      }
    }
    return null;
  }

  /** The trace files among {@code inputs}: files as given, folders' {@code .apptrace} files sorted by name. */
  public static List<Path> files(List<Path> inputs) throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path p : inputs) {
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.list(p)) {
          s.filter(f -> f.getFileName().toString().endsWith(TraceFormat.EXTENSION) && Files.isRegularFile(f))
              .sorted().forEach(files::add);
        }
      } else {
        files.add(p);
      }
    }
    return files;
  }

  /** Reads a job from its ranks' traces; two traces of one rank, or disagreeing sizes, are refused. */
  public static Job read(List<Path> files) throws IOException, TraceException, JobException {
    if (files.isEmpty()) {
      throw new JobException("no traces: give the ranks' .apptrace files or a folder holding them");
    }
    Map<Integer, RankTrace> byRank = new HashMap<>();
    int size = 0;
    for (Path f : files) {
      RankTrace t = RankTrace.read(f);
      RankTrace other = byRank.putIfAbsent(t.rank(), t);
      if (other != null) {
        throw new JobException("rank " + t.rank() + " is in two traces: " + other.file() + " and " + f);
      }
      if (t.worldSize() > 0 && size > 0 && t.worldSize() != size) {
        throw new JobException(f + ": a rank of a job of " + t.worldSize() + " ranks, where the traces before it"
            + " were of " + size + ": not one job");
      }
      size = Math.max(size, t.worldSize());
    }
    List<RankTrace> ranks = new ArrayList<>(byRank.values());
    ranks.sort(Comparator.comparingInt(RankTrace::rank));
    int world = Math.max(size, ranks.get(ranks.size() - 1).rank() + 1);
    return new Job(ranks, world);
  }
}
