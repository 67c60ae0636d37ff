/**
 * A job: the traces of an MPI job's ranks taken together (one trace per rank, docs/JOBS.md), the
 * messages that join them (each send matched to its receive as MPI matches them) and their
 * collectives.
 */
package io.apptrace.job;
