/**
 * {@code apptrace calibrate}: microbenchmarks that call the CUDA runtime in-process through JNA and
 * time copies with CUDA events (seeds 002 Listing 2.4, ch. 4-5), the fits of the LogGP parameters
 * L+o, G and g to their times (MODEL.md sec. 2, seeds 001 sec. V-A), and the node file and CSV they
 * are written to (docs/CALIBRATE.md).
 */
package io.apptrace.calibrate;
