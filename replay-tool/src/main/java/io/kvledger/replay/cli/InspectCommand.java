package io.kvledger.replay.cli;

import io.kvledger.replay.check.Inspector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvledger inspect JOURNAL --at SEQ [--json]}: the controller's state as the journal left it after a
 * document: tree shape, pool occupancy, in-flight operations and live requests.
 */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = "The state after document SEQ: tree shape, pool occupancy, in-flight operations, live requests.",
    footer = {"", "Exit codes: 0 done, 2 bad input or usage."})
final class InspectCommand extends JournalCommand
{
    @Option(names = "--at", paramLabel = "SEQ",
        description = "Last document folded (0: before the first one); default: the end of the journal.")
    Long at;

    @Option(names = "--json", description = "Print the state as JSON.")
    boolean json;

    @Override
    public Integer call()
    {
        if (null != at)
        {
            Flags.atLeast("--at", at, 0, "", "0 is the state before the first document");
        }
        final long atSequence = null == at ? Long.MAX_VALUE : at;
        final Inspector inspector = new Inspector(atSequence);
        final JournalInput input = input();
        input.read(inspector, 1, atSequence);
        final long documents = input.outcome().documents();
        if (documents < atSequence && null != at)
        {
            throw new CliException("--at " + at + ": the journal ends at document #" + documents);
        }
        out().print(json ? inspector.toJson() + System.lineSeparator() : inspector.toText());
        out().flush();
        return KvledgerMain.EXIT_CLEAN;
    }
}
