package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.JournalHeader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kvledger replay JOURNAL [--json]}: re-executes the recorded inputs on the current engine with the
 * journal's configuration and fault switches and compares the effects document by document. Exit 1 on the first
 * divergence.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
        "Re-execute the recorded inputs on the current engine and compare the effects.",
        "Uses the journal's configuration and fault switches, compares result codes and effects document by " +
            "document, and reports the first divergence, or \"identical\" with the final state hash."},
    footer = {"", "Exit codes: 0 identical, 1 divergence found, 2 bad input or usage."})
final class ReplayCommand extends JournalCommand
{
    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @Override
    public Integer call()
    {
        final Replayer replayer = new Replayer();
        final JournalHeader header;
        try (Progress progress = Progress.onTerminal(err(), json))
        {
            header = DocumentPipeline.read("replay", replayer,
                listener -> input().read(progress.documents("replay", listener)));
        }
        if (!EngineConfig.KVLEDGER_VERSION.equals(header.kvledgerVersion()))
        {
            err().println("warning: journal written by kvledger " + header.kvledgerVersion() +
                ", replaying on kvledger " + EngineConfig.KVLEDGER_VERSION);
        }

        final Replayer.Divergence divergence = replayer.divergence();
        final String stateHash = Replayer.hex(replayer.stateHash());
        if (json)
        {
            out().println(toJson(replayer.documents(), divergence, stateHash));
        }
        else if (null == divergence)
        {
            out().println("identical: " + replayer.documents() + " documents, stateHash " + stateHash);
        }
        else
        {
            out().println(divergence.describe());
            out().println("    input: " + divergence.input());
            out().println("    state hash after #" + replayer.applied() + ": " + stateHash);
        }
        out().flush();
        return null == divergence ? KvledgerMain.EXIT_CLEAN : KvledgerMain.EXIT_FOUND;
    }

    private static String toJson(final long documents, final Replayer.Divergence divergence, final String stateHash)
    {
        final ObjectNode root = Json.object();
        root.put("documents", documents);
        root.put("identical", null == divergence);
        root.put("stateHash", stateHash);
        if (null == divergence)
        {
            root.putNull("divergence");
        }
        else
        {
            root.putObject("divergence")
                .put("seq", divergence.sequence())
                .put("inputType", divergence.inputType())
                .put("input", divergence.input())
                .put("kind", divergence.kind())
                .put("effectIndex", divergence.effectIndex())
                .put("recorded", divergence.recorded())
                .put("replayed", divergence.replayed());
        }
        return Json.write(root);
    }
}
