package io.apptrace.replay;

import io.apptrace.node.Precision;
import io.apptrace.cost.KernelModel;
import io.apptrace.cost.LinkCost;
import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferLeg;
import io.apptrace.cost.TransferModel;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Prices every operation of a program on a node, once, before the replay runs: the one place a
 * model's seconds become the replay's nanoseconds (docs/COST-MODEL.md). A kernel or memset gets its
 * time; a copy its fixed overhead L+o, its bytes, its rate alone on the node and the links of its
 * route with the bytes each carries per data byte; with {@code --keep-measured}, an operation with
 * a measured GPU time keeps it.
 */
final class PricedOps {
  private final Node node;
  private final Replayer.Options o;
  private final TransferModel model;
  private final Topology topology;
  private final Links links;
  private final OpTable t;
  private final List<String> notes = new ArrayList<>();
  private final KernelRetiming retiming;
  private int lowerBoundKernels;
  /** A copy's pricing, the same for every copy of the same kind, size and ends. */
  private final Map<CopyKey, Priced> priced = new HashMap<>();
  private final double[] gapNs = new double[TransferKind.values().length];
  private final double[] afterCallNs;
  /** What-ifs that changed the links a measured curve was taken over: said once per kind and GPU. */
  private final java.util.Set<String> rescaled = new java.util.TreeSet<>();

  /** @param staging a pageable copy's CPU part around its DMAs, where the node gives one */
  private record Priced(TransferEstimate estimate, int[] resources, double[] factors,
      Optional<io.apptrace.cost.PageableStaging> staging) {}

  private record CopyKey(TransferKind kind, long bytes, int numa, int gpu, int peer) {}

  /**
   * Prices {@code t}'s operations.
   *
   * @throws ReplayException when the program uses a device the node lacks
   * @throws NodeFileException when the node's own parameters are inconsistent
   */
  PricedOps(ReplayProgram program, Node node, Replayer.Options o, Links links, OpTable t)
      throws ReplayException, NodeFileException {
    this.node = node;
    this.o = o;
    this.model = new TransferModel(node);
    this.topology = model.topology();
    this.links = links;
    this.t = t;
    this.retiming = new KernelRetiming(program, node, o);
    for (int i = 0; i < t.size; i++) {
      price(i);
    }
    ManagedResidency managed = ManagedResidency.apply(program, model, t, o);
    afterCallNs = managed.afterCallNs();
    notes.addAll(managed.notes());
    notes.addAll(rescaled);
    notes.addAll(retiming.notes());
    if (lowerBoundKernels > 0) {
      notes.add(lowerBoundKernels + " kernel launch(es) had no measured GPU time: priced at the lower bound bytes /"
          + " memory bandwidth + launch overhead (docs/COST-MODEL.md), not a measurement");
    }
  }

  /** Per call (the threads' calls one after the other): host time the node adds after it ({@link ManagedResidency}). */
  double[] afterCallNs() {
    return afterCallNs;
  }

  /** What pricing found worth saying (kernels priced at their lower bound). */
  List<String> notes() {
    return notes;
  }

  private void price(int i) throws ReplayException, NodeFileException {
    ReplayProgram.Op op = t.ops[i];
    if (op.kind() == ReplayProgram.Kind.COPY && op.transfer() == null) {
      t.gpuOf[i] = -1; // host-to-host: the calling thread copies
      return;
    }
    int gpu = mapDevice(Math.max(op.device(), 0), op);
    t.gpuOf[i] = gpu;
    t.peerGpuOf[i] = op.peerDevice() >= 0 ? mapDevice(op.peerDevice(), op) : gpu;
    Node.Gpu g = node.gpus().get(gpu);
    switch (op.kind()) {
      case KERNEL -> t.phase[i] = kernelNs(op, g);
      case MEMSET -> {
        if (o.keepMeasured() && op.measured()) {
          t.phase[i] = op.measuredDurationNs();
        } else {
          t.phase[i] = model.memsetSeconds(op.bytes(), g) * 1e9;
          t.modelled[i] = true;
        }
      }
      case COPY -> priceCopy(i, op, gpu);
      case COLLECTIVE -> t.phase[i] = 0; // its end is decided outside the node (OpTable.heldUntilNs)
    }
  }

  private int mapDevice(int traceDevice, ReplayProgram.Op op) throws ReplayException {
    int d = o.deviceMap().getOrDefault(traceDevice, traceDevice);
    if (d < 0 || d >= node.gpus().size()) {
      int n = node.gpus().size();
      String has = n == 1 ? "it has only gpu0" : "it has gpu0 to gpu" + (n - 1);
      throw new ReplayException((d == traceDevice ? "the trace uses device " + traceDevice
          : "the trace's device " + traceDevice + " is mapped to gpu" + d) + " (" + op.name() + ", operation "
          + op.id() + "), which " + node.name() + " lacks (" + has + "); map it with --map gpu" + traceDevice
          + "=gpuN");
    }
    return d;
  }

  private double kernelNs(ReplayProgram.Op op, Node.Gpu g) throws NodeFileException {
    int i = op.id();
    if (o.keepMeasured() && op.measured()) {
      return op.measuredDurationNs();
    }
    t.modelled[i] = true;
    double ns;
    if (op.measured() && retiming.active()) {
      ns = retiming.ns(op, g).orElse(op.measuredDurationNs());
    } else {
      OptionalDouble measured = op.measured() ? OptionalDouble.of(op.measuredDurationNs() * 1e-9)
          : OptionalDouble.empty();
      Optional<Node.Gpu> from = o.sourceNode().flatMap(s -> s.gpu(Math.max(0, Math.min(op.device(),
          s.gpus().size() - 1))));
      KernelModel.KernelEstimate k = KernelModel.estimate(o.kernelPolicy(), measured, from, g, OptionalDouble.empty(),
          op.touchedBytes(), Precision.FP32);
      ns = k.seconds() * 1e9;
      if (k.lowerBound()) {
        t.lowerBound[i] = true;
        lowerBoundKernels++;
      }
    }
    if (op.mappedReadBytes() > 0 || op.mappedWriteBytes() > 0) {
      // zero-copy (van Werkhoven et al. 2014, eq. 6): the kernel streams its host data over the link while it computes
      int gpu = g.index();
      TransferEstimate in = model.estimate(TransferKind.PINNED_H2D, (long) Math.max(1, op.mappedReadBytes()),
          TransferModel.Endpoints.gpu(gpu), o.setting());
      TransferEstimate out = model.estimate(TransferKind.PINNED_D2H, (long) Math.max(1, op.mappedWriteBytes()),
          TransferModel.Endpoints.gpu(gpu), o.setting());
      double inNs = op.mappedReadBytes() > 0 ? (in.seconds() - in.latency().seconds()) * 1e9 : 0;
      double outNs = op.mappedWriteBytes() > 0 ? (out.seconds() - out.latency().seconds()) * 1e9 : 0;
      ns = in.latency().seconds() * 1e9 + Math.max(ns, Math.max(inNs, outNs)) + out.latency().seconds() * 1e9;
    }
    return ns * o.scaleKernels();
  }

  private void priceCopy(int i, ReplayProgram.Op op, int gpu) throws NodeFileException {
    TransferKind kind = op.transfer();
    int numa = op.numa() >= 0 && node.cpuOfNuma(op.numa()).isPresent() ? op.numa() : -1;
    if (numa < 0 && (kind.way() == TransferKind.Way.H2D || kind.way() == TransferKind.Way.D2H)) {
      numa = topology.localNuma(node.gpus().get(gpu).id());
    }
    CopyKey key = new CopyKey(kind, op.bytes(), numa, gpu, t.peerGpuOf[i]);
    Priced pr = priced.get(key);
    if (pr == null) {
      pr = price(kind, op.bytes(), numa, gpu, t.peerGpuOf[i]);
      priced.put(key, pr);
    }
    TransferEstimate e = pr.estimate();
    t.peakBwNs[i] = e.peakBwSeconds() * 1e9;
    t.boeNs[i] = e.backOfEnvelopeSeconds() * 1e9;
    t.resources[i] = pr.resources();
    t.factors[i] = pr.factors();
    if (o.keepMeasured() && op.measured()) {
      // it takes what it took: its measured time already holds whatever it shared links with
      t.phase[i] = op.measuredDurationNs();
      t.bytes[i] = 0;
      t.maxRate[i] = Double.POSITIVE_INFINITY;
      return;
    }
    t.modelled[i] = true;
    pr.staging().ifPresent(p -> {
      t.hostBeforeNs[i] = p.hostBeforeSeconds() * 1e9;
      t.hostAfterNs[i] = p.hostAfterSeconds() * 1e9;
    });
    double latency = e.latency().seconds() * 1e9;
    double data = e.seconds() * 1e9 - latency;
    t.phase[i] = latency;
    t.bytes[i] = op.bytes();
    t.maxRate[i] = data > 0 ? op.bytes() / data : Double.POSITIVE_INFINITY;
  }

  private Priced price(TransferKind kind, long n, int numa, int gpu, int peer) throws NodeFileException {
    TransferModel.Endpoints where = new TransferModel.Endpoints(numa, gpu, peer);
    TransferEstimate e = model.estimate(kind, n, where, o.setting());
    for (String note : e.notes()) {
      if (note.startsWith("measured curve rescaled")) {
        rescaled.add(kind.key() + " to and from " + node.gpus().get(gpu).id() + ": " + note);
      }
    }
    // the links the data crosses, each with the bytes it carries per data byte
    List<int[]> res = new ArrayList<>();
    List<Double> fac = new ArrayList<>();
    for (TransferLeg leg : e.legs()) {
      addRoute(leg.route(), leg.along(), leg.access(), n, res, fac);
    }
    switch (e.path()) {
      case STAGED -> addMemory(e.hostNuma(), 2, res, fac); // written from one GPU, read by the other
      case HOST, FAULT -> {
        // a pageable copy's bytes cross host memory three times: the CPU reads them from the
        // program's buffer and writes them to a staging buffer, the DMA reads (or writes) that one
        // (Pearson 2018, sec. 4.2.1)
        boolean pageable = kind == TransferKind.PAGEABLE_H2D || kind == TransferKind.PAGEABLE_D2H;
        addMemory(e.hostNuma(), pageable ? 3 : 1, res, fac);
      }
      case PEER, DEVICE -> { } // GPU memory only
    }
    int[] r = new int[res.size()];
    double[] f = new double[res.size()];
    for (int k = 0; k < r.length; k++) {
      r[k] = res.get(k)[0];
      f[k] = fac.get(k);
    }
    return new Priced(e, r, f, model.pageableStaging(kind, n, gpu, numa, o.setting()));
  }

  /** Adds the memory of NUMA node {@code numa}'s CPU, crossed {@code times} per data byte. */
  private void addMemory(int numa, double times, List<int[]> res, List<Double> fac) {
    if (numa < 0) {
      return;
    }
    node.cpuOfNuma(numa).ifPresent(cpu -> {
      res.add(new int[] {links.memoryResource(node.cpus().indexOf(cpu))});
      fac.add(times);
    });
  }

  /** Adds a route's links, crossed from its first vertex ({@code forward}) or from its last. */
  private void addRoute(Topology.Route r, boolean forward, LinkCost.Access access, long n, List<int[]> res,
      List<Double> fac) {
    for (int k = 0; k < r.links().size(); k++) {
      Node.Link l = r.links().get(k);
      String from = forward ? r.vertices().get(k) : r.vertices().get(k + 1);
      int idx = links.linkIndex(l);
      res.add(new int[] {Links.resource(idx, from.equals(l.a()))});
      double nb = Math.max(1, n);
      fac.add(LinkCost.nHat(l, nb, access) / nb);
    }
  }

  /** The gap g of a kind, ns (cached: it only depends on the node). */
  double gapNs(TransferKind kind) {
    int k = kind.ordinal();
    if (gapNs[k] == 0) {
      gapNs[k] = model.gap(kind) * 1e9 + Double.MIN_VALUE;
    }
    return gapNs[k];
  }
}
