package io.apptrace.jobgraph;

import io.apptrace.graph.AttributedGraph;
import io.apptrace.graph.CallSites;
import io.apptrace.graph.Confidence;
import io.apptrace.graph.DvdgAttributes;
import io.apptrace.graph.OperationGraph;
import io.apptrace.graph.Race;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jgrapht.Graph;
import org.jgrapht.nio.Attribute;
import org.jgrapht.nio.AttributeType;
import org.jgrapht.nio.DefaultAttribute;

/**
 * What the exporters write for a job's graph: each rank's vertices and edges as its own graph's
 * ({@link DvdgAttributes}) with its {@code rank}, operation ids the job's; the MPI and NCCL
 * operations' edges with their kind ({@code mpi_message}, {@code mpi_collective},
 * {@code nccl_message}, {@code nccl_allreduce}...), the ranks of their two ends ({@code src_rank},
 * {@code dst_rank}), communicator, tag (MPI messages), bytes and whether a message was matched
 * (docs/GRAPH.md, "The graph of a job").
 */
public final class JobAttributes implements AttributedGraph {
  private static final List<Declared> VERTEX = with(DvdgAttributes.VERTEX, new Declared("rank", AttributeType.INT));
  private static final List<Declared> EDGE = with(DvdgAttributes.EDGE, new Declared("rank", AttributeType.INT),
      new Declared("src_rank", AttributeType.INT), new Declared("dst_rank", AttributeType.INT),
      new Declared("comm", AttributeType.STRING), new Declared("tag", AttributeType.INT),
      new Declared("matched", AttributeType.BOOLEAN));

  private final JobDvdg g;
  private final OperationGraph view;
  private final List<DvdgAttributes> ranks = new ArrayList<>();

  /** The attributes of {@code g}, call sites symbolized by {@code sites} (a rank's graph to its call sites). */
  public JobAttributes(JobDvdg g, Function<JobDvdg.RankGraph, CallSites> sites) {
    this.g = g;
    this.view = g.view();
    for (JobDvdg.RankGraph r : g.ranks()) {
      ranks.add(new DvdgAttributes(r.dvdg(), sites.apply(r)));
    }
  }

  private static List<Declared> with(List<Declared> base, Declared... more) {
    List<Declared> all = new ArrayList<>(base);
    all.addAll(List.of(more));
    return List.copyOf(all);
  }

  @Override
  public Graph<Integer, Integer> graph() {
    return view;
  }

  @Override
  public List<Declared> vertexAttributes() {
    return VERTEX;
  }

  @Override
  public List<Declared> edgeAttributes() {
    return EDGE;
  }

  @Override
  public Map<String, Attribute> vertex(int v) {
    if (view.isValue(v)) {
      int r = g.rankOfValue(v);
      Map<String, Attribute> m = ranks.get(r).vertex(g.localValue(v));
      m.put("rank", DefaultAttribute.createAttribute(g.ranks().get(r).rank()));
      return m;
    }
    int op = view.syntheticOperation(v);
    boolean source = view.isSource(v);
    int r = g.rankOfOperation(op);
    if (r >= 0) {
      JobDvdg.RankGraph rg = g.ranks().get(r);
      Map<String, Attribute> m = DvdgAttributes.synthetic(source, rg.dvdg().operations().pid(g.localOperation(op)),
          op);
      m.put("rank", DefaultAttribute.createAttribute(rg.rank()));
      return m;
    }
    // an MPI or NCCL operation's: of the rank of its one end (a send or receive unmatched), else of the job (-1)
    CommOperation mpi = g.commOperation(op);
    int rank = mpi.members().size() == 1 ? mpi.members().get(0) : -1;
    Map<String, Attribute> m = DvdgAttributes.synthetic(source, -1, op);
    m.remove("pid");
    m.put("rank", DefaultAttribute.createAttribute(rank));
    return m;
  }

  @Override
  public Map<String, Attribute> edge(int e) {
    int op = view.operationOf(e);
    int r = g.rankOfOperation(op);
    return r >= 0 ? rankEdge(e, op, r) : commEdge(e, op);
  }

  /** An edge of a rank's operation: as in the rank's graph, with the job's operation ids and its rank. */
  private Map<String, Attribute> rankEdge(int e, int op, int r) {
    JobDvdg.RankGraph rg = g.ranks().get(r);
    int local = g.localOperation(op);
    Map<String, Attribute> m = ranks.get(r).edge(rg.dvdg().view().firstEdge(local) + (e - view.firstEdge(op)));
    m.put("op", DefaultAttribute.createAttribute(op));
    Attribute writer = m.get("race_writer");
    if (writer != null) {
      m.put("race_writer", DefaultAttribute.createAttribute(rg.jobOperation()[Integer.parseInt(writer.getValue())]));
    }
    m.put("rank", DefaultAttribute.createAttribute(rg.rank()));
    return m;
  }

  /** An edge of an MPI or NCCL operation: from a value one buffer held to a value one buffer received. */
  private Map<String, Attribute> commEdge(int e, int op) {
    CommOperation mpi = g.commOperation(op);
    boolean hasIn = g.inputCount(op) > 0;
    boolean hasOut = g.outputCount(op) > 0;
    JobDvdg.End in = hasIn ? g.commInput(op, view.inputIndex(e)) : null;
    JobDvdg.End out = hasOut ? g.commOutput(op, view.outputIndex(e)) : null;
    Map<String, Attribute> m = new java.util.LinkedHashMap<>();
    m.put("op", DefaultAttribute.createAttribute(op));
    m.put("kind", DefaultAttribute.createAttribute(mpi.kindKey()));
    m.put("name", DefaultAttribute.createAttribute(mpi.name()));
    Confidence c = Confidence.EXACT;
    if (in != null) {
      c = Confidence.weaker(c, in.confidence());
    }
    if (out != null) {
      c = Confidence.weaker(c, out.confidence());
    }
    m.put("confidence", DefaultAttribute.createAttribute(c.key()));
    if (in != null) {
      m.put("read_bytes", DefaultAttribute.createAttribute(in.bytes()));
      JobDvdg.RankGraph rg = g.ranks().get(in.rankIndex());
      Race race = ranks.get(in.rankIndex()).race(in.access(), g.localValue(in.value()));
      if (race != null) {
        DvdgAttributes.race(m, race, rg.jobOperation()[race.writer()]);
      }
    }
    m.put("bytes", DefaultAttribute.createAttribute(mpi.bytes()));
    m.put("src_rank", DefaultAttribute.createAttribute(in != null ? g.ranks().get(in.rankIndex()).rank()
        : mpi.message() ? mpi.source() : -1));
    m.put("dst_rank", DefaultAttribute.createAttribute(out != null ? g.ranks().get(out.rankIndex()).rank()
        : mpi.message() ? mpi.dest() : -1));
    m.put("comm", DefaultAttribute.createAttribute(DvdgAttributes.hex(mpi.comm())));
    if (mpi.message()) {
      if (mpi instanceof MpiOperation message) {
        m.put("tag", DefaultAttribute.createAttribute(message.tag()));
      }
      m.put("matched", DefaultAttribute.createAttribute(mpi.matched()));
    }
    return m;
  }
}
