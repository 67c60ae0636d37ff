/**
 * {@code apptrace topo}: what this machine is made of (sockets, NUMA nodes, the PCI tree, NVIDIA
 * GPUs and their NVLinks), read through hwloc and NVML over JNA or from Linux's /sys, and written
 * as a node file skeleton (docs/TOPO.md).
 */
package io.apptrace.topo;
