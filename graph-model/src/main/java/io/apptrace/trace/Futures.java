package io.apptrace.trace;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/** The result of work a reader handed to one of its threads, with that work's own exception. */
final class Futures {
  private Futures() {}

  /**
   * Waits for {@code f}; throws what the work threw (an IOException, a RuntimeException or an
   * Error) as if it had run on this thread.
   */
  static <T> T await(Future<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading the trace");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException x) {
        throw x;
      }
      if (cause instanceof RuntimeException x) {
        throw x;
      }
      if (cause instanceof Error x) {
        throw x;
      }
      throw new IOException(cause);
    }
  }
}
