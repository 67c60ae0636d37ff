package io.apptrace.imports;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Reading done on a thread of its own, a few batches ahead of the thread that uses what was read,
 * behind a pull API: {@link #next} gives the batches in the order they were filled, and
 * {@link #recycle} hands each back to be filled again. The batches are made by the caller and
 * reused, so they bound the memory the reading ahead takes. A failure of the reading reaches the
 * consumer after every batch filled before it, including the part of a batch filled before the
 * failure, as it would without the second thread; {@link #close} stops the reading thread and
 * waits for it.
 *
 * <p>The importers use it where reading the source is most of an import and the rest can run
 * beside it on a second core (docs/BENCHMARKS.md): tokenizing a Kineto file, and stepping an
 * SQLite query.
 *
 * @param <B> a batch
 * @param <X> the checked exception the reading may throw
 */
final class ReadAhead<B, X extends Exception> implements AutoCloseable {
  /** Fills batches, on the reading thread. */
  interface Producer<B, X extends Exception> {
    /**
     * Fills {@code batch}, which the consumer has read, with what comes next.
     *
     * @return false when nothing follows what is now in the batch
     * @throws X when the reading fails; what the batch holds by then is still delivered, then this
     */
    boolean fill(B batch) throws X;
  }

  /** What ended the reading: null for the end of what was read. */
  private record End(Throwable failure) {}

  private final BlockingQueue<Object> full;
  private final BlockingQueue<B> free;
  private final Thread thread;
  private boolean ended;

  /**
   * Starts reading.
   *
   * @param threadName the reading thread's name
   * @param batches the batches to fill, in turn (at least one)
   */
  ReadAhead(String threadName, List<B> batches, Producer<B, X> producer) {
    if (batches.isEmpty()) {
      throw new IllegalArgumentException("no batch to fill");
    }
    full = new ArrayBlockingQueue<>(batches.size() + 1);
    free = new ArrayBlockingQueue<>(batches.size());
    free.addAll(batches);
    thread = new Thread(() -> read(producer), threadName);
    thread.setDaemon(true);
    thread.start();
  }

  private void read(Producer<B, X> producer) {
    try {
      while (true) {
        B b = free.take();
        boolean more;
        try {
          more = producer.fill(b);
        } catch (Exception | Error e) {
          full.put(b);
          full.put(new End(e));
          return;
        }
        full.put(b);
        if (!more) {
          full.put(new End(null));
          return;
        }
      }
    } catch (InterruptedException e) {
      // the consumer closed this
    }
  }

  /**
   * The next batch, or null after the last (the last may hold nothing); give it back with
   * {@link #recycle} once read.
   *
   * @throws X the reading's failure, after every batch filled before it
   * @throws InterruptedException when this thread is interrupted while it waits
   */
  @SuppressWarnings("unchecked")
  B next() throws X, InterruptedException {
    if (ended) {
      return null;
    }
    Object o = full.take();
    if (!(o instanceof End end)) {
      return (B) o;
    }
    ended = true;
    thread.join();
    Throwable f = end.failure();
    if (f == null) {
      return null;
    } else if (f instanceof RuntimeException r) {
      throw r;
    } else if (f instanceof Error e) {
      throw e;
    }
    throw (X) f; // fill() throws nothing else
  }

  /** A batch read, to be filled again. */
  void recycle(B batch) {
    free.add(batch);
  }

  /** Stops the reading (at its next batch at the latest) and waits for its thread to end. */
  @Override
  public void close() {
    thread.interrupt();
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
