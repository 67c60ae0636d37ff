package io.apptrace.trace;

import io.apptrace.proto.Api;
import io.apptrace.proto.Event;
import io.apptrace.proto.MpiOp;
import io.apptrace.proto.NcclOp;

/**
 * Runtime function names. The Api enum spells the runtime's internal entry points
 * {@code rt__cuda...} (protoc rejects enum values that differ only by underscores); the name a
 * program calls is {@code __cuda...}.
 */
public final class ApiNames {
  private ApiNames() {}

  /** The function name of an Api value; empty for API_UNSPECIFIED. */
  public static String of(Api api) {
    if (api == Api.API_UNSPECIFIED) {
      return "";
    }
    if (api == Api.UNRECOGNIZED) {
      return "unknown";
    }
    String n = api.name();
    return n.startsWith("rt__") ? n.substring(2) : n;
  }

  /** The function an event records a call of; empty when the event is not an API call. */
  public static String of(Event e) {
    return of(e.getApiValue(), e.getApiName());
  }

  /**
   * The function of an Api number, or {@code otherName} for API_OTHER (the event's api_name);
   * {@code api#N} for a number this build does not know.
   */
  public static String of(int api, String otherName) {
    if (api == Api.API_OTHER_VALUE) {
      return otherName;
    }
    Api a = Api.forNumber(api);
    return a == null ? "api#" + api : of(a);
  }

  /**
   * The MPI function an {@link MpiOp} records, as MPI spells it ({@code MPI_Sendrecv},
   * {@code MPI_Reduce_scatter}): the name an MPI call has in a graph's call log.
   */
  public static String mpi(MpiOp op) {
    String n = op.name();
    if (!n.startsWith(MPI_PREFIX) || n.length() == MPI_PREFIX.length()) {
      return n;
    }
    String rest = n.substring(MPI_PREFIX.length());
    return MPI_PREFIX + rest.charAt(0) + rest.substring(1).toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether a call log's function name is an MPI call's ({@link #mpi}). */
  public static boolean isMpi(String function) {
    return function.startsWith(MPI_PREFIX);
  }

  private static final String MPI_PREFIX = "MPI_";

  /**
   * The NCCL function an {@link NcclOp} records, as NCCL spells it ({@code ncclAllReduce},
   * {@code ncclCommInitRank}).
   */
  public static String nccl(NcclOp op) {
    String n = op.name();
    if (!n.startsWith(NCCL_PREFIX)) {
      return n;
    }
    StringBuilder b = new StringBuilder("nccl");
    for (String word : n.substring(NCCL_PREFIX.length()).split("_")) {
      if (!word.isEmpty()) {
        b.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
      }
    }
    return b.toString();
  }

  private static final String NCCL_PREFIX = "NCCL_";

  /** Whether a function name (a call log's, an operation's) is an NCCL call's ({@link #nccl}). */
  public static boolean isNccl(String function) {
    return function.startsWith("nccl");
  }

  /** The Api value of a function name, or API_OTHER when the runtime has no such function. */
  public static Api forName(String function) {
    String enumName = function.startsWith("__") ? "rt" + function : function;
    try {
      return Api.valueOf(enumName);
    } catch (IllegalArgumentException e) {
      return Api.API_OTHER;
    }
  }
}
