package io.apptrace.stats;

/**
 * One thread of a traced process.
 *
 * @param tid kernel thread id
 * @param name the thread's name when it started (may be empty)
 * @param counts what it did
 */
public record ThreadStats(int tid, String name, Counts counts) {}
