package io.apptrace.imports;

import io.apptrace.proto.Batch;
import io.apptrace.trace.TraceWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Serializes and writes batches on a thread of its own, so the importer's joining and the encoding
 * of its output run on two cores. At most {@link #DEPTH} batches wait in between, which bounds the
 * memory it holds. A write that fails is reported by the next {@link #put} or by {@link #close}.
 */
final class BatchPipe implements Closeable {
  /** Batches that may wait for the writer. */
  static final int DEPTH = 16;

  private static final Batch END = Batch.getDefaultInstance();

  private final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(DEPTH);
  private final Thread thread;
  private volatile IOException failure;
  private boolean closed;

  BatchPipe(TraceWriter out) {
    thread = new Thread(() -> drain(out), "apptrace-import-writer");
    thread.setDaemon(true);
    thread.start();
  }

  private void drain(TraceWriter out) {
    try {
      for (Batch b = queue.take(); b != END; b = queue.take()) {
        if (failure == null) {
          try {
            out.writeBatch(b);
          } catch (IOException e) {
            failure = e; // keep taking, so that put() never blocks on a dead writer
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Hands a batch to the writer; blocks while {@link #DEPTH} batches wait. */
  void put(Batch b) throws IOException {
    rethrow();
    try {
      queue.put(b);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing the trace");
    }
  }

  private void rethrow() throws IOException {
    IOException f = failure;
    if (f != null) {
      throw new IOException(f.getMessage(), f);
    }
  }

  /** Waits until every batch handed over is written, then reports a failed write. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      queue.put(END);
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing the trace");
    }
    rethrow();
  }
}
