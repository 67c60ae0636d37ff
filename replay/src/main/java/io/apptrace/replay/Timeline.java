package io.apptrace.replay;

import java.util.List;

/**
 * What a replay ran, as the replay left it: every operation's and call's times and causes, the
 * engines' names, the measured dispatch delays, the links' utilization, the notes of pricing, and
 * the number of events run. {@link ReplayResult} reads its makespan, critical path and breakdown
 * from it.
 */
record Timeline(ReplayProgram program, OpTable ops, String[] engineNames, int[] callBase, double[] callStart,
    double[] callEnd, int[] callEndCause, double[] dispatchDelay, Links links, List<String> notes, long events,
    Dependencies dependencies, int[][] callTargets, double[] callOwnEnd) {}
