package io.kvledger.replay.cli;

import io.kvledger.replay.check.SlotTimeline;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvledger timeline JOURNAL --slot POOL:ID [--json]}: every effect that touched one slot, tree node or
 * request, with its owner (or state) after each.
 */
@Command(
    name = "timeline",
    mixinStandardHelpOptions = true,
    description = "Every effect that touched one slot, tree node or request, with the owner after each effect.",
    footer = {"", "Exit codes: 0 done, 2 bad input or usage (a slot outside its pool, a request or node the journal " +
        "does not hold)."})
final class TimelineCommand extends JournalCommand
{
    @Option(names = "--slot", required = true, paramLabel = "POOL:ID",
        description = "mamba:17, kv:3, host-kv:1, host-mamba:0, DEVICE_MAMBA:2, node:5 or request:28.")
    String slot;

    @Option(names = "--json", description = "Print the timeline as JSON.")
    boolean json;

    @Override
    public Integer call()
    {
        final SlotTimeline timeline;
        try
        {
            timeline = SlotTimeline.parse(slot);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException("bad --slot: " + ex.getMessage(), ex);
        }
        try
        {
            input().read(timeline);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new CliException("bad --slot: " + ex.getMessage(), ex);
        }
        if (timeline.unknownSubject())
        {
            // as a slot past its pool's capacity: a request or node id no effect names is a typo, not an empty story
            throw new CliException("bad --slot: " + timeline.subject() + " is not in the journal (no effect names it)");
        }
        out().print(json ? timeline.toJson() + System.lineSeparator() : timeline.toText());
        out().flush();
        return KvledgerMain.EXIT_CLEAN;
    }
}
