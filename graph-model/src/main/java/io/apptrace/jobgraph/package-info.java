/**
 * The dynamic value dependence graph of an MPI job (docs/JOBS.md, "The DVDG of a job"): each
 * rank's graph, joined by the job's MPI messages and collectives and its NCCL sends, receives and
 * collectives, each an operation that reads the values in its send buffers and writes new versions
 * of the values in its receive buffers.
 */
package io.apptrace.jobgraph;
