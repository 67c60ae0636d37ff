package io.apptrace.capture;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The program {@code apptrace run} started: its pid, a way to signal it, and how it ended, from
 * {@code waitpid}'s status. A thread of its own waits for it: first without reaping it
 * ({@code waitid} with {@code WNOWAIT}), then, once no signal can be sent any more, reaping it;
 * so a signal never reaches another process that was given the pid again.
 */
public final class Program {
  private final int pid;
  private final Object lock = new Object();
  /** Guarded by {@link #lock}: set once the program has ended; it is reaped only after. */
  private boolean ended;
  private final CompletableFuture<ExitStatus> status = new CompletableFuture<>();

  Program(int pid) {
    this.pid = pid;
    Thread waiter = new Thread(this::awaitEnd, "apptrace-wait-" + pid);
    waiter.setDaemon(true);
    waiter.start();
  }

  public long pid() {
    return pid;
  }

  /**
   * Sends SIGTERM, unless the program has ended already. A program that may not be signalled (it
   * became another user's with setuid) is left alone.
   */
  public void terminate() {
    synchronized (lock) {
      if (ended) {
        return;
      }
      try {
        ProcessCalls.INSTANCE.kill(pid, ProcessCalls.SIGTERM);
      } catch (LastErrorException e) {
        // ESRCH (gone) or EPERM: nothing more to do
      }
    }
  }

  /**
   * How the program ended, if it ends within {@code millis}.
   *
   * @throws IOException if it could not be waited for (another part of this process reaped it)
   */
  public Optional<ExitStatus> waitFor(long millis) throws InterruptedException, IOException {
    try {
      return Optional.of(status.get(millis, TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (ExecutionException e) {
      throw new IOException("cannot wait for the program (pid " + pid + "): " + e.getCause().getMessage(),
          e.getCause());
    }
  }

  private void awaitEnd() {
    try {
      ProcessCalls c = ProcessCalls.INSTANCE;
      Memory info = new Memory(ProcessCalls.SIGINFO_BYTES);
      retrying(() -> c.waitid(ProcessCalls.P_PID, pid, info, ProcessCalls.WEXITED | ProcessCalls.WNOWAIT));
      synchronized (lock) {
        ended = true;
      }
      IntByReference wstatus = new IntByReference();
      retrying(() -> c.waitpid(pid, wstatus, 0));
      status.complete(ExitStatus.ofWaitStatus(wstatus.getValue()));
    } catch (RuntimeException | Error e) {
      status.completeExceptionally(e);
    }
  }

  private interface Call {
    int run();
  }

  private static void retrying(Call call) {
    while (true) {
      try {
        call.run();
        return;
      } catch (LastErrorException e) {
        if (e.getErrorCode() != ProcessCalls.EINTR) {
          throw e;
        }
      }
    }
  }
}
