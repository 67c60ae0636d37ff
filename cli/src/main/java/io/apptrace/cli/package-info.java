/**
 * The apptrace command line: one picocli command per verb. The only module that prints; the work
 * itself is done by graph-model and replay.
 */
package io.apptrace.cli;
