package io.apptrace.replay;

import io.apptrace.node.TransferKind;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The what-if {@code prefetch-managed} (docs/REPLAY.md, "Application what-ifs"): before each
 * kernel that reaches managed memory not on its GPU (as {@link ManagedResidency} follows it: all of
 * it on the host at first, where each access and prefetch moves it, back on the host after a
 * synchronization for what the GPU wrote), a {@code cudaMemPrefetchAsync} of the bytes the kernel
 * reaches, on the kernel's stream: a copy on a copy engine instead of page faults in the kernel's
 * time (Pearson 2018, Table 5.5). Data on another GPU is left to fault (a prefetch there would be
 * a GPU-to-GPU move this what-if does not draw).
 */
final class PrefetchManaged {
  private static final int HOST = -1;

  private PrefetchManaged() {}

  static String apply(ProgramEdit e) {
    int[][] issuers = e.issuers();
    Map<Integer, Integer> at = new HashMap<>();
    Set<Integer> written = new HashSet<>();
    int added = 0;
    long bytes = 0;
    for (int i = 0; i < e.managed().size(); i++) {
      ReplayProgram.Managed m = e.managed().get(i);
      if (m instanceof ReplayProgram.Managed.HostSync) {
        for (int a : written) {
          at.put(a, HOST);
        }
        written.clear();
        continue;
      }
      ReplayProgram.Managed.Access a = (ReplayProgram.Managed.Access) m;
      int where = at.getOrDefault(a.allocation(), HOST);
      int to = a.device() < 0 ? HOST : a.device();
      at.put(a.allocation(), to);
      if (where != to) {
        written.remove(a.allocation());
      }
      if (a.writes() && to != HOST) {
        written.add(a.allocation());
      }
      if (a.prefetch() || a.op() < 0 || where != HOST || to == HOST
          || e.op(a.op()).kind() != ReplayProgram.Kind.KERNEL || issuers[a.op()] == null) {
        continue;
      }
      ReplayProgram.Op k = e.op(a.op());
      int id = e.ops().size();
      e.add(new ReplayProgram.Op(id, ReplayProgram.Kind.COPY, "cudaMemPrefetchAsync", k.stream(), k.device(), -1,
          TransferKind.PREFETCH_H2D, a.bytes(), -1, -1, -1, a.bytes(), 0, 0, 0, false));
      int[] c = issuers[a.op()];
      ReplayProgram.Call launch = e.calls(c[0]).get(c[1]);
      e.insert(c[0], c[1], new ReplayProgram.Call(new HostCall.IssueOp(id, k.stream()), launch.entryNs(), 0,
          "cudaMemPrefetchAsync"));
      issuers = e.issuers();
      e.managed().add(i, new ReplayProgram.Managed.Access(id, a.allocation(), a.bytes(), a.allocationBytes(),
          a.device(), true, false));
      i++; // past the kernel's own access, now after the prefetch
      added++;
      bytes += a.bytes();
    }
    return String.format(Locale.ROOT, "%d prefetch(es) of managed memory (%s) issued before the kernels that would"
        + " fault it in", added, io.apptrace.node.Units.size(bytes));
  }
}
