/**
 * Kernel times on a GPU other than the one they were measured on: the GPU's kernel class from its
 * name, the facts a trace may know of it ({@link io.apptrace.kernel.KernelFacts}), and the model
 * that re-times it between two catalogued GPUs ({@link io.apptrace.kernel.KernelTimeModel},
 * docs/COST-MODEL.md "Kernels on another GPU"), with the fitted coefficients it reads.
 */
package io.apptrace.kernel;
