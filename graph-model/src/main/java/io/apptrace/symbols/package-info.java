/**
 * Symbolizing call sites: turning the return addresses a trace records into function names and,
 * when debug information exists, source file and line, using the process's {@code ModuleMap}
 * records. GNU {@code addr2line} does the work when it is installed; otherwise the ELF symbol
 * tables supply function names. The same binaries give the graph its kernels' PTX
 * ({@link io.apptrace.symbols.PtxSources}: the fat binaries of their {@code .nv_fatbin} section).
 */
package io.apptrace.symbols;
