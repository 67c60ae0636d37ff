/**
 * {@code apptrace calibrate}: microbenchmarks that call the CUDA runtime in-process through JNA and
 * time copies and memsets with CUDA events (Pearson 2018, Listing 2.4, ch. 4-5) and CUDA calls of each class
 * of the host-overhead model with the host clock, the fits of the LogGP parameters L+o, G and g to the
 * copies' times (docs/COST-MODEL.md; van Werkhoven et al. 2014, sec. V-A) and of each call's fixed cost and
 * cost per MiB, and the node file and CSV they are written to (docs/CALIBRATE.md).
 */
package io.apptrace.calibrate;
