/**
 * The dynamic value dependence graph (DVDG) of Pearson 2018, sec. 6.3: values are memory regions in
 * versions, operations (copies, memsets, kernel launches) consume and produce them. Built from a
 * trace by {@link io.apptrace.graph.DvdgBuilder}, published as an immutable
 * {@link io.apptrace.graph.Dvdg} with a JGraphT view, exported to GraphML, DOT and JSON.
 */
package io.apptrace.graph;
