/** Growable arrays of primitives: the columns of large tables (operations, values) without boxing. */
package io.apptrace.util;
