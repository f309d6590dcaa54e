package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.OpTable;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Crash audit of a file L3 store against the journal of the run that wrote it: every object in the store must be
 * the key of a STORE operation whose decision the journal holds (the side effect never ran ahead of the journal).
 * The journal's inputs are re-applied to a fresh engine to learn each journaled STORE operation's keys (the journal
 * records its host slots, the op table its fingerprints).
 */
final class StoreJournalAudit implements JournalListener
{
    private final Set<String> journaledKeys = new HashSet<>();
    private CacheStateMachine engine;
    private long documents;
    private long storeOps;

    /**
     * The audit's outcome.
     *
     * @param outcome   how the journal read.
     * @param documents documents applied.
     * @param storeOps  STORE operations journaled.
     * @param keys      keys those operations write.
     * @param objects   objects in the store (finished files).
     * @param temps     temporary files left in the store.
     * @param strays    objects no journaled STORE decision accounts for.
     * @param launched  operations launched and not acked or failed after the last document.
     */
    record Result(ReadOutcome outcome, long documents, long storeOps, int keys, int objects, int temps,
        List<String> strays, int launched)
    {
        String describe()
        {
            return "journal " + outcome.status() + ", " + documents + " documents, " + storeOps + " STORE ops (" +
                keys + " keys); store: " + objects + " objects, " + temps + " temporary files, " + strays.size() +
                " not journaled" + (strays.isEmpty() ? "" : " (first " + strays.get(0) + ")") + "; " + launched +
                " ops launched and not completed";
        }
    }

    static Result audit(final Path journal, final Path store) throws IOException
    {
        final StoreJournalAudit audit = new StoreJournalAudit();
        final ReadOutcome outcome;
        try (JournalReader reader = JournalReader.open(journal))
        {
            outcome = reader.read(audit);
        }
        final List<String> strays = new ArrayList<>();
        int objects = 0;
        int temps = 0;
        if (Files.isDirectory(store))
        {
            try (Stream<Path> files = Files.walk(store))
            {
                for (final Path file : files.filter(Files::isRegularFile).toList())
                {
                    final String name = file.getFileName().toString();
                    if (name.endsWith(".page") || name.endsWith(".state"))
                    {
                        objects++;
                        final String key = (name.endsWith(".page") ? "kv/" : "mamba/") +
                            name.substring(0, name.indexOf('.'));
                        if (!audit.journaledKeys.contains(key))
                        {
                            strays.add(store.relativize(file).toString());
                        }
                    }
                    else
                    {
                        temps++;
                    }
                }
            }
        }
        return new Result(outcome, audit.documents, audit.storeOps, audit.journaledKeys.size(), objects, temps, strays,
            null == audit.engine ? 0 : audit.engine.launchedOps());
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        engine = Replayer.newEngine(header);
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        documents++;
        engine.apply(input);
        final OpTable ops = engine.ops();
        for (int i = 0; i < effects.size(); i++)
        {
            if (effects.type(i) == EffectType.OP_QUEUED && effects.opKind(i) == OpKind.STORE)
            {
                storeOps++;
                final int slot = ops.slotOf(effects.id(i));
                for (int m = 0; m < ops.moveCount(slot); m++)
                {
                    final String kind = ops.srcPool(slot, m) == Pool.HOST_MAMBA.value() ? "mamba/" : "kv/";
                    journaledKeys.add(kind + String.format("%016x%016x", ops.keyHi(slot, m), ops.keyLo(slot, m)));
                }
            }
        }
    }

    public static void main(final String[] args) throws IOException
    {
        final Result result = audit(Path.of(args[0]), Path.of(args[1]));
        System.out.println(result.describe());
        System.exit(result.strays().isEmpty() ? 0 : 1);
    }
}
