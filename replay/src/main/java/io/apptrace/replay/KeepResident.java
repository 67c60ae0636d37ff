package io.apptrace.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The what-if {@code keep-resident} (docs/REPLAY.md, "Application what-ifs"): a copy whose
 * destination already holds the very version of the region it would copy (an earlier copy put it
 * there and nothing has written either side since, as the DVDG records them) is not made. The
 * DVDG does not see the host's own writes to host memory: a program that refills a host buffer
 * between two copies of it looks the same as one that does not, and the report says so.
 */
final class KeepResident {
  private KeepResident() {}

  static String apply(ProgramEdit e, ProgramValues values) {
    // destination place -> the source region (with its version) last copied there
    List<ProgramValues.Region[]> resident = new ArrayList<>();
    int dropped = 0;
    long bytes = 0;
    for (ReplayProgram.Op o : e.ops()) {
      if (e.isDropped(o.id())) {
        continue;
      }
      List<ProgramValues.Region> in = values.reads(o.id());
      List<ProgramValues.Region> out = values.writes(o.id());
      boolean copy = o.kind() == ReplayProgram.Kind.COPY && in.size() == 1 && out.size() == 1;
      if (copy && holds(resident, out.get(0), in.get(0))) {
        e.drop(o.id());
        dropped++;
        bytes += o.bytes();
        continue;
      }
      for (ProgramValues.Region w : out) {
        resident.removeIf(r -> r[0].overlaps(w) || r[1].overlaps(w));
      }
      if (copy) {
        resident.add(new ProgramValues.Region[] {out.get(0), in.get(0)});
      }
    }
    return String.format(Locale.ROOT, "%d cop%s not made (%s): their destinations held what they would copy, as far"
        + " as the trace shows (it does not record the host's own writes to host memory)", dropped,
        dropped == 1 ? "y" : "ies", io.apptrace.node.Units.size(bytes));
  }

  private static boolean holds(List<ProgramValues.Region[]> resident, ProgramValues.Region dst,
      ProgramValues.Region src) {
    for (ProgramValues.Region[] r : resident) {
      if (r[0].samePlace(dst) && r[1].equals(src)) {
        return true;
      }
    }
    return false;
  }
}
