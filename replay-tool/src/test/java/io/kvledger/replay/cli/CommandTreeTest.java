package io.kvledger.replay.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A command line whose first argument names a subcommand registers that subcommand alone (picocli's reflection over
 * every command is most of the start-up); it must parse, help and fail exactly as the whole tree does.
 */
class CommandTreeTest
{
    @Test
    void shouldRegisterOnlyTheNamedSubcommandAndTheWholeTreeOtherwise()
    {
        final List<String> names = new ArrayList<>(whole().getSubcommands().keySet());
        assertTrue(names.size() > 10, names.toString());
        for (final String name : names)
        {
            final CommandLine tree = tree(name);
            if ("help".equals(name))
            {
                assertEquals(names, new ArrayList<>(tree.getSubcommands().keySet()), "help needs every command");
            }
            else
            {
                assertEquals(List.of(name), new ArrayList<>(tree.getSubcommands().keySet()), name);
            }
        }
        for (final String other : new String[] {"chek", "--help", "-V", "--verbose", "", "CHECK"})
        {
            assertEquals(names, new ArrayList<>(tree(other).getSubcommands().keySet()), other);
        }
    }

    @Test
    void shouldHelpAndFailTheSameInTheOneCommandTreeAsInTheWholeOne()
    {
        for (final String name : whole().getSubcommands().keySet())
        {
            if ("help".equals(name))
            {
                continue;
            }
            assertEquals(run(null, name, "--help"), run(name, name, "--help"), name + " --help");
            assertEquals(run(null, name, "--no-such-flag"), run(name, name, "--no-such-flag"),
                name + " --no-such-flag");
        }
    }

    private static CommandLine whole()
    {
        return KvledgerMain.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    }

    private static CommandLine tree(final String first)
    {
        return KvledgerMain.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
            first);
    }

    private static String run(final String first, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exit = KvledgerMain.commandLine(new PrintWriter(out, true), new PrintWriter(err, true), first)
            .execute(args);
        return exit + "\n" + out + "\n" + err;
    }
}
