#!/usr/bin/env python3
"""Regenerates the CUDA runtime API tables from the installed CUDA toolkit.

Run it when the toolkit changes (it is not part of the build; its outputs are committed):

    python3 tracer-native/tools/gen_api.py [CUDA_HOME]

Inputs:  the exported symbols of $CUDA_HOME/lib64/libcudart.so.<N> and the parameter structs in
         $CUDA_HOME/include/generated_cuda_runtime_api_meta.h (the toolkit's own description of
         every runtime function's parameters).
Outputs: proto/src/main/proto/apptrace/api.proto   the Api enum; numbers are stable: existing
                                                    names keep theirs, new names are appended
         tracer-native/src/generated/api_ids.h      the same numbers for C
         tracer-native/src/generated/cudart_exports.h  X-macro of every exported name
         tracer-native/src/generated/generic_hooks.c   a pass-through hook for every function
                                                    that has no hand-written hook
         tracer-native/src/generated/schema.h       field and enum numbers of apptrace.proto
                                                    for the C encoder (SchemaHeaderTest checks
                                                    them against the Java classes)
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUDA_HOME", "/usr/local/cuda")
PROTO = os.path.join(ROOT, "proto/src/main/proto/apptrace/api.proto")
GEN = os.path.join(ROOT, "tracer-native/src/generated")
HAND = os.path.join(ROOT, "tracer-native/src/interposer")

# Names older runtimes exported that imported traces (nvprof, nsys) still show.
LEGACY = ["cudaLaunch", "cudaConfigureCall", "cudaSetupArgument", "cudaThreadSynchronize",
          "cudaThreadExit", "cudaBindTexture", "cudaUnbindTexture", "cudaMemcpyToArray"]

def exports():
    lib = os.path.join(CUDA, "lib64")
    so = sorted(f for f in os.listdir(lib) if re.fullmatch(r"libcudart\.so\.\d+", f))[-1]
    out = subprocess.run(["nm", "-D", "--defined-only", os.path.join(lib, so)],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        sym = line.split()[-1].split("@")[0]
        if sym.startswith("cuda") or sym.startswith("__cuda"):
            names.add(sym)
    return so, sorted(names)

def meta_params():
    src = open(os.path.join(CUDA, "include/generated_cuda_runtime_api_meta.h")).read()
    params = {}
    for m in re.finditer(r"typedef struct (\w+?)_v\d+_params_st \{(.*?)\}", src, re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = " ".join(decl.split())
            if decl:
                fields.append(decl)
        params[m.group(1)] = fields
    return params

def header_params():
    """Parameter lists of functions declared in cuda_runtime_api.h (for those without meta)."""
    src = "".join(open(os.path.join(CUDA, "include", h)).read()
                  for h in ("cuda_runtime_api.h", "cuda_profiler_api.h"))
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    params = {}
    for m in re.finditer(r"\bCUDARTAPI\s+(\w+)\s*\(([^;{}]*?)\)\s*;", src, re.S):
        text = " ".join(m.group(2).split())
        text = re.sub(r"__dv\([^)]*\)", "", text)
        fields = [] if text in ("", "void") else [f.strip() for f in text.split(",")]
        params.setdefault(m.group(1), fields)
    return params

def return_types():
    src = open(os.path.join(CUDA, "include/cuda_runtime_api.h")).read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    types = {}
    for m in re.finditer(r"extern\s+([^;{}]*?)\bCUDARTAPI\s+(\w+)\s*\(", src):
        ret = re.sub(r"__\w+__|__CUDA_DEPRECATED|CUDART_CB", "", m.group(1))
        types.setdefault(m.group(2), " ".join(ret.split()))
    return types

def param_name(decl):
    return re.search(r"(\w+)\s*(\[[^\]]*\])?$", decl).group(1)

def hand_hooked():
    """Functions with a hand-written hook: every line of src/interposer/*.c that starts with
    APPTRACE_HOOK(name or another *_HOOK(name macro (hooks defined several at a time)."""
    names = set()
    for f in os.listdir(HAND):
        if f.endswith(".c"):
            text = open(os.path.join(HAND, f)).read()
            names.update(re.findall(r"^[A-Z0-9_]*HOOK\((\w+)", text, re.M))
    return names

def enum_name(fn):
    return "rt" + fn if fn.startswith("__") else fn

def fn_name(enum):
    return enum[2:] if enum.startswith("rt__") else enum

def stable_ids(names):
    ids = {"API_UNSPECIFIED": 0, "API_OTHER": 1}
    if os.path.exists(PROTO):
        for m in re.finditer(r"^\s+(\w+) = (\d+);", open(PROTO).read(), re.M):
            ids[fn_name(m.group(1))] = int(m.group(2))
    nxt = max(ids.values(), default=1) + 1
    for n in names:
        if n not in ids:
            ids[n] = nxt
            nxt += 1
    return ids

def schema_header():
    src = open(os.path.join(ROOT, "proto/src/main/proto/apptrace/apptrace.proto")).read()
    src = re.sub(r"//[^\n]*", "", src)
    out = ["/* Generated by tools/gen_api.py from apptrace.proto: field numbers (PB_<Message>_<field>)",
           "   and enum values (PB_<Enum>_<VALUE>) for the C encoder. */", "#pragma once"]
    for kind, name, body in re.findall(r"\b(message|enum)\s+(\w+)\s*\{(.*?)\n\}", src, re.S):
        for m in re.finditer(r"(?:^|;|\{)\s*(?:repeated\s+|optional\s+)?(?:[\w.]+\s+)?(\w+)\s*=\s*(\d+)\s*;", body, re.M):
            out.append("#define PB_%s_%s %s" % (name, m.group(1), m.group(2)))
    with open(os.path.join(GEN, "schema.h"), "w") as f:
        f.write("\n".join(out) + "\n")

def main():
    schema_header()
    so, names = exports()
    ids = stable_ids(names + LEGACY)
    order = sorted(ids.items(), key=lambda kv: kv[1])
    with open(PROTO, "w") as f:
        f.write("// Generated by tracer-native/tools/gen_api.py from %s; numbers are stable.\n" % so)
        f.write('syntax = "proto3";\n\npackage apptrace;\n\n')
        f.write('option java_package = "io.apptrace.proto";\noption java_multiple_files = true;\n\n')
        f.write("// Every function of the CUDA runtime, by the name it is called at the library boundary.\n")
        f.write("// API_OTHER: a call whose name is in Event.api_name (imported traces, driver API).\n")
        f.write("// The runtime's internal entry points (__cudaLaunchKernel, ...) are spelled rt__cuda...:\n")
        f.write("// protoc rejects enum values that differ only by underscores and case.\n")
        f.write("enum Api {\n")

        for n, i in order:
            f.write("  %s = %d;\n" % (enum_name(n), i))
        f.write("}\n")
    with open(os.path.join(GEN, "api_ids.h"), "w") as f:
        f.write("/* Generated by tools/gen_api.py: Api enum numbers of proto/.../api.proto. */\n")
        f.write("#pragma once\n")
        for n, i in order:
            f.write("#define APPTRACE_API_%s %d\n" % (n, i))
    with open(os.path.join(GEN, "cudart_exports.h"), "w") as f:
        f.write("/* Generated by tools/gen_api.py: every name %s exports. */\n" % so)
        for n in names:
            f.write("CUDART_EXPORT(%s)\n" % n)
    params, rets, hand = meta_params(), return_types(), hand_hooked()
    declared = header_params()
    with open(os.path.join(GEN, "generic_hooks.c"), "w") as f:
        f.write("/* Generated by tools/gen_api.py: pass-through hooks that record the call (name,\n")
        f.write("   entry and exit time, result, call site) for every runtime function without a\n")
        f.write("   hand-written hook in src/interposer. Parameter lists come from the toolkit's\n")
        f.write("   generated_cuda_runtime_api_meta.h. */\n")
        f.write('#include "hook.h"\n\n')
        f.write("/* Deprecated functions are still called by programs, so they are hooked too. */\n")
        f.write('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n')
        skipped = []
        for n in names:
            if n in hand or n.startswith("__cuda"):
                continue
            if n in params:
                fields = params[n]
            elif n in declared:
                fields = declared[n]
            else:
                skipped.append(n)
                continue
            base = re.sub(r"_(ptsz|ptds)$", "", n)
            ret = rets.get(n) or rets.get(base) or "cudaError_t"
            proto = ", ".join(fields) if fields else "void"
            args = ", ".join(param_name(d) for d in fields)
            if ret == "cudaError_t":
                f.write("APPTRACE_GENERIC_HOOK(%s, (%s), (%s))\n" % (n, proto, args))
            else:
                f.write("APPTRACE_GENERIC_HOOK_RET(%s, %s, (%s), (%s))\n" % (ret, n, proto, args))
        f.write("\n/* Not hooked (graphics interop; their prototypes need GL/EGL/VDPAU headers):\n")
        for n in skipped:
            f.write("   %s\n" % n)
        f.write("*/\n")

main()
