package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.runtime.EngineStoppedException;
import io.kvledger.journal.JournalException;
import io.kvledger.journal.codec.DocumentDecoder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The {@code kvledger} command line: picocli's top command, the one place where subcommands are registered, and
 * the error policy every subcommand shares. Exit codes: {@link #EXIT_CLEAN} (0) clean or identical,
 * {@link #EXIT_FOUND} (1) violations or a divergence found, {@link #EXIT_BAD_INPUT} (2) bad input or usage. Errors
 * are one line on stderr; a stack trace is shown only with {@code --verbose}.
 */
@Command(
    name = "kvledger",
    mixinStandardHelpOptions = true,
    versionProvider = KvledgerMain.Version.class,
    description = "Check, replay and inspect the journal of the kvledger cache controller.",
    synopsisSubcommandLabel = "COMMAND",
    footer = {"", "Exit codes: 0 clean, 1 violations or divergence found, 2 bad input or usage."})
public final class KvledgerMain implements Callable<Integer>
{
    /** Exit code: the journal is clean, the replay identical, the command done. */
    public static final int EXIT_CLEAN = 0;

    /** Exit code: invariant violations or a replay divergence found. */
    public static final int EXIT_FOUND = 1;

    /** Exit code: bad input (missing, empty or corrupt journal) or bad usage. */
    public static final int EXIT_BAD_INPUT = 2;

    private static final String VERBOSE = "--verbose";

    @Spec
    private CommandSpec spec;

    @Option(names = VERBOSE, scope = ScopeType.INHERIT, description = "Show the stack trace of an error.")
    private boolean verbose;

    /** One subcommand: its class (for its names) and how to make it. */
    private record Subcommand(Class<?> type, Supplier<Object> factory)
    {
        boolean named(final String name)
        {
            final Command command = type.getAnnotation(Command.class);
            return null != command && (command.name().equals(name) || List.of(command.aliases()).contains(name));
        }
    }

    /** The subcommands, in the order {@code kvledger --help} lists them; the only place they are registered. */
    private static final List<Subcommand> SUBCOMMANDS = List.of(
        // Serving commands first, then the offline tools.
        new Subcommand(RunCommand.class, RunCommand::new),
        new Subcommand(DemoCommand.class, DemoCommand::new),
        new Subcommand(BenchCommand.class, BenchCommand::new),
        new Subcommand(CheckCommand.class, CheckCommand::new),
        new Subcommand(ReplayCommand.class, ReplayCommand::new),
        new Subcommand(CompareCommand.class, CompareCommand::new),
        new Subcommand(TimelineCommand.class, TimelineCommand::new),
        new Subcommand(InspectCommand.class, InspectCommand::new),
        new Subcommand(StatsCommand.class, StatsCommand::new),
        new Subcommand(StatCommand.class, StatCommand::new),
        new Subcommand(DumpCommand.class, DumpCommand::new),
        new Subcommand(ShrinkCommand.class, ShrinkCommand::new),
        new Subcommand(ExploreCommand.class, ExploreCommand::new),
        new Subcommand(FaultsCommand.class, FaultsCommand::new),
        new Subcommand(CommandLine.HelpCommand.class, CommandLine.HelpCommand::new));

    /**
     * Build the command tree with the shared error handling, writing to the given streams.
     *
     * @param out standard output.
     * @param err standard error.
     * @return the command line with every subcommand, ready to execute.
     */
    public static CommandLine commandLine(final PrintWriter out, final PrintWriter err)
    {
        return commandLine(out, err, null);
    }

    /**
     * Build the command tree for one invocation. picocli reads every registered command's options by reflection
     * before it parses (about 0.3 s for all of them on the 2-core VM), so when the first argument names a
     * subcommand exactly, only that one is registered: it parses, helps and fails exactly as in the whole tree.
     * Anything else (no command, an option, a misspelt or abbreviated name, {@code help}) gets the whole tree, whose
     * messages name every command.
     *
     * @param out   standard output.
     * @param err   standard error.
     * @param first the first argument, or null for the whole tree.
     * @return the command line, ready to execute.
     */
    static CommandLine commandLine(final PrintWriter out, final PrintWriter err, final String first)
    {
        Subcommand only = null;
        for (final Subcommand subcommand : SUBCOMMANDS)
        {
            if (null != first && subcommand.type() != CommandLine.HelpCommand.class && subcommand.named(first))
            {
                only = subcommand;
            }
        }
        final CommandLine commandLine = new CommandLine(new KvledgerMain());
        for (final Subcommand subcommand : SUBCOMMANDS)
        {
            if (null == only || only == subcommand)
            {
                commandLine.addSubcommand(subcommand.factory().get());
            }
        }
        // Every subcommand's help lists -V, --version (mixinStandardHelpOptions): it prints what kvledger --version
        // prints, instead of nothing.
        for (final CommandLine subcommand : commandLine.getSubcommands().values())
        {
            subcommand.getCommandSpec().versionProvider(new Version());
        }
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler(KvledgerMain::onParameterError);
        commandLine.setExecutionExceptionHandler(KvledgerMain::onExecutionError);
        return commandLine;
    }

    /**
     * Run one command in-process (tests and {@link #main}).
     *
     * @param out  standard output.
     * @param err  standard error.
     * @param args command-line arguments.
     * @return the exit code.
     */
    public static int execute(final PrintStream out, final PrintStream err, final String... args)
    {
        final PrintWriter outWriter = new PrintWriter(out, true, StandardCharsets.UTF_8);
        final PrintWriter errWriter = new PrintWriter(err, true, StandardCharsets.UTF_8);
        try
        {
            return commandLine(outWriter, errWriter, args.length > 0 ? args[0] : null).execute(args);
        }
        catch (final Throwable t)
        {
            // An Error escaping a command (a missing class in a trimmed runtime, out of memory): still one line.
            errWriter.println("kvledger: " + (t instanceof OutOfMemoryError ? outOfMemory(t) : t));
            if (java.util.Arrays.asList(args).contains(VERBOSE))
            {
                t.printStackTrace(errWriter);
            }
            return EXIT_BAD_INPUT;
        }
        finally
        {
            outWriter.flush();
            errWriter.flush();
        }
    }

    /**
     * An OutOfMemoryError in kvledger's words: what ran out, the heap this JVM had and how to give it more.
     *
     * @param error the error.
     * @return one line.
     */
    static String outOfMemory(final Throwable error)
    {
        final String message = error.getMessage();
        if (null != message && message.startsWith("Direct buffer memory"))
        {
            final long directMiB = Flags.maxDirectMemory() >> 20;
            return "out of memory (direct buffer memory, at most " + Flags.number(directMiB) + " MiB); run it " +
                "again with more, e.g. KVLEDGER_JAVA_OPTS=-XX:MaxDirectMemorySize=" +
                Math.max(1, directMiB * 4 >> 10) + "g";
        }
        final long maxMiB = Runtime.getRuntime().maxMemory() >> 20;
        return "out of memory (" + (null == message ? "Java heap space" : message) +
            ", with a heap of at most " + Flags.number(maxMiB) + " MiB); run it again with more, e.g. " +
            "KVLEDGER_JAVA_OPTS=-Xmx" + Math.max(1, maxMiB * 4 >> 10) + "g";
    }

    /**
     * Entry point of the {@code kvledger} launcher.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        quietLibraries(hasVerbose(args));
        LibraryWarmup.start();
        System.exit(execute(System.out, System.err, args));
    }

    /**
     * Without a command: one line naming the commands.
     *
     * @return {@link #EXIT_BAD_INPUT}.
     */
    @Override
    public Integer call()
    {
        spec.commandLine().getErr().println("kvledger: no command given; commands: " +
            String.join(", ", spec.subcommands().keySet()) + " (see kvledger --help)");
        return EXIT_BAD_INPUT;
    }

    private static int onParameterError(final ParameterException ex, final String[] args)
    {
        final CommandLine failed = ex.getCommandLine();
        final CommandSpec failedSpec = failed.getCommandSpec();
        final String name = failedSpec.qualifiedName();
        final List<String> given = java.util.Arrays.asList(args);
        String message = oneLine(ex.getMessage(), given);
        if (ex instanceof UnmatchedArgumentException unmatched)
        {
            final List<String> unmatchedArgs = unmatched.getUnmatched();
            final boolean topLevel = null == failedSpec.parent();
            if (topLevel && !unmatched.isUnknownOption() && !unmatchedArgs.isEmpty())
            {
                message = oneLine("unknown command '" + unmatchedArgs.get(0) + "'", given);
            }
            final List<String> suggestions = likely(unmatchedArgs, unmatched.getSuggestions());
            if (!suggestions.isEmpty())
            {
                message += "; did you mean " + String.join(" or ", suggestions) + "?";
            }
        }
        failed.getErr().println(name + ": " + message + " (see " + name + " --help)");
        if (hasVerbose(args))
        {
            ex.printStackTrace(failed.getErr());
        }
        return EXIT_BAD_INPUT;
    }

    /** Picocli's suggestions that start like the unmatched word (it also offers unrelated ones), at most 3. */
    private static List<String> likely(final List<String> unmatched, final List<String> suggestions)
    {
        final List<String> likely = new ArrayList<>();
        if (unmatched.isEmpty())
        {
            return likely;
        }
        final String word = stripDashes(unmatched.get(0)).toLowerCase(Locale.ROOT);
        for (final String suggestion : suggestions)
        {
            final String candidate = stripDashes(suggestion).toLowerCase(Locale.ROOT);
            if (!word.isEmpty() && !candidate.isEmpty() && word.charAt(0) == candidate.charAt(0) &&
                likely.size() < 3)
            {
                likely.add(suggestion);
            }
        }
        return likely;
    }

    private static String stripDashes(final String word)
    {
        int i = 0;
        while (i < word.length() && '-' == word.charAt(i))
        {
            i++;
        }
        return word.substring(i);
    }

    private static int onExecutionError(final Exception ex, final CommandLine failed, final ParseResult parseResult)
    {
        final PrintWriter err = failed.getErr();
        final String message = ex instanceof CliException ? ex.getMessage() : describe(ex);
        err.println("kvledger: " + oneLine(message, parseResult.originalArgs()));
        if (isVerbose(parseResult))
        {
            ex.printStackTrace(err);
        }
        return ex instanceof CliException cli ? cli.exitCode() : EXIT_BAD_INPUT;
    }

    private static String describe(final Throwable ex)
    {
        final String message = ex.getMessage();
        // the engine's stop and the journal's failures say what happened in their message; other exceptions are
        // named, as their message alone may not say what failed
        final boolean selfExplaining = ex instanceof EngineStoppedException || ex instanceof JournalException;
        final String text = null == message || message.isBlank() ? ex.getClass().getSimpleName() :
            selfExplaining ? message : ex.getClass().getSimpleName() + ": " + message;
        return text + " (run with --verbose for the stack trace)";
    }

    private static boolean isVerbose(final ParseResult parseResult)
    {
        for (ParseResult result = parseResult; null != result; result = result.subcommand())
        {
            if (result.hasMatchedOption(VERBOSE))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean hasVerbose(final String[] args)
    {
        for (final String arg : args)
        {
            if (VERBOSE.equals(arg))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * A message as one line: when an argument holds a line break (a path or a word may), the message most likely
     * quotes it, so every line break is shown escaped ({@code \n}) and the line keeps what follows it; otherwise
     * its first line.
     *
     * @param message possibly several lines, or null.
     * @param args    the command line.
     * @return one line.
     */
    static String oneLine(final String message, final List<String> args)
    {
        if (null != message)
        {
            for (final String arg : args)
            {
                if (null != arg && arg.chars().anyMatch(KvledgerMain::isLineBreak))
                {
                    return escapeLineBreaks(message.strip());
                }
            }
        }
        return firstLine(message);
    }

    private static String escapeLineBreaks(final String text)
    {
        final StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if ('\n' == c)
            {
                escaped.append("\\n");
            }
            else if ('\r' == c)
            {
                escaped.append("\\r");
            }
            else if (isLineBreak(c))
            {
                escaped.append(String.format(Locale.ROOT, "\\u%04x", (int)c));
            }
            else
            {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    /** The characters a line breaks at ({@code \R}: LF, VT, FF, CR, NEL, LS, PS). */
    private static boolean isLineBreak(final int c)
    {
        return '\n' == c || '\r' == c || 0x0B == c || 0x0C == c || 0x85 == c || 0x2028 == c || 0x2029 == c;
    }

    /**
     * The first line of a message, so an error is always one line.
     *
     * @param message possibly several lines, or null.
     * @return the first non-blank line, trimmed.
     */
    static String firstLine(final String message)
    {
        if (null == message)
        {
            return "";
        }
        for (final String line : message.split("\\R"))
        {
            if (!line.isBlank())
            {
                return line.trim();
            }
        }
        return "";
    }

    /**
     * Keep the libraries' own log lines off the command line's stderr, where every error is one line in kvledger's
     * words (Chronicle Queue logs warnings, some with a stack trace, about damaged queue files that the journal
     * reader classifies itself). Set before anything touches Chronicle, since slf4j-simple reads its level once;
     * with {@code --verbose} the libraries' warnings are shown.
     */
    private static void quietLibraries(final boolean verbose)
    {
        setIfAbsent("chronicle.analytics.disable", "true");
        setIfAbsent("chronicle.announcer.disable", "true");
        // Release mappings on the closing thread: a SIGBUS from a truncated queue file surfaces later as an
        // InternalError wherever the thread is, and one inside the shared background releaser's lock hangs every
        // later close (README, "The journal").
        setIfAbsent("background.releaser", "false");
        // A damaged metadata.cq4t header reads to Chronicle as a lock another process holds, which it waits out for
        // 10 s by default before every command's one-line answer; no journal here is shared for that long.
        setIfAbsent("chronicle.table.store.timeoutMS", "2000");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "warn" : "off");
    }

    private static void setIfAbsent(final String key, final String value)
    {
        if (null == System.getProperty(key))
        {
            System.setProperty(key, value);
        }
    }

    /** {@code kvledger --version}: the build and the journal schema it reads. */
    static final class Version implements CommandLine.IVersionProvider
    {
        @Override
        public String[] getVersion()
        {
            return new String[]{"kvledger " + EngineConfig.KVLEDGER_VERSION + " (journal schema " +
                DocumentDecoder.SCHEMA_ID + " version " + DocumentDecoder.SCHEMA_VERSION + ")"};
        }
    }
}
