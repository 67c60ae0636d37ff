package io.apptrace.jobgraph;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.apptrace.graph.OpKind;
import java.util.TreeMap;

/**
 * The {@code apptrace graph TRACES... --summary --json} document of a job: a stable contract
 * (docs/CLI.md). Keys are only ever added; maps are sorted by key.
 */
public final class JobDvdgSummaryJson {
  /** Identifies the document and its version. */
  public static final String SCHEMA = "apptrace.job-graph-summary/1";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JobDvdgSummaryJson() {}

  public static ObjectNode of(JobDvdgSummary s) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("schema", SCHEMA);
    root.put("world_size", s.worldSize());
    ArrayNode missing = root.putArray("missing_ranks");
    s.missingRanks().forEach(missing::add);
    root.put("values", s.values());
    ObjectNode ops = root.putObject("operations");
    s.operations().forEach(ops::put);
    root.put("edges", s.edges());
    ObjectNode messages = root.putObject("messages");
    messages.put("matched", s.messages());
    messages.put("bytes", s.messageBytes());
    unmatched(messages.putArray("unmatched"), s.unmatched());
    ObjectNode collectives = root.putObject("collectives");
    ObjectNode by = collectives.putObject("by_function");
    s.collectives().forEach(by::put);
    collectives.put("incomplete", s.incompleteCollectives());
    collectives.put("mismatched", s.mismatchedCollectives());
    root.put("unrecorded_buffers", s.unrecordedBuffers());
    nccl(root.putObject("nccl"), s.nccl());
    ArrayNode ranks = root.putArray("ranks");
    for (JobDvdgSummary.RankSummary r : s.ranks()) {
      ObjectNode n = ranks.addObject();
      n.put("rank", r.rank());
      n.put("file", r.file());
      n.put("host", r.host());
      n.put("values", r.values());
      n.put("allocations", r.allocations());
      n.put("implicit_allocations", r.implicitAllocations());
      ObjectNode rops = n.putObject("operations");
      for (OpKind k : OpKind.values()) {
        rops.put(k.key(), r.operations().getOrDefault(k, 0));
      }
      n.put("messages_sent", r.sent());
      n.put("bytes_sent", r.sentBytes());
      n.put("messages_received", r.received());
      n.put("bytes_received", r.receivedBytes());
      n.put("collectives", r.collectives());
      ObjectNode nccl = n.putObject("nccl");
      nccl.put("messages_sent", r.nccl().sent());
      nccl.put("bytes_sent", r.nccl().sentBytes());
      nccl.put("messages_received", r.nccl().received());
      nccl.put("bytes_received", r.nccl().receivedBytes());
      nccl.put("collectives", r.nccl().collectives());
      ObjectNode races = n.putObject("races");
      races.put("certain", r.certainRaces());
      races.put("possible", r.possibleRaces());
      ObjectNode warnings = n.putObject("warnings");
      new TreeMap<>(r.warnings()).forEach(warnings::put);
      r.truncation().ifPresentOrElse(t -> {
        ObjectNode tn = n.putObject("truncation");
        tn.put("byte_offset", t.byteOffset());
        tn.put("reason", t.reason());
      }, () -> n.putNull("truncation"));
    }
    return root;
  }

  /** The job's NCCL operations: as the MPI ones, under their own key. */
  private static void nccl(ObjectNode n, NcclSummary s) {
    ObjectNode messages = n.putObject("messages");
    messages.put("matched", s.messages());
    messages.put("bytes", s.messageBytes());
    unmatched(messages.putArray("unmatched"), s.unmatched());
    ObjectNode collectives = n.putObject("collectives");
    ObjectNode by = collectives.putObject("by_function");
    s.collectives().forEach(by::put);
    collectives.put("incomplete", s.incompleteCollectives());
    collectives.put("mismatched", s.mismatchedCollectives());
    n.put("unrecorded_buffers", s.unrecordedBuffers());
  }

  private static void unmatched(ArrayNode out, java.util.List<JobDvdgSummary.Unmatched> all) {
    for (JobDvdgSummary.Unmatched u : all) {
      ObjectNode n = out.addObject();
      n.put("side", u.send() ? "send" : "receive");
      n.put("rank", u.rank());
      n.put("peer", u.peer());
      n.put("count", u.count());
      n.put("bytes", u.bytes());
      n.put("reason", u.reason());
    }
  }
}
