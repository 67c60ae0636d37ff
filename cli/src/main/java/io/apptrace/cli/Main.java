package io.apptrace.cli;

import io.apptrace.trace.Version;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/** The {@code apptrace} command. */
@Command(
    name = "apptrace",
    mixinStandardHelpOptions = true,
    // --help and --version reach every subcommand from here: built once, not by reflection on
    // each command (startup, docs/BENCHMARKS.md)
    scope = CommandLine.ScopeType.INHERIT,
    versionProvider = Main.VersionProvider.class,
    description =
        "Records what an unmodified CUDA application does with memory and kernels, builds its"
            + " dynamic value dependence graph, and replays it on a model of another node.")
public final class Main {
  /**
   * The subcommands, in the order help lists them. Picocli builds a command's model by
   * reflection, which costs tens of milliseconds each: a command line that names one builds only
   * that one (startup is part of {@code apptrace model}'s budget, docs/BENCHMARKS.md).
   */
  private static final java.util.List<String> COMMANDS = java.util.List.of("help", "run", "import", "stats", "graph",
      "replay", "report", "nodes", "gpus", "model", "topo", "validate", "calibrate", "dump", "demo");

  private static Object command(String name) {
    return switch (name) {
      case "help" -> new HelpCommand();
      case "run" -> new RunCommand();
      case "import" -> new ImportCommand();
      case "stats" -> new StatsCommand();
      case "graph" -> new GraphCommand();
      case "replay" -> new ReplayCommand();
      case "report" -> new ReportCommand();
      case "nodes" -> new NodesCommand();
      case "gpus" -> new GpusCommand();
      case "model" -> new ModelCommand();
      case "topo" -> new TopoCommand();
      case "validate" -> new ValidateCommand();
      case "calibrate" -> new CalibrateCommand();
      case "dump" -> new DumpCommand();
      case "demo" -> new DemoCommand();
      default -> throw new IllegalArgumentException(name);
    };
  }

  public static void main(String[] args) {
    long entered = System.nanoTime();
    // Startup (apptrace model's budget, docs/BENCHMARKS.md): no Groovy closures in our
    // annotations, which spares picocli a class-path search for Groovy; and no options of the
    // java.sql and java.time types, whose converters picocli would otherwise look up by reflection.
    if (System.getProperty("picocli.disable.closures") == null) {
      System.setProperty("picocli.disable.closures", "true");
    }
    if (System.getProperty("picocli.converters.excludes") == null) {
      System.setProperty("picocli.converters.excludes", "java\\.sql\\..*,java\\.time\\..*");
    }
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    int code = run(args, out, err);
    // a PrintWriter keeps a failed write to itself: a full disk or a closed pipe under stdout must
    // not end in exit 0 with the output lost
    if (out.checkError() || System.out.checkError()) {
      String cmd = args.length > 0 && COMMANDS.contains(args[0]) ? "apptrace " + args[0] : "apptrace";
      err.println(cmd + ": cannot write to standard output (a full disk, or a closed pipe): what was printed is"
          + " incomplete");
      code = code == ExitCodes.OK ? ExitCodes.BAD_INPUT : code;
    }
    if (Boolean.getBoolean("apptrace.startup.report")) {
      // for the startup benchmark (docs/BENCHMARKS.md): milliseconds since the JVM started
      long inMain = (System.nanoTime() - entered) / 1_000_000;
      System.err.println("apptrace: done " + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()
          + " ms after the JVM started, " + inMain + " ms after main() was entered");
    }
    System.exit(code);
  }

  /** Runs a command line with the given output streams; returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    String only = args.length > 0 && !args[0].equals("help") && COMMANDS.contains(args[0]) ? args[0] : null;
    return commandLine(out, err, only).execute(args);
  }

  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    return commandLine(out, err, null);
  }

  /** The command line with every subcommand, or with only {@code only} when it is not null. */
  static CommandLine commandLine(PrintWriter out, PrintWriter err, String only) {
    CommandLine cl = new CommandLine(new Main());
    for (String name : COMMANDS) {
      if (only == null || only.equals(name)) {
        cl.addSubcommand(name, command(name));
      }
    }
    cl.setOut(out);
    cl.setErr(err);
    cl.setExecutionExceptionHandler(Main::onException);
    cl.setParameterExceptionHandler(Main::onBadUsage);
    // Everything after the program's name belongs to the program: `apptrace run ./app -v`.
    CommandLine run = cl.getSubcommands().get("run");
    if (run != null) {
      run.setStopAtPositional(true);
    }
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
    e.printStackTrace(err); // with its causes and suppressed exceptions, each with its own stack
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getStackTrace().length == 0) {
        // the JDK's internal exceptions (sun.nio.fs.UnixException) override fillInStackTrace
        err.println(cmd + ": " + t.getClass().getName() + " carries no stack trace of its own: it is one of the"
            + " JDK's internal exceptions, which escaped untranslated"
            + (t == e ? "; nothing above says where it arose" : "; the exception it caused says where"));
        break;
      }
    }
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
