package io.apptrace.replay;

import io.apptrace.graph.Allocation;
import io.apptrace.graph.Dvdg;
import io.apptrace.graph.OperationTable;
import io.apptrace.graph.ValueTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each operation of a program reads and writes, as the trace's DVDG says: the regions of
 * memory (allocation, version, range) behind every value. The replay does not need them; the
 * application what-ifs ({@link WhatIf}) do, to know which operations depend on which.
 */
public final class ProgramValues {
  /**
   * A region of an allocation at one version (a value of the DVDG).
   *
   * @param version the allocation's version read or written (a write makes a new one)
   */
  public record Region(int allocation, int version, long offset, long bytes) {
    boolean overlaps(Region o) {
      return allocation == o.allocation && offset < o.offset + o.bytes && o.offset < offset + bytes;
    }

    /** The same place, any version. */
    boolean samePlace(Region o) {
      return allocation == o.allocation && offset == o.offset && bytes == o.bytes;
    }
  }

  /** An allocation: its size, and whether it is host memory (-1 device) and page-locked. */
  public record Buffer(int id, long bytes, boolean host, String label) {}

  private final List<List<Region>> reads = new ArrayList<>();
  private final List<List<Region>> writes = new ArrayList<>();
  private final Map<Integer, Buffer> buffers = new HashMap<>();

  /** No operation reads or writes anything yet: for programs drawn by hand ({@link #read}, {@link #write}). */
  public ProgramValues(int ops) {
    for (int i = 0; i < ops; i++) {
      reads.add(new ArrayList<>());
      writes.add(new ArrayList<>());
    }
  }

  /** The regions of the trace's DVDG, by operation (as {@link ProgramBuilder} numbers them). */
  public static ProgramValues of(Dvdg g) {
    OperationTable ops = g.operations();
    ValueTable values = g.values();
    ProgramValues out = new ProgramValues(ops.size());
    for (int op = 0; op < ops.size(); op++) {
      for (int k = 0; k < ops.inputCount(op); k++) {
        out.reads.get(op).add(region(values, ops.input(op, k)));
      }
      for (int k = 0; k < ops.outputCount(op); k++) {
        out.writes.get(op).add(region(values, ops.output(op, k)));
      }
    }
    for (Allocation a : g.allocations()) {
      out.buffers.put(a.id(), new Buffer(a.id(), a.bytes(), a.device() < 0, a.label() == null ? "" : a.label()));
    }
    return out;
  }

  private static Region region(ValueTable v, int value) {
    return new Region(v.allocation(value), v.version(value), v.offset(value), v.bytes(value));
  }

  /** Operation {@code op} reads {@code r}. */
  public ProgramValues read(int op, Region r) {
    reads.get(op).add(r);
    return this;
  }

  /** Operation {@code op} writes {@code r}. */
  public ProgramValues write(int op, Region r) {
    writes.get(op).add(r);
    return this;
  }

  /** Declares allocation {@code b}. */
  public ProgramValues buffer(Buffer b) {
    buffers.put(b.id(), b);
    return this;
  }

  public List<Region> reads(int op) {
    return op < reads.size() ? reads.get(op) : List.of();
  }

  public List<Region> writes(int op) {
    return op < writes.size() ? writes.get(op) : List.of();
  }

  /** The allocation {@code id}, if declared. */
  public java.util.Optional<Buffer> buffer(int id) {
    return java.util.Optional.ofNullable(buffers.get(id));
  }

  /** Whether {@code later} reads or overwrites what {@code earlier} writes, or overwrites what it reads. */
  boolean dependsOn(int later, int earlier) {
    for (Region w : writes(earlier)) {
      for (Region r : reads(later)) {
        if (w.overlaps(r)) {
          return true;
        }
      }
      for (Region r : writes(later)) {
        if (w.overlaps(r)) {
          return true;
        }
      }
    }
    for (Region r : reads(earlier)) {
      for (Region w : writes(later)) {
        if (r.overlaps(w)) {
          return true;
        }
      }
    }
    return false;
  }
}
