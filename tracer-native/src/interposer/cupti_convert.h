/* CUPTI activity records to apptrace GpuActivity records. Pure: no CUPTI call, no global state,
 * so tests/native/test_cupti_convert.c checks it with synthetic records (no machine here has a
 * GPU to produce real ones). */
#ifndef APPTRACE_CUPTI_CONVERT_H
#define APPTRACE_CUPTI_CONVERT_H

#include <cupti_activity.h>

#include "encode.h"

/* Fills `out` from one activity record. Returns 1 for the kinds apptrace records (memcpy, peer
 * memcpy, memset, kernel and concurrent kernel), 0 for any other kind (ignored). Timestamps are
 * copied as CUPTI gave them (apptrace registers a CLOCK_MONOTONIC timestamp callback, so they
 * are in the process's clock when CUPTI honours it). `out->name` points into the record. */
int cupti_convert(const CUpti_Activity *record, enc_gpu *out);

/* CUpti_ActivityMemoryKind to apptrace.proto MemoryKind; CUpti_ActivityMemcpyKind to CopyKind. */
int cupti_memory_kind(uint8_t cupti_kind);
int cupti_copy_kind(uint8_t cupti_kind);

#endif
