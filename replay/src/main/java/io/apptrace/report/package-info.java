/**
 * {@code apptrace report}: one self-contained HTML page of a replay on several nodes (the
 * makespans and critical-path breakdowns, each node's projected timeline beside the measured one,
 * the copies' bandwidth against the transfer model's curve, what-ifs and advice), drawn as SVG on
 * the JVM. The page's numbers are those of {@code replay --json}: its model reads them from that
 * document ({@link io.apptrace.replay.ReplayJson}).
 */
package io.apptrace.report;
