package io.apptrace.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.apptrace.proto.MemoryKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Lookups through a thread's own recent allocations give what the process-wide lookups give,
 * however allocations come and go: a cache never answers with an allocation that was freed or
 * replaced.
 */
class AddressSpacesTest {
  private static int ids;

  private static Allocation alloc(MemoryKind kind, int device, long start, long bytes) {
    return new Allocation(ids++, 1, kind, device, start, bytes, false, "");
  }

  @Test
  void aThreadsOwnLookupsAgreeWithTheProcesssAsAllocationsComeAndGo() {
    Random r = new Random(11);
    AddressSpaces cached = new AddressSpaces();
    AddressSpaces plain = new AddressSpaces();
    AddressSpaces.Mine[] threads = {new AddressSpaces.Mine(), new AddressSpaces.Mine(), new AddressSpaces.Mine()};
    List<long[]> live = new ArrayList<>(); // start, kind ordinal
    List<Long> freed = new ArrayList<>();
    for (int step = 0; step < 20000; step++) {
      int what = r.nextInt(10);
      if (what == 0 || live.isEmpty()) { // allocate: host, pinned or device, 1 MiB slots, some reused
        MemoryKind kind = switch (r.nextInt(3)) {
          case 0 -> MemoryKind.PAGEABLE;
          case 1 -> MemoryKind.PINNED;
          default -> MemoryKind.DEVICE;
        };
        long start = (kind == MemoryKind.DEVICE ? 0x7000_0000_0000L : 0x1000_0000L) + ((long) r.nextInt(24) << 20);
        if (live.stream().noneMatch(l -> l[0] == start)) {
          long bytes = 1 + r.nextInt(1 << 20);
          int device = kind == MemoryKind.DEVICE ? 0 : -1;
          cached.add(alloc(kind, device, start, bytes));
          plain.add(alloc(kind, device, start, bytes));
          live.add(new long[] {start, kind.ordinal()});
        }
      } else if (what == 1) { // free one
        long[] l = live.remove(r.nextInt(live.size()));
        MemoryKind kind = MemoryKind.values()[(int) l[1]];
        assertThat(cached.remove(kind, l[0])).isPresent();
        plain.remove(kind, l[0]);
        freed.add(l[0]);
      } else { // look up an address in or near a live allocation, from one of the threads
        // in or near a live allocation, or in one freed since (which no lookup may find)
        long start = freed.isEmpty() || r.nextInt(3) > 0 ? live.get(r.nextInt(live.size()))[0]
            : freed.get(r.nextInt(freed.size()));
        long address = start + r.nextInt(1 << 20) - 16;
        AddressSpaces.Mine mine = threads[r.nextInt(threads.length)];
        boolean anySpace = r.nextBoolean();
        Allocation viaThread = anySpace ? cached.any(address, 0, mine) : cached.device(address, 0, mine);
        Allocation expected = anySpace ? plain.any(address, 0) : plain.device(address, 0);
        assertThat(viaThread == null ? null : viaThread.start()).as("step %d, 0x%x", step, address)
            .isEqualTo(expected == null ? null : expected.start());
      }
    }
  }
}
