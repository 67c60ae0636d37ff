package io.apptrace.cost;

/** Which way a transfer's bytes go through a node (docs/COST-MODEL.md, "Each kind of transfer"). */
public enum TransferPath {
  /** Between a NUMA node's memory and a GPU, over the route between them. */
  HOST,
  /** Within one GPU's memory: no link. */
  DEVICE,
  /** From one GPU to another over the route between them (peer access). */
  PEER,
  /** From one GPU to another through a NUMA node's memory: down to it, then up from it. */
  STAGED,
  /** Unified-memory pages migrated by page faults, over the route between their two ends. */
  FAULT
}
