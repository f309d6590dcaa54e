package io.kvledger.replay.cli;

import io.kvledger.replay.check.JournalStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvledger stats JOURNAL [--json]}: counts per input and effect type, result codes, hit rates, defers,
 * drops, evictions and the journal's time span.
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = "Counts per input and effect type, result codes, hit rates, defer and drop counts, duration.",
    footer = {"", "Exit codes: 0 done, 2 bad input or usage."})
final class StatsCommand extends JournalCommand
{
    @Option(names = "--json", description = "Print the counts as JSON.")
    boolean json;

    @Override
    public Integer call()
    {
        final JournalStats stats = new JournalStats();
        input().read(stats);
        out().print(json ? stats.toJson() + System.lineSeparator() : stats.toText());
        out().flush();
        return KvledgerMain.EXIT_CLEAN;
    }
}
