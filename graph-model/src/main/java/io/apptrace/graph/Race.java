package io.apptrace.graph;

/**
 * An operation that read a value written in another stream, with no event or synchronization
 * ordering the write before the read: on a GPU the read may see the old contents.
 *
 * @param writer the operation that produced the value
 * @param reader the operation that read it
 * @param value the value
 */
public record Race(int writer, int reader, int value) {}
