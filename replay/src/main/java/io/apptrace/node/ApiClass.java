package io.apptrace.node;

import java.util.Locale;

/**
 * The classes of CUDA API calls whose own cost a node's host-overhead model prices
 * ({@link HostOverheads}; docs/REPLAY.md, "CUDA calls"). Calls that issue GPU work and calls that
 * block are priced elsewhere: an issue by the GPU's launch overhead, a wait by what it waits for
 * plus {@link #SYNC}'s own cost.
 */
public enum ApiClass {
  /** The first call of a process that needs a context: the driver creates it. */
  CONTEXT_CREATE("context_create", false),
  /** cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMallocArray, cuMemAlloc. */
  DEVICE_ALLOC("device_alloc", false),
  /** cudaFree, cudaFreeArray, cuMemFree (its wait for the device is priced apart). */
  DEVICE_FREE("device_free", false),
  /** cudaMallocManaged, cuMemAllocManaged. */
  MANAGED_ALLOC("managed_alloc", false),
  /** cudaHostAlloc, cudaMallocHost, cuMemHostAlloc: allocates and pins, per MiB. */
  HOST_ALLOC("host_alloc", true),
  /** cudaFreeHost, cuMemFreeHost: unpins and frees, per MiB. */
  HOST_FREE("host_free", true),
  /** cudaHostRegister, cuMemHostRegister: pins memory the program has, per MiB. */
  HOST_REGISTER("host_register", true),
  /** cudaHostUnregister, cuMemHostUnregister. */
  HOST_UNREGISTER("host_unregister", true),
  /** cudaStreamCreate and its variants. */
  STREAM_CREATE("stream_create", false),
  /** cudaStreamDestroy. */
  STREAM_DESTROY("stream_destroy", false),
  /** cudaEventCreate and its variants. */
  EVENT_CREATE("event_create", false),
  /** cudaEventDestroy. */
  EVENT_DESTROY("event_destroy", false),
  /** cudaEventRecord, cudaStreamWaitEvent: queue a marker or a wait, no work. */
  EVENT_RECORD("event_record", false),
  /**
   * cudaGraphLaunch: one launch of a whole executable graph, whatever its nodes (the nodes' own
   * launch overheads are not paid one by one).
   */
  GRAPH_LAUNCH("graph_launch", false),
  /** A blocking call's own cost, beside its wait (synchronizations, synchronous copies). */
  SYNC("sync", false),
  /** __cudaRegisterFatBinary, __cudaRegisterFunction, ...: the runtime's start-up bookkeeping. */
  MODULE("module_registration", false),
  /** Any other call: queries (cudaGetDevice, cudaGetLastError, ...), attribute setting. */
  OTHER("other", false);

  private final String key;
  private final boolean perMib;

  ApiClass(String key, boolean perMib) {
    this.key = key;
    this.perMib = perMib;
  }

  /** Its key in a node file's {@code host_overheads}. */
  public String key() {
    return key;
  }

  /** Whether its cost grows with the bytes the call allocates, frees or pins. */
  public boolean perMib() {
    return perMib;
  }

  /**
   * The class of a call by its API name as traces write it (runtime or driver API, with or
   * without the {@code _v3020}-style version suffix and the {@code _ptsz}/{@code _ptds} ones).
   */
  public static ApiClass of(String apiName) {
    String n = apiName.toLowerCase(Locale.ROOT);
    int v = n.indexOf("_v");
    if (v > 0 && v + 2 < n.length() && Character.isDigit(n.charAt(v + 2))) {
      n = n.substring(0, v);
    }
    if (n.startsWith("__cuda")) {
      return MODULE;
    }
    if (n.startsWith("cudamallocmanaged") || n.startsWith("cumemallocmanaged")) {
      return MANAGED_ALLOC;
    }
    if (n.startsWith("cudahostalloc") || n.startsWith("cudamallochost") || n.startsWith("cumemhostalloc")
        || n.startsWith("cumemallochost")) {
      return HOST_ALLOC;
    }
    if (n.startsWith("cudafreehost") || n.startsWith("cumemfreehost")) {
      return HOST_FREE;
    }
    if (n.startsWith("cudahostregister") || n.startsWith("cumemhostregister")) {
      return HOST_REGISTER;
    }
    if (n.startsWith("cudahostunregister") || n.startsWith("cumemhostunregister")) {
      return HOST_UNREGISTER;
    }
    if (n.startsWith("cudamallocasync") || n.startsWith("cudamallocfrompoolasync")
        || n.startsWith("cudafreeasync") || n.startsWith("cumemallocasync") || n.startsWith("cumemfreeasync")) {
      return OTHER; // stream-ordered: from a pool, no driver allocation on the call
    }
    if (n.startsWith("cudamalloc") || n.startsWith("cumemalloc")) {
      return DEVICE_ALLOC;
    }
    if (n.startsWith("cudafree") || n.startsWith("cumemfree")) {
      return DEVICE_FREE;
    }
    if (n.startsWith("cudastreamcreate") || n.startsWith("custreamcreate")) {
      return STREAM_CREATE;
    }
    if (n.startsWith("cudastreamdestroy") || n.startsWith("custreamdestroy")) {
      return STREAM_DESTROY;
    }
    if (n.startsWith("cudaeventcreate") || n.startsWith("cueventcreate")) {
      return EVENT_CREATE;
    }
    if (n.startsWith("cudaeventdestroy") || n.startsWith("cueventdestroy")) {
      return EVENT_DESTROY;
    }
    if (n.startsWith("cudaeventrecord") || n.startsWith("cueventrecord") || n.startsWith("cudastreamwaitevent")
        || n.startsWith("custreamwaitevent")) {
      return EVENT_RECORD;
    }
    if (n.startsWith("cudagraphlaunch") || n.startsWith("cugraphlaunch")) {
      return GRAPH_LAUNCH;
    }
    if (n.contains("synchronize") || n.startsWith("cudathreadsynchronize")) {
      return SYNC;
    }
    return OTHER;
  }

  /**
   * Whether a call, when it is a process's first such, is the one that creates the context: every
   * class but the runtime's start-up bookkeeping and plain queries, and cudaSetDevice (which
   * initializes the device's primary context since CUDA 12).
   */
  public static boolean createsContext(String apiName) {
    ApiClass c = of(apiName);
    return (c != MODULE && c != OTHER) || apiName.startsWith("cudaSetDevice") || apiName.startsWith("cuCtxCreate")
        || apiName.startsWith("cuDevicePrimaryCtxRetain");
  }

  /** The class named by a node file's key, if any. */
  public static java.util.Optional<ApiClass> byKey(String key) {
    for (ApiClass c : values()) {
      if (c.key.equals(key)) {
        return java.util.Optional.of(c);
      }
    }
    return java.util.Optional.empty();
  }
}
