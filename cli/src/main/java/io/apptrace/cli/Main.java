package io.apptrace.cli;

import io.apptrace.capture.Version;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/** The {@code apptrace} command. */
@Command(
    name = "apptrace",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = {
      "Records what an unmodified CUDA application does with memory and kernels, builds its",
      "dynamic value dependence graph, and replays it on a model of another node."
    },
    subcommands = {
      HelpCommand.class, RunCommand.class, StatsCommand.class, GraphCommand.class, DumpCommand.class,
      DemoCommand.class
    })
public final class Main {
  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs a command line with the given output streams; returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    return commandLine(out, err).execute(args);
  }

  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine cl = new CommandLine(new Main());
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(Main::onException);
    cl.setParameterExceptionHandler(Main::onBadUsage);
    // Everything after the program's name belongs to the program: `apptrace run ./app -v`.
    cl.getSubcommands().get("run").setStopAtPositional(true);
    return cl;
  }

  private static int onException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    PrintWriter err = cl.getErr();
    String cmd = qualifiedName(cl);
    if (e instanceof UserException u) {
      err.println(cmd + ": " + u.getMessage());
      return u.exitCode();
    }
    err.println(cmd + ": internal error: " + e);
    e.printStackTrace(err);
    err.flush();
    return ExitCodes.INTERNAL;
  }

  private static int onBadUsage(CommandLine.ParameterException e, String[] args) {
    CommandLine cl = e.getCommandLine();
    PrintWriter err = cl.getErr();
    err.println(qualifiedName(cl) + ": " + e.getMessage());
    cl.usage(err);
    return ExitCodes.BAD_USAGE;
  }

  static String qualifiedName(CommandLine cl) {
    String name = cl.getCommandName();
    return cl.getParent() == null ? name : qualifiedName(cl.getParent()) + " " + name;
  }

  /** Prints the version. */
  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"apptrace " + Version.VERSION};
    }
  }
}
