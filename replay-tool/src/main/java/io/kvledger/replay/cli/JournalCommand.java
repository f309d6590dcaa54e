package io.kvledger.replay.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * What every command that reads one journal shares: the {@code JOURNAL} parameter, the output streams and the
 * {@link JournalInput} reading policy.
 */
abstract class JournalCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "JOURNAL", description = "Journal directory (a Chronicle queue).")
    Path journal;

    /**
     * @return standard output of this command.
     */
    PrintWriter out()
    {
        return spec.commandLine().getOut();
    }

    /**
     * @return standard error of this command.
     */
    PrintWriter err()
    {
        return spec.commandLine().getErr();
    }

    /**
     * @return a reader of the journal given on the command line.
     */
    JournalInput input()
    {
        return new JournalInput(journal, err());
    }

    /**
     * A title for reports: the journal's label, or its path when it has none.
     *
     * @param label the header's label.
     * @return the title.
     */
    String title(final String label)
    {
        return null == label || label.isEmpty() ? journal.toString() : label;
    }
}
