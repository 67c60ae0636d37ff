/**
 * Importers: traces other profilers took (Nsight Systems and nvprof SQLite, Kineto JSON) turned
 * into apptrace traces by {@link io.apptrace.imports.Importer}. Each reader hands rows to an
 * {@code ImportAssembler}, which keeps them in sorted tables on disk ({@code ImportRows}), joins
 * them by correlation id ({@code CorrelationJoin}), places GPU work that has no traced call
 * ({@code OrphanPlacer}) and writes the trace ({@code TraceEmitter}).
 */
package io.apptrace.imports;
