/**
 * Capture: starting a program under the interposer (libapptrace.so), receiving what it sends over
 * a private UNIX socket, and writing the trace file as events arrive.
 */
package io.apptrace.capture;
