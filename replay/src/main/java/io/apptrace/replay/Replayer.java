package io.apptrace.replay;

import io.apptrace.cost.KernelModel;
import io.apptrace.cost.LinkCost;
import io.apptrace.cost.TransferEstimate;
import io.apptrace.cost.TransferModel;
import io.apptrace.graph.CallLog;
import io.apptrace.node.Node;
import io.apptrace.node.NodeFileException;
import io.apptrace.node.Topology;
import io.apptrace.node.TransferKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Replays a program on a node: a discrete-event simulation, single-threaded and deterministic,
 * with CUDA's stream, event, synchronization and copy-engine rules (docs/REPLAY.md;
 * docs/REPLAY.md says each rule and choice).
 *
 * <p>Host threads run their calls in order, keeping the measured host time between calls (divided
 * by the node's {@code cpu_speed_factor}) and each call's measured duration (its API overhead);
 * a call that blocks (a synchronization, a synchronous copy) ends when what it waits for is done.
 * Operations run in their stream's order, after the events their stream waits for, with the
 * legacy default stream's rules, on an engine of their GPU: kernels and memsets on the compute
 * engine, copies on a copy engine (one engine: every copy in turn; two or more: host-to-device on
 * the even ones, device-to-host on the odd ones, others on any). Copies pay their fixed overhead
 * (L+o, or the gap g back to back in the same direction) and then move their bytes over the links
 * of their route, shared with the transfers in flight ({@link Links}).
 */
public final class Replayer {
  /**
   * How the program is priced.
   *
   * @param keepMeasured operations with measured GPU times keep them
   * @param keepDelays with {@code keepMeasured}: each operation also starts as long after it could
   *     have as it did in the trace (its measured dispatch delay: launch latency, a pageable copy's
   *     staging, dependencies the trace does not record)
   */
  public record Options(boolean keepMeasured, KernelModel.Policy kernelPolicy, Optional<Node> sourceNode,
      double scaleKernels, Map<Integer, Integer> deviceMap, TransferModel.Setting setting, boolean samples,
      boolean keepDelays) {
    public Options {
      deviceMap = Map.copyOf(deviceMap);
    }

    public static Options defaults() {
      return new Options(false, KernelModel.Policy.MEASURED, Optional.empty(), 1.0, Map.of(),
          TransferModel.Setting.MEASURED, true, true);
    }

    public Options withKeepMeasured(boolean k) {
      return new Options(k, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, keepDelays);
    }

    /** Keeps measured durations but not measured dispatch delays (--keep-measured=durations). */
    public Options withKeepDelays(boolean d) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, samples, d);
    }

    public Options withScaleKernels(double f) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, f, deviceMap, setting, samples, keepDelays);
    }

    public Options withDeviceMap(Map<Integer, Integer> m) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, m, setting, samples, keepDelays);
    }

    public Options withKernelPolicy(KernelModel.Policy p, Optional<Node> source) {
      return new Options(keepMeasured, p, source, scaleKernels, deviceMap, setting, samples, keepDelays);
    }

    public Options withSamples(boolean s) {
      return new Options(keepMeasured, kernelPolicy, sourceNode, scaleKernels, deviceMap, setting, s, keepDelays);
    }
  }

  /** A blocking call's own overhead, at most: the rest of its measured time was waiting. */
  static final long BLOCKING_OVERHEAD_NS = 5_000;
  /**
   * A synchronous copy from pageable memory returns once its source may be reused (Pearson 2018, sec.
   * 2.4.1): when the last staging chunk, at most this many bytes, has been copied to the driver's
   * pinned buffer, before its DMA.
   */
  static final double STAGING_CHUNK_BYTES = 64 * 1024;

  private Replayer() {}

  /**
   * Replays {@code p} on {@code node}.
   *
   * @throws ReplayException when the program cannot run on the node (a device it lacks)
   * @throws NodeFileException when the node's own parameters are inconsistent
   */
  public static ReplayResult replay(ReplayProgram p, Node node, Options o) throws ReplayException, NodeFileException {
    return new Sim(p, node, o).run();
  }

  // ---- the simulation ----

  private static final int EV_OP_PHASE = 0; // a kernel, memset or copy's fixed part ends
  private static final int EV_HOST = 1; // a host thread may run its next call
  private static final int EV_READY = 3; // an operation's measured dispatch delay is over (--keep-measured)

  private static final byte PENDING = 0;
  private static final byte WAITING = 1; // issued, dependencies not done
  private static final byte READY = 2;
  private static final byte LATENCY = 3;
  private static final byte FLOWING = 4;
  private static final byte RUNNING = 5;
  private static final byte DONE = 6;

  /** Why an operation started when it did (for the critical path). */
  static final int CAUSE_ISSUE = 0;
  static final int CAUSE_DEP = 1;
  static final int CAUSE_ENGINE = 2;

  private static final class Sim {
    final ReplayProgram p;
    final Node node;
    final Options o;
    final TransferModel model;
    final Topology topology;
    final Links links;
    final int nOps;
    final ReplayProgram.Op[] ops;
    final int[] gpuOf; // node GPU index of each op (source side for GPU-to-GPU)
    final int[] peerGpuOf;
    final double[] issue;
    final double[] ready;
    final double[] start;
    final double[] end;
    final double[] release; // when a host thread waiting for it may go on (end, or earlier: pageable)
    final double[] phase; // fixed duration: kernel/memset time, or a copy's L+o
    final double[] bytes;
    final double[] maxRate; // bytes per ns
    final int[][] resources;
    final double[][] factors;
    final byte[] state;
    final int[] depsLeft;
    final int[] lastDep;
    final int[] engineOf;
    final int[] causeType;
    final int[] causeId;
    final int[] issuedBy; // the call that issued each operation
    final boolean[] modelled; // priced by a model (not kept as measured)
    final double[] peakBwNs; // a copy's baselines (docs/COST-MODEL.md), alone on the node
    final double[] boeNs;
    final boolean[] lowerBound;
    // --keep-measured: the measured time each op became ready (its call's entry, the measured end
    // of what it waited for), and the delay between that and its measured start
    final long[] measuredReady;
    final double[] dispatchDelay;
    final int[] delayedCause;
    final int[] delayedCauseId;
    long issuingEntry;
    /** The trace has measured GPU times (an import, a CUPTI capture). */
    final boolean measuredTrace;
    // dependents: singly linked lists in primitive arrays
    int[] depHead;
    int[] depNext = new int[1024];
    int[] depTo = new int[1024];
    int depCount;
    // host threads
    final int nThreads;
    final int[] cursor;
    final double[] threadReady;
    final int[] callBase;
    final double[] callStart;
    final double[] callEnd;
    final int[] callEndCause; // op whose completion ended a blocking call, else -1
    final int[] waitLeft; // per thread: targets not done yet
    final long[] waitEarliest; // per thread: the blocking call may not end before this
    final long[] wakeNs; // per thread: the blocking call's measured wake-up latency
    final int[] waitLastOp;
    final int[][] waitTargets;
    int[] waiterHead; // per op: threads waiting for it (linked list)
    int[] waiterNext = new int[64];
    int[] waiterThread = new int[64];
    int waiterCount;
    // streams and events
    final int[] lastOp;
    final int[][] streamPd; // the (process, GPU) state of each stream, looked up once
    final int[] streamPdGpu;
    final List<List<Integer>> pendingWaits = new ArrayList<>();
    final int[] eventTarget;
    final Map<Long, int[]> lastOfProcDevice = new HashMap<>(); // (pid, gpu) -> [lastLegacy, lastKernel]
    // engines: per GPU, engine 0 is compute, 1..k the copy engines
    final int[] engineBase;
    final int[] engineBusy; // occupant op or -1 (compute: count of small kernels as negative? see below)
    final double[] engineLastEnd;
    final int[] engineLastWay;
    final int[] engineLastOp;
    final int[] computeSlots; // per GPU: slots in use (concurrent kernels)
    final List<IntHeap> computeQueue = new ArrayList<>();
    final List<IntHeap[]> copyQueue = new ArrayList<>();
    final EventHeap heap = new EventHeap();
    /** The clock: integer ns from the first call, exact at any makespan. */
    long now;
    /** Events the loop has run (a measure of the replay's work, the same at any makespan). */
    long events;
    int modelledKernels;
    int lowerBoundKernels;
    final List<String> notes = new ArrayList<>();

    Sim(ReplayProgram p, Node node, Options o) throws ReplayException, NodeFileException {
      this.p = p;
      this.node = node;
      this.o = o;
      this.model = new TransferModel(node);
      this.topology = model.topology();
      this.links = new Links(node, o.samples());
      this.nOps = p.ops().size();
      this.ops = p.ops().toArray(new ReplayProgram.Op[0]);
      gpuOf = new int[nOps];
      peerGpuOf = new int[nOps];
      issue = new double[nOps];
      ready = new double[nOps];
      start = new double[nOps];
      end = new double[nOps];
      release = new double[nOps];
      phase = new double[nOps];
      bytes = new double[nOps];
      maxRate = new double[nOps];
      resources = new int[nOps][];
      factors = new double[nOps][];
      state = new byte[nOps];
      depsLeft = new int[nOps];
      lastDep = new int[nOps];
      engineOf = new int[nOps];
      causeType = new int[nOps];
      causeId = new int[nOps];
      issuedBy = new int[nOps];
      Arrays.fill(issuedBy, -1);
      modelled = new boolean[nOps];
      peakBwNs = new double[nOps];
      boeNs = new double[nOps];
      Arrays.fill(peakBwNs, Double.NaN);
      Arrays.fill(boeNs, Double.NaN);
      lowerBound = new boolean[nOps];
      measuredTrace = p.measuredMakespanNs() >= 0;
      measuredReady = new long[nOps];
      Arrays.fill(measuredReady, Long.MIN_VALUE);
      dispatchDelay = new double[nOps];
      Arrays.fill(dispatchDelay, Double.NaN);
      delayedCause = new int[nOps];
      delayedCauseId = new int[nOps];
      depHead = new int[nOps];
      Arrays.fill(depHead, -1);
      Arrays.fill(engineOf, -1);
      waiterHead = new int[nOps];
      Arrays.fill(waiterHead, -1);
      Arrays.fill(start, Double.NaN);
      Arrays.fill(end, Double.NaN);
      Arrays.fill(release, Double.NaN);
      Arrays.fill(issue, Double.NaN);
      nThreads = p.threads().size();
      cursor = new int[nThreads];
      threadReady = new double[nThreads];
      callBase = new int[nThreads + 1];
      for (int t = 0; t < nThreads; t++) {
        callBase[t + 1] = callBase[t] + p.threads().get(t).calls().size();
      }
      int nCalls = callBase[nThreads];
      callStart = new double[nCalls];
      callEnd = new double[nCalls];
      callEndCause = new int[nCalls];
      Arrays.fill(callEndCause, -1);
      waitLeft = new int[nThreads];
      waitEarliest = new long[nThreads];
      wakeNs = new long[nThreads];
      waitLastOp = new int[nThreads];
      waitTargets = new int[nThreads][];
      lastOp = new int[p.streams().size()];
      streamPd = new int[p.streams().size()][];
      streamPdGpu = new int[p.streams().size()];
      Arrays.fill(lastOp, -1);
      for (int s = 0; s < p.streams().size(); s++) {
        pendingWaits.add(new ArrayList<>());
      }
      eventTarget = new int[p.events()];
      Arrays.fill(eventTarget, -1);
      int gpus = node.gpus().size();
      engineBase = new int[gpus + 1];
      for (int g = 0; g < gpus; g++) {
        engineBase[g + 1] = engineBase[g] + 1 + node.gpus().get(g).copyEngines();
      }
      engineBusy = new int[engineBase[gpus]];
      Arrays.fill(engineBusy, -1);
      engineLastEnd = new double[engineBusy.length];
      Arrays.fill(engineLastEnd, Double.NEGATIVE_INFINITY);
      engineLastWay = new int[engineBusy.length];
      Arrays.fill(engineLastWay, -1);
      engineLastOp = new int[engineBusy.length];
      Arrays.fill(engineLastOp, -1);
      computeSlots = new int[gpus];
      dirty = new boolean[gpus];
      dirtyList = new int[gpus];
      for (int g = 0; g < gpus; g++) {
        computeQueue.add(new IntHeap());
        copyQueue.add(new IntHeap[] {new IntHeap(), new IntHeap(), new IntHeap()});
      }
      price();
    }

    int mapDevice(int traceDevice, ReplayProgram.Op op) throws ReplayException {
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

    /** Prices every operation on the node (its fixed part, rate and links). */
    void price() throws ReplayException, NodeFileException {
      Map<String, TransferEstimate> cache = new HashMap<>();
      for (int i = 0; i < nOps; i++) {
        ReplayProgram.Op op = ops[i];
        if (op.kind() == ReplayProgram.Kind.COPY && op.transfer() == null) {
          gpuOf[i] = -1; // host-to-host: the calling thread copies
          continue;
        }
        int gpu = mapDevice(Math.max(op.device(), 0), op);
        gpuOf[i] = gpu;
        peerGpuOf[i] = op.peerDevice() >= 0 ? mapDevice(op.peerDevice(), op) : gpu;
        Node.Gpu g = node.gpus().get(gpu);
        switch (op.kind()) {
          case KERNEL -> phase[i] = kernelNs(op, g);
          case MEMSET -> {
            if (o.keepMeasured() && op.measured()) {
              phase[i] = op.measuredDurationNs();
            } else {
              phase[i] = (g.launchOverheadSeconds() + op.bytes() / g.memoryBandwidth()) * 1e9;
              modelled[i] = true;
            }
          }
          case COPY -> priceCopy(i, op, gpu, cache);
        }
      }
      if (lowerBoundKernels > 0) {
        notes.add(lowerBoundKernels + " kernel launch(es) had no measured GPU time: priced at the lower bound bytes /"
            + " memory bandwidth + launch overhead (docs/COST-MODEL.md), not a measurement");
      }
    }

    double kernelNs(ReplayProgram.Op op, Node.Gpu g) throws NodeFileException {
      int i = op.id();
      double t;
      if (o.keepMeasured() && op.measured()) {
        return op.measuredDurationNs();
      }
      modelled[i] = true;
      OptionalDouble measured = op.measured() ? OptionalDouble.of(op.measuredDurationNs() * 1e-9) : OptionalDouble.empty();
      Optional<Node.Gpu> from = o.sourceNode().flatMap(s -> s.gpu(Math.max(0, Math.min(op.device(), s.gpus().size() - 1))));
      KernelModel.KernelEstimate k = KernelModel.estimate(o.kernelPolicy(), measured, from, g, OptionalDouble.empty(),
          op.touchedBytes(), "fp32");
      t = k.seconds() * 1e9;
      if (k.lowerBound()) {
        lowerBound[i] = true;
        lowerBoundKernels++;
      }
      if (op.mappedReadBytes() > 0 || op.mappedWriteBytes() > 0) {
        // zero-copy (van Werkhoven et al. 2014, eq. 6): the kernel streams its host data over the link while it
        // computes
        int gpu = g.index();
        TransferEstimate in = model.estimate(TransferKind.PINNED_H2D, (long) Math.max(1, op.mappedReadBytes()),
            TransferModel.Endpoints.gpu(gpu), o.setting());
        TransferEstimate out = model.estimate(TransferKind.PINNED_D2H, (long) Math.max(1, op.mappedWriteBytes()),
            TransferModel.Endpoints.gpu(gpu), o.setting());
        double inNs = op.mappedReadBytes() > 0 ? (in.seconds() - in.latency().seconds()) * 1e9 : 0;
        double outNs = op.mappedWriteBytes() > 0 ? (out.seconds() - out.latency().seconds()) * 1e9 : 0;
        t = in.latency().seconds() * 1e9 + Math.max(t, Math.max(inNs, outNs)) + out.latency().seconds() * 1e9;
      }
      return t * o.scaleKernels();
    }

    /** A copy's pricing, the same for every copy of the same kind, size and ends. */
    record Priced(TransferEstimate estimate, int[] resources, double[] factors) {}

    final Map<CopyKey, Priced> priced = new HashMap<>();

    record CopyKey(TransferKind kind, long bytes, int numa, int gpu, int peer) {}

    void priceCopy(int i, ReplayProgram.Op op, int gpu, Map<String, TransferEstimate> unused) throws NodeFileException {
      TransferKind kind = op.transfer();
      int numa = op.numa() >= 0 && node.cpuOfNuma(op.numa()).isPresent() ? op.numa() : -1;
      if (numa < 0 && (kind.way() == TransferKind.Way.H2D || kind.way() == TransferKind.Way.D2H)) {
        numa = topology.localNuma(node.gpus().get(gpu).id());
      }
      CopyKey key = new CopyKey(kind, op.bytes(), numa, gpu, peerGpuOf[i]);
      Priced pr = priced.get(key);
      if (pr == null) {
        pr = price(kind, op.bytes(), numa, gpu, peerGpuOf[i]);
        priced.put(key, pr);
      }
      TransferEstimate e = pr.estimate();
      double latency = e.latency().seconds() * 1e9;
      double total = e.seconds() * 1e9;
      peakBwNs[i] = e.peakBwSeconds() * 1e9;
      boeNs[i] = e.backOfEnvelopeSeconds() * 1e9;
      if (o.keepMeasured() && op.measured()) {
        // it takes what it took: its measured time already holds whatever it shared links with
        phase[i] = op.measuredDurationNs();
        bytes[i] = 0;
        maxRate[i] = Double.POSITIVE_INFINITY;
        resources[i] = pr.resources();
        factors[i] = pr.factors();
        return;
      }
      modelled[i] = true;
      phase[i] = latency;
      bytes[i] = op.bytes();
      double data = total - latency;
      maxRate[i] = data > 0 ? op.bytes() / data : Double.POSITIVE_INFINITY;
      resources[i] = pr.resources();
      factors[i] = pr.factors();
    }

    Priced price(TransferKind kind, long n, int numa, int gpu, int peer) throws NodeFileException {
      TransferModel.Endpoints where = new TransferModel.Endpoints(numa, gpu, peer);
      TransferEstimate e = model.estimate(kind, n, where, o.setting());
      // the links the data crosses, each with the bytes it carries per data byte
      List<int[]> res = new ArrayList<>();
      List<Double> fac = new ArrayList<>();
      String g = node.gpus().get(gpu).id();
      switch (e.kind()) {
        case "staged_p2p" -> {
          int staging = numa >= 0 ? numa : topology.localNuma(g);
          addRoute(topology.hostRoute(staging, g).orElseThrow(), false, LinkCost.Access.WRITE, n, res, fac);
          addRoute(topology.hostRoute(staging, node.gpus().get(peer).id()).orElseThrow(), true,
              LinkCost.Access.READ, n, res, fac);
        }
        case "peer" -> addRoute(topology.route(g, node.gpus().get(peer).id()).orElseThrow(), true,
            LinkCost.Access.WRITE, n, res, fac);
        case "d2d" -> { } // within the GPU's memory: no link
        default -> {
          boolean h2d = kind.way() == TransferKind.Way.H2D;
          addRoute(topology.hostRoute(numa, g).orElseThrow(), h2d, h2d ? LinkCost.Access.READ : LinkCost.Access.WRITE,
              n, res, fac);
        }
      }
      int[] r = new int[res.size()];
      double[] f = new double[res.size()];
      for (int k = 0; k < r.length; k++) {
        r[k] = res.get(k)[0];
        f[k] = fac.get(k);
      }
      return new Priced(e, r, f);
    }

    /** Adds a route's links, crossed from its first vertex ({@code forward}) or from its last. */
    void addRoute(Topology.Route r, boolean forward, LinkCost.Access access, long n, List<int[]> res, List<Double> fac) {
      for (int k = 0; k < r.links().size(); k++) {
        Node.Link l = r.links().get(k);
        String from = forward ? r.vertices().get(k) : r.vertices().get(k + 1);
        int idx = links.linkIndex(l);
        res.add(new int[] {Links.resource(idx, from.equals(l.a()))});
        double nb = Math.max(1, n);
        fac.add(LinkCost.nHat(l, nb, access) / nb);
      }
    }

    // ---- dependencies ----

    void addDep(int op, int on) {
      if (on >= 0 && ops[on].measured() && measuredReady[op] != Long.MIN_VALUE) {
        measuredReady[op] = Math.max(measuredReady[op], ops[on].measuredEndNs());
      }
      if (on < 0 || state[on] == DONE) {
        return;
      }
      if (depCount == depTo.length) {
        depTo = Arrays.copyOf(depTo, depCount * 2);
        depNext = Arrays.copyOf(depNext, depCount * 2);
      }
      depTo[depCount] = op;
      depNext[depCount] = depHead[on];
      depHead[on] = depCount++;
      depsLeft[op]++;
    }

    void addWaiter(int thread, int op) {
      if (waiterCount == waiterThread.length) {
        waiterThread = Arrays.copyOf(waiterThread, waiterCount * 2);
        waiterNext = Arrays.copyOf(waiterNext, waiterCount * 2);
      }
      waiterThread[waiterCount] = thread;
      waiterNext[waiterCount] = waiterHead[op];
      waiterHead[op] = waiterCount++;
    }

    int[] procDevice(int pid, int gpu) {
      return lastOfProcDevice.computeIfAbsent(((long) pid << 32) | gpu, k -> new int[] {-1, -1});
    }

    /** Issues an operation at {@code now} from host thread {@code thread}'s call. */
    void issueOp(int i, int callId) {
      ReplayProgram.Op op = ops[i];
      issue[i] = now;
      causeId[i] = callId;
      issuedBy[i] = callId;
      int s = op.stream();
      CallLog.Stream st = s >= 0 && s < p.streams().size() ? p.streams().get(s) : null;
      int gpu = gpuOf[i];
      if (gpu < 0) { // a host-to-host copy: done by the calling thread, no device work
        state[i] = DONE;
        start[i] = now;
        return;
      }
      state[i] = WAITING;
      if (o.keepMeasured() && o.keepDelays() && op.measured()) {
        measuredReady[i] = issuingEntry;
      }
      if (s >= 0) {
        int prev = lastOp[s];
        addDep(i, prev);
        for (int w : pendingWaits.get(s)) {
          addDep(i, w);
        }
        pendingWaits.get(s).clear();
        int[] pd = streamPd[s];
        if (pd == null || streamPdGpu[s] != gpu) {
          pd = streamPd[s] = procDevice(st.pid(), gpu);
          streamPdGpu[s] = gpu;
        }
        if (st.legacy()) {
          for (int b = 0; b < p.streams().size(); b++) {
            CallLog.Stream other = p.streams().get(b);
            if (b != s && !other.legacy() && other.blocking() && other.pid() == st.pid() && lastOp[b] >= 0
                && gpuOf[lastOp[b]] == gpu) {
              addDep(i, lastOp[b]);
            }
          }
          pd[0] = i;
        } else if (st.blocking()) {
          addDep(i, pd[0]);
        }
        // implicit synchronization (van Werkhoven et al. 2014, sec. IV): an operation that follows a kernel in its
        // stream
        // waits for every kernel issued before it on the GPU
        if (node.gpus().get(gpu).implicitSync() && prev >= 0 && ops[prev].kind() == ReplayProgram.Kind.KERNEL) {
          addDep(i, pd[1]);
        }
        if (op.kind() == ReplayProgram.Kind.KERNEL) {
          pd[1] = i;
        }
        lastOp[s] = i;
      }
      if (depsLeft[i] == 0) {
        makeReady(i, CAUSE_ISSUE, callId);
      }
    }

    void makeReady(int i, int cause, int id) {
      if (measuredReady[i] != Long.MIN_VALUE && Double.isNaN(dispatchDelay[i])) {
        // --keep-measured: the op starts as long after it could as it did in the trace (a
        // kernel's launch latency; a pageable copy's staging before its DMA), docs/REPLAY.md
        dispatchDelay[i] = Math.max(0, ops[i].measuredStartNs() - measuredReady[i]);
        if (dispatchDelay[i] > 0) {
          delayedCause[i] = cause;
          delayedCauseId[i] = id;
          heap.push(at(dispatchDelay[i]), 0, EV_READY, i);
          return;
        }
      }
      state[i] = READY;
      ready[i] = now;
      causeType[i] = cause;
      if (cause != CAUSE_ISSUE) {
        causeId[i] = id;
      }
      int gpu = gpuOf[i];
      if (ops[i].kind() == ReplayProgram.Kind.COPY) {
        copyQueue.get(gpu)[lane(i)].add(i);
      } else {
        computeQueue.get(gpu).add(i);
      }
      touch(gpu);
    }

    /** 0: host to device; 1: device to host; 2: device to device or GPU to GPU. */
    int lane(int i) {
      TransferKind.Way w = ops[i].transfer().way();
      return w == TransferKind.Way.H2D ? 0 : w == TransferKind.Way.D2H ? 1 : 2;
    }

    // ---- engines ----

    /** GPUs whose ready queues or engines changed since the last dispatch. */
    boolean[] dirty;
    int[] dirtyList;
    int dirtyCount;

    void touch(int g) {
      if (!dirty[g]) {
        dirty[g] = true;
        dirtyList[dirtyCount++] = g;
      }
    }

    void dispatch() {
      while (dirtyCount > 0) {
        int g = dirtyList[--dirtyCount];
        dirty[g] = false;
        dispatchCompute(g);
        dispatchCopies(g);
      }
    }

    boolean fillsGpu(int i, Node.Gpu g) {
      long blocks = ops[i].blocks();
      return blocks <= 0 || g.sms() <= 0 || blocks >= g.sms();
    }

    void dispatchCompute(int g) {
      IntHeap q = computeQueue.get(g);
      Node.Gpu gpu = node.gpus().get(g);
      int engine = engineBase[g];
      while (!q.isEmpty()) {
        int i = q.peek();
        // one kernel at a time; with concurrent kernels, kernels too small to fill the GPU share it
        // kept at its measured time, a kernel ran as it did, sharing the GPU with whatever it
        // overlapped in the trace: it does not hold the compute engine alone
        boolean small = gpu.concurrentKernels() && (!fillsGpu(i, gpu) || (o.keepMeasured() && ops[i].measured()));
        boolean free = computeSlots[g] == 0 || (small && engineBusy[engine] == -2);
        if (!free) {
          return;
        }
        q.poll();
        computeSlots[g]++;
        engineBusy[engine] = small ? -2 : i;
        startOp(i, engine);
        state[i] = RUNNING;
        heap.push(at(phase[i]), 0, EV_OP_PHASE, i);
      }
    }

    void dispatchCopies(int g) {
      IntHeap[] q = copyQueue.get(g);
      int k = node.gpus().get(g).copyEngines();
      for (int e = 0; e < k; e++) {
        int engine = engineBase[g] + 1 + e;
        if (engineBusy[engine] != -1) {
          continue;
        }
        // the engine takes the earliest-issued ready copy of the lanes it serves
        int best = -1;
        int bestLane = -1;
        for (int lane = 0; lane < 3; lane++) {
          boolean serves = k == 1 || lane == 2 || lane == (e % 2);
          if (serves && !q[lane].isEmpty() && (best < 0 || q[lane].peek() < best)) {
            best = q[lane].peek();
            bestLane = lane;
          }
        }
        if (best < 0) {
          continue;
        }
        q[bestLane].poll();
        engineBusy[engine] = best;
        startOp(best, engine);
        // back to back in the same direction: the gap g instead of L+o (docs/COST-MODEL.md, Choice)
        TransferKind kind = ops[best].transfer();
        double fixed = phase[best];
        if (engineLastEnd[engine] == now && engineLastWay[engine] == bestLane && bestLane < 2 && modelled[best]) {
          fixed = Math.min(fixed, gapNs(kind));
        }
        state[best] = LATENCY;
        heap.push(at(fixed), 0, EV_OP_PHASE, best);
      }
    }

    private final double[] gapNs = new double[TransferKind.values().length];

    /** The gap g of a kind, ns (cached: it only depends on the node). */
    double gapNs(TransferKind kind) {
      int k = kind.ordinal();
      if (gapNs[k] == 0) {
        try {
          gapNs[k] = model.gap(kind) * 1e9 + Double.MIN_VALUE;
        } catch (NodeFileException x) {
          throw new IllegalStateException(x);
        }
      }
      return gapNs[k];
    }

    void startOp(int i, int engine) {
      start[i] = now;
      engineOf[i] = engine;
      if (now > ready[i]) {
        causeType[i] = CAUSE_ENGINE;
        causeId[i] = engineLastOp[engine];
      }
    }

    void finishOp(int i) {
      state[i] = DONE;
      end[i] = now;
      int engine = engineOf[i];
      if (engine >= 0) {
        int g = gpuOf[i];
        touch(g);
        if (engine == engineBase[g]) {
          computeSlots[g]--;
          if (computeSlots[g] == 0) {
            engineBusy[engine] = -1;
          }
        } else {
          engineBusy[engine] = -1;
          engineLastWay[engine] = lane(i);
        }
        engineLastEnd[engine] = now;
        engineLastOp[engine] = i;
      }
      for (int d = depHead[i]; d >= 0; d = depNext[d]) {
        int j = depTo[d];
        if (--depsLeft[j] == 0 && state[j] == WAITING) {
          makeReady(j, CAUSE_DEP, i);
        }
      }
      if (Double.isNaN(release[i])) {
        releaseWaiters(i);
      }
    }

    /** Host threads waiting for operation i may go on (now). */
    void releaseWaiters(int i) {
      release[i] = now;
      for (int w = waiterHead[i]; w >= 0; w = waiterNext[w]) {
        int t = waiterThread[w];
        waitLastOp[t] = i;
        if (--waitLeft[t] == 0) {
          endBlockingCall(t);
        }
      }
      waiterHead[i] = -1;
    }

    // ---- host threads ----

    ReplayProgram.Call call(int t) {
      return p.threads().get(t).calls().get(cursor[t]);
    }

    private final List<Integer> targets = new ArrayList<>();

    /** Runs thread t's next call, which starts now. */
    void runCall(int t) {
      List<ReplayProgram.Call> calls = p.threads().get(t).calls();
      if (cursor[t] >= calls.size()) {
        return;
      }
      ReplayProgram.Call c = calls.get(cursor[t]);
      int id = callBase[t] + cursor[t];
      callStart[id] = now;
      issuingEntry = c.entryNs();
      long dur = c.durationNs();
      targets.clear();
      boolean blocking = false;
      switch (c.type()) {
        case OP -> {
          int i = c.a();
          if (p.provenance().simulated() && gpuOf[i] >= 0) {
            // the simulated device does a copy's or memset's work inside the call: its measured
            // duration is the simulator's, not a runtime's API overhead (docs/REPLAY.md)
            dur = Math.min(dur, Links.ticks(node.gpus().get(gpuOf[i]).launchOverheadSeconds() * 1e9));
          }
          issueOp(i, id);
          dispatch();
          if (ops[i].synchronous() && gpuOf[i] >= 0) {
            blocking = true;
            targets.add(i);
          } else if (gpuOf[i] < 0) {
            dur = Links.ticks(dur / node.cpuSpeedFactor()); // the host copies: CPU time
          }
        }
        case SYNC_STREAM -> {
          blocking = true;
          if (c.a() >= 0 && c.a() < lastOp.length) {
            targets.add(lastOp[c.a()]);
          }
        }
        case SYNC_EVENT -> {
          blocking = true;
          if (c.a() >= 0 && c.a() < eventTarget.length) {
            targets.add(eventTarget[c.a()]);
          }
        }
        case SYNC_DEVICE -> {
          blocking = true;
          int pid = p.threads().get(t).pid();
          int gpu = o.deviceMap().getOrDefault(c.a(), c.a());
          for (int s = 0; s < lastOp.length; s++) {
            CallLog.Stream st = p.streams().get(s);
            if (st.pid() == pid && lastOp[s] >= 0 && gpuOf[lastOp[s]] == gpu) {
              targets.add(lastOp[s]);
            }
          }
        }
        case SYNC_SOME_STREAMS -> {
          // the trace does not say which stream: the ones whose last work had ended, as
          // measured, by the time the call returned
          blocking = true;
          int pid = p.threads().get(t).pid();
          int gpu = o.deviceMap().getOrDefault(c.a(), c.a());
          long exit = c.entryNs() + c.durationNs();
          for (int s = 0; s < lastOp.length; s++) {
            CallLog.Stream st = p.streams().get(s);
            int last = lastOp[s];
            if (st.pid() == pid && last >= 0 && gpuOf[last] == gpu && ops[last].measured()
                && ops[last].measuredEndNs() <= exit) {
              targets.add(last);
            }
          }
        }
        case EVENT_RECORD -> {
          if (c.b() >= 0 && c.b() < eventTarget.length) {
            eventTarget[c.b()] = c.a() >= 0 && c.a() < lastOp.length ? lastOp[c.a()] : -1;
          }
        }
        case STREAM_WAIT_EVENT -> {
          if (c.a() >= 0 && c.a() < lastOp.length && c.b() >= 0 && c.b() < eventTarget.length
              && eventTarget[c.b()] >= 0) {
            pendingWaits.get(c.a()).add(eventTarget[c.b()]);
          }
        }
        case HOST -> { }
      }
      if (!blocking) {
        callEnd[id] = now + dur;
        if (c.type() == CallLog.Type.OP && gpuOf[c.a()] < 0) {
          end[c.a()] = callEnd[id];
        }
        heap.push(now + dur, 1, EV_HOST, t);
        return;
      }
      if (o.keepMeasured() && returnedEarly(c, targets)) {
        // measured: the call returned before the work it waits for ended (a synchronous copy
        // from pageable memory returns once its source is staged): it keeps its measured duration
        callEnd[id] = now + dur;
        heap.push(now + dur, 1, EV_HOST, t);
        return;
      }
      // its own overhead: all of its measured time when, as measured, what it waits for had
      // ended before it was called (it did not wait); else at most BLOCKING_OVERHEAD_NS
      waitEarliest[t] = now + (waitedForNothing(c, targets) ? dur : Math.min(dur, BLOCKING_OVERHEAD_NS));
      waitLeft[t] = 0;
      waitLastOp[t] = -1;
      waitTargets[t] = targets.stream().mapToInt(Integer::intValue).filter(x -> x >= 0).toArray();
      wakeNs[t] = wakeLatency(c, waitTargets[t]);
      for (int target : waitTargets[t]) {
        if (Double.isNaN(release[target])) {
          waitLeft[t]++;
          addWaiter(t, target);
        }
      }
      if (waitLeft[t] == 0) {
        endBlockingCall(t);
      }
    }

    /** Whether, as measured, everything a blocking call waits for had ended before the call began. */
    boolean waitedForNothing(ReplayProgram.Call c, List<Integer> waited) {
      for (int target : waited) {
        if (target >= 0 && (!ops[target].measured() || ops[target].measuredEndNs() > c.entryNs())) {
          return false;
        }
      }
      return measuredTrace;
    }

    /** Whether a blocking call returned, as measured, before the work it waits for ended. */
    boolean returnedEarly(ReplayProgram.Call c, List<Integer> waited) {
      long done = Long.MIN_VALUE;
      for (int target : waited) {
        if (target < 0) {
          continue;
        }
        if (!ops[target].measured()) {
          return false;
        }
        done = Math.max(done, ops[target].measuredEndNs());
      }
      return done != Long.MIN_VALUE && done > c.entryNs() + c.durationNs();
    }

    /**
     * How long after the work it waited for ended the blocking call returned, as measured: the
     * call's measured exit minus the measured end of that work, when the trace has GPU times for
     * all of it and the call was still waiting when it ended; else 0 (docs/REPLAY.md).
     */
    long wakeLatency(ReplayProgram.Call c, int[] waited) {
      long done = Long.MIN_VALUE;
      for (int target : waited) {
        ReplayProgram.Op op = ops[target];
        if (!op.measured() || gpuOf[target] < 0) {
          return 0;
        }
        done = Math.max(done, op.measuredEndNs());
      }
      long exit = c.entryNs() + c.durationNs();
      if (done == Long.MIN_VALUE || done < c.entryNs() || done > exit) {
        return 0;
      }
      return exit - done;
    }

    /**
     * A blocking call whose targets have all released it ends then (a synchronous copy from
     * pageable memory releases its thread once its source may be reused, before the last staging
     * chunk's DMA, Pearson 2018, sec. 2.4.1), but not before its own overhead.
     */
    void endBlockingCall(int t) {
      int id = callBase[t] + cursor[t];
      long when = Long.MIN_VALUE;
      int binding = -1;
      for (int target : waitTargets[t]) {
        long r = (long) (Double.isNaN(release[target]) ? end[target] : release[target]);
        if (r > when) {
          when = r;
          binding = target;
        }
      }
      when = binding < 0 ? Long.MIN_VALUE : when + wakeNs[t];
      long ends = Math.max(waitEarliest[t], when);
      callEnd[id] = ends;
      callEndCause[id] = when > waitEarliest[t] ? binding : -1;
      heap.push(ends, 1, EV_HOST, t);
    }

    /** Thread t's call has ended (now): the next one starts after the measured host gap. */
    void callEnded(int t) {
      List<ReplayProgram.Call> calls = p.threads().get(t).calls();
      int i = cursor[t];
      ReplayProgram.Call c = calls.get(i);
      cursor[t]++;
      if (cursor[t] >= calls.size()) {
        return;
      }
      ReplayProgram.Call next = calls.get(cursor[t]);
      double gap = Math.max(0, next.entryNs() - (c.entryNs() + c.durationNs())) / node.cpuSpeedFactor();
      heap.push(at(gap), 2, EV_HOST + 10, t); // 11: a call starts
    }

    // ---- the loop ----

    ReplayResult run() {
      long first = p.firstEntryNs();
      for (int t = 0; t < nThreads; t++) {
        List<ReplayProgram.Call> calls = p.threads().get(t).calls();
        if (!calls.isEmpty()) {
          heap.push(Links.ticks((calls.get(0).entryNs() - first) / node.cpuSpeedFactor()), 2, EV_HOST + 10, t);
        }
      }
      while (true) {
        long flowNext = links.isEmpty() ? Long.MAX_VALUE : links.nextAt();
        long heapNext = heap.isEmpty() ? Long.MAX_VALUE : heap.peekTime();
        if (flowNext == Long.MAX_VALUE && heapNext == Long.MAX_VALUE) {
          break;
        }
        events++;
        if (flowNext <= heapNext) {
          links.advance(flowNext - now);
          now = flowNext;
          int m = links.milestones(now);
          for (int k = 0; k < m; k++) {
            releaseWaiters(links.result()[k]);
          }
          int done = links.finished(now);
          if (m == 0 && done == 0) {
            int stuck = links.firstActive();
            throw new IllegalStateException("the replay made no progress at " + now + " ns on " + node.name()
                + ": a transfer event was due but no transfer ended (operation " + stuck + ", "
                + (stuck >= 0 ? ops[stuck].name() : "none") + ")");
          }
          int[] finishedOps = done == 1 ? one(links.result()[0]) : Arrays.copyOf(links.result(), done);
          for (int i : finishedOps) {
            finishCopy(i);
          }
          links.update(now); // rates and the next completion change
          dispatch();
          continue;
        }
        heap.pop();
        if (heap.lastTime < now) {
          throw new IllegalStateException("an event of kind " + heap.lastType + " (id " + heap.lastId
              + ") was scheduled at " + heap.lastTime + " ns, before the clock's " + now + " ns");
        }
        links.advance(heap.lastTime - now);
        now = heap.lastTime;
        int type = heap.lastType;
        int id = heap.lastId;
        if (type == EV_OP_PHASE) {
          if (state[id] == LATENCY) {
            // the fixed part is over: the bytes start moving
            if (bytes[id] > 0 && maxRate[id] < Double.POSITIVE_INFINITY) {
              state[id] = FLOWING;
              // a synchronous copy from pageable memory lets its thread go once the last staging
              // chunk is in the driver's buffer (Pearson 2018, sec. 2.4.1)
              double milestone = ops[id].synchronous() && ops[id].transfer() == TransferKind.PAGEABLE_H2D
                  ? Math.min(bytes[id], STAGING_CHUNK_BYTES) : 0;
              links.start(id, resources[id], factors[id], maxRate[id], bytes[id], milestone, now);
              links.update(now);
            } else {
              finishCopy(id);
            }
          } else {
            finishOp(id);
          }
          dispatch();
        } else if (type == EV_HOST) {
          callEnded(id);
        } else if (type == EV_READY) {
          makeReady(id, delayedCause[id], delayedCauseId[id]);
          dispatch();
        } else {
          runCall(id);
        }
      }
      return result();
    }

    private final int[] oneOp = new int[1];

    int[] one(int op) {
      oneOp[0] = op;
      return oneOp;
    }

    void finishCopy(int i) {
      finishOp(i);
    }

    ReplayResult result() {
      ReplayResult r = ReplayResult.of(this.p, node, o, issue, start, end, engineOf, engineNames(), causeType, causeId,
          issuedBy, callBase, callStart, callEnd, callEndCause, links, lowerBound, modelled, notes, gpuOf, peakBwNs,
          boeNs, dispatchDelay);
      r.events = events;
      return r;
    }

    /** The clock time {@code delayNs} from now, rounded to the nanosecond. */
    long at(double delayNs) {
      return now + Links.ticks(delayNs);
    }

    String[] engineNames() {
      String[] names = new String[engineBusy.length];
      for (int g = 0; g < node.gpus().size(); g++) {
        Node.Gpu gpu = node.gpus().get(g);
        names[engineBase[g]] = gpu.id() + " compute";
        int k = gpu.copyEngines();
        for (int e = 0; e < k; e++) {
          names[engineBase[g] + 1 + e] = gpu.id() + " copy" + e + (k == 1 ? "" : e % 2 == 0 ? " (h2d)" : " (d2h)");
        }
      }
      return names;
    }
  }
}
