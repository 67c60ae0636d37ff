#!/usr/bin/env python3
"""Regenerates the CUPTI callback-id tables the nvprof importer names API calls with.

Run it when the toolkit changes (it is not part of the build; its outputs are committed):

    python3 tracer-native/tools/gen_cbids.py [CUDA_HOME]

Inputs:  $CUDA_HOME/include/cupti_runtime_cbid.h   (CUpti_runtime_api_trace_cbid)
         $CUDA_HOME/include/cupti_driver_cbid.h    (CUpti_driver_api_trace_cbid)
Outputs: graph-model/src/main/resources/io/apptrace/imports/cupti_runtime_cbid.txt
         graph-model/src/main/resources/io/apptrace/imports/cupti_driver_cbid.txt
         one "cbid name" line per function, in cbid order.

nvprof stores an API call as the callback id of its function, not its name. Both enums are
append-only (new functions get new ids, old ids are never reused), so a recent toolkit's tables
name the calls of profiles any older nvprof wrote. Runtime names lose the CUDA-version suffix the
enum adds ("cudaMemcpy_v3020" -> "cudaMemcpy"; "cudaStreamGetCaptureInfo_v2_v11030" ->
"cudaStreamGetCaptureInfo_v2"); driver names are the exported symbols ("cuMemcpyHtoD_v2") and
stay as they are.
"""
import os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUDA_HOME", "/usr/local/cuda")
OUT = os.path.join(ROOT, "graph-model/src/main/resources/io/apptrace/imports")
NOT_FUNCTIONS = {"INVALID", "SIZE", "FORCE_INT"}


def cuda_version():
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", open(os.path.join(CUDA, "include/cuda.h")).read())
    v = int(m.group(1))
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def table(header, prefix, strip_version):
    src = open(os.path.join(CUDA, "include", header)).read()
    ids = {}
    for m in re.finditer(r"\b" + prefix + r"(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)", src):
        name, cbid = m.group(1), int(m.group(2), 0)
        if name in NOT_FUNCTIONS:
            continue
        if strip_version:
            name = re.sub(r"_v\d{4,}$", "", name)
        if cbid in ids:
            sys.exit("%s: callback id %d appears twice (%s, %s)" % (header, cbid, ids[cbid], name))
        ids[cbid] = name
    return ids


def write(name, header, what, ids, version):
    lines = ["# %s: CUPTI callback id -> function name, one \"cbid name\" a line." % what,
             "# Generated from include/%s of CUDA %s by" % (header, version),
             "#   python3 tracer-native/tools/gen_cbids.py [CUDA_HOME]",
             "# Do not edit: regenerate. The enum is append-only, so the ids of older toolkits mean the same."]
    lines += ["%d %s" % (cbid, fn) for cbid, fn in sorted(ids.items())]
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    version = cuda_version()
    os.makedirs(OUT, exist_ok=True)
    rt = table("cupti_runtime_cbid.h", "CUPTI_RUNTIME_TRACE_CBID_", True)
    drv = table("cupti_driver_cbid.h", "CUPTI_DRIVER_TRACE_CBID_", False)
    write("cupti_runtime_cbid.txt", "cupti_runtime_cbid.h", "CUDA runtime API", rt, version)
    write("cupti_driver_cbid.txt", "cupti_driver_cbid.h", "CUDA driver API", drv, version)
    print("CUDA %s: %d runtime and %d driver callback ids written to %s" % (version, len(rt), len(drv),
                                                                          os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
