package io.kvledger.replay.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command's help ends with the exit codes a script can rely on (0 done or clean, 1 what the command looks for
 * was found, 2 bad input or usage), as the top command's does.
 */
class HelpFooterTest
{
    @Test
    void shouldListTheExitCodesInEveryCommandsHelp()
    {
        final CommandLine top = KvledgerMain.commandLine(new PrintWriter(new StringWriter()),
            new PrintWriter(new StringWriter()));
        assertTrue(top.getUsageMessage().contains("Exit codes:"), "kvledger --help");
        final Map<String, CommandLine> commands = top.getSubcommands();
        assertFalse(commands.isEmpty());
        for (final Map.Entry<String, CommandLine> command : commands.entrySet())
        {
            if ("help".equals(command.getKey()))
            {
                continue;
            }
            final String usage = command.getValue().getUsageMessage().replaceAll("\\s+", " ");
            assertTrue(usage.contains("Exit codes: 0 "), "kvledger " + command.getKey() + " --help:\n" + usage);
            assertTrue(usage.contains(" 2 bad input") || usage.contains(" 2 unknown"),
                "kvledger " + command.getKey() + " --help names exit code 2:\n" + usage);
        }
    }
}
