package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalPrinter;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvledger compare}: I20 across two journals (two tensor-parallel ranks' event logs).
 */
class CompareCommandTest
{
    @TempDir
    Path dir;

    @Test
    void shouldFindTwoRunsOfTheSameInputsTheSame()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final Path b = CliJournals.clean(dir.resolve("b"));

        final CliRun run = CliRun.kvledger("compare", a, b);

        assertEquals(KvledgerMain.EXIT_CLEAN, run.exitCode(), run.out() + run.err());
        assertEquals("same event log: " + documents(a).size() + " documents", run.out().strip());
    }

    @Test
    void shouldNameTheFirstDocumentWhereTwoRunsPart()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final WorkloadOptions other = CliJournals.workload(0);
        other.seed = CliJournals.SEED + 1;
        final Path b = CliJournals.write(dir.resolve("b"), "clean", CliJournals.config(), other);
        final long first = firstDifferentDocument(documents(a), documents(b));
        assertTrue(first > 0, "the two workloads must part somewhere");

        final CliRun run = CliRun.kvledger("compare", a, b);

        assertEquals(KvledgerMain.EXIT_FOUND, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().startsWith("difference at document #" + first + ": "), run.out());
        assertEquals(3, run.out().lines().count(), "the difference, then each journal's side: " + run.out());
    }

    @Test
    void shouldRefuseDifferentConfigurations()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final EngineConfig smaller = CliJournals.config().toBuilder().deviceMambaSlots(48).build();
        final Path b = CliJournals.write(dir.resolve("b"), "clean", smaller, CliJournals.workload(0));

        final CliRun run = CliRun.kvledger("compare", a, b);

        assertEquals(KvledgerMain.EXIT_FOUND, run.exitCode());
        assertTrue(run.out().startsWith("difference in the headers: configuration: deviceMambaSlots 64 / 48"),
            run.out());
    }

    @Test
    void shouldSayWhichJournalEndsFirst()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final int all = documents(a).size();
        final Path b = CliJournals.rewriteEvery(a, dir.resolve("b"), UnaryOperator.identity(),
            (input, resultCode, effects) -> resultCode, all - 5);

        final CliRun shorter = CliRun.kvledger("compare", a, b);
        final CliRun longer = CliRun.kvledger("compare", b, a);

        assertEquals(KvledgerMain.EXIT_FOUND, shorter.exitCode());
        assertTrue(shorter.out().startsWith("difference at document #" + (all - 4) + ": the second journal ends " +
            "after document " + (all - 5)), shorter.out());
        assertEquals(KvledgerMain.EXIT_FOUND, longer.exitCode());
        assertTrue(longer.out().startsWith("difference at document #" + (all - 4) + ": the first journal ends " +
            "after document " + (all - 5)), longer.out());
    }

    @Test
    void shouldAcceptSlotIdsRenamedConsistentlyPerPool()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final int capacity = CliJournals.config().deviceKvPages();
        final Path b = CliJournals.rewriteEvery(a, dir.resolve("b"), UnaryOperator.identity(),
            (input, resultCode, effects) ->
            {
                renameDeviceKv(effects, slot -> capacity - 1 - slot, Long.MAX_VALUE);
                return resultCode;
            }, Long.MAX_VALUE);

        final CliRun run = CliRun.kvledger("compare", "--json", a, b);

        assertEquals(KvledgerMain.EXIT_CLEAN, run.exitCode(), run.out() + run.err());
        final JsonNode json = run.json();
        assertTrue(json.get("same").asBoolean());
        assertTrue(json.get("renamedSlots").asLong() > 0, run.out());
    }

    @Test
    void shouldRefuseASlotPairedTwoWays()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));
        final List<String> docs = documents(a);
        final long late = lastDocumentMovingAnOwnedDeviceKvSlot(a);
        final Path b = CliJournals.rewriteEvery(a, dir.resolve("b"), UnaryOperator.identity(),
            (input, resultCode, effects) ->
            {
                final int i = firstOwnedDeviceKvTransition(effects);
                if (input.sequence() == late)
                {
                    // a slot seen before (it had an owner), so it is paired already: now with another
                    effects.id(i, effects.id(i) + 1);
                }
                return resultCode;
            }, Long.MAX_VALUE);

        final CliRun run = CliRun.kvledger("compare", a, b);

        assertEquals(KvledgerMain.EXIT_FOUND, run.exitCode(), run.out());
        assertTrue(run.out().startsWith("difference at document #" + late + ": effect "), run.out());
        assertTrue(run.out().contains("DEVICE_KV slot"), run.out());
        assertFalse(docs.isEmpty());
    }

    @Test
    void shouldRefuseAMissingSecondJournalWithOneLine()
    {
        final Path a = CliJournals.clean(dir.resolve("a"));

        final CliRun run = CliRun.kvledger("compare", a, dir.resolve("missing"));

        assertEquals(KvledgerMain.EXIT_BAD_INPUT, run.exitCode());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().contains("missing"), run.err());
        assertFalse(run.err().contains("Exception"), run.err());
    }

    /** Rename the DEVICE_KV slots of the first {@code limit} slot-naming effects of a document. */
    private static void renameDeviceKv(final EffectList effects, final java.util.function.LongUnaryOperator rename,
        final long limit)
    {
        long done = 0;
        for (int i = 0; i < effects.size() && done < limit; i++)
        {
            if (Pool.DEVICE_KV != effects.pool(i))
            {
                continue;
            }
            if (EffectType.OP_TARGET == effects.type(i))
            {
                effects.value1(i, rename.applyAsLong(effects.value1(i)));
                done++;
            }
            else if (EffectType.SLOT_TRANSITION == effects.type(i) || EffectType.CURSORS_RESET == effects.type(i) ||
                EffectType.CURSORS_OBSERVED == effects.type(i))
            {
                effects.id(i, rename.applyAsLong(effects.id(i)));
                done++;
            }
        }
    }

    private static long lastDocumentMovingAnOwnedDeviceKvSlot(final Path journal)
    {
        final long[] last = {0};
        read(journal, (input, resultCode, effects) ->
        {
            if (firstOwnedDeviceKvTransition(effects) >= 0)
            {
                last[0] = input.sequence();
            }
        });
        return last[0];
    }

    /** The first transition of a DEVICE_KV slot from an owner (not from FREE), or -1. */
    private static int firstOwnedDeviceKvTransition(final EffectList effects)
    {
        for (int i = 0; i < effects.size(); i++)
        {
            if (EffectType.SLOT_TRANSITION == effects.type(i) && Pool.DEVICE_KV == effects.pool(i) &&
                SlotState.FREE != effects.fromState(i))
            {
                return i;
            }
        }
        return -1;
    }

    /** Each document as one text: the input, its result, its fingerprints and every effect as the printer writes it. */
    private static List<String> documents(final Path journal)
    {
        final List<String> texts = new ArrayList<>();
        read(journal, (input, resultCode, effects) ->
        {
            final StringBuilder text = new StringBuilder(JournalPrinter.describeInput(input)).append(" = ")
                .append(resultCode);
            for (int i = 0; i < input.fingerprintCount(); i++)
            {
                text.append(' ').append(input.fingerprintHi(i)).append(':').append(input.fingerprintLo(i));
            }
            for (int i = 0; i < effects.size(); i++)
            {
                text.append(" | ").append(JournalPrinter.describeEffect(effects, i));
            }
            texts.add(text.toString());
        });
        return texts;
    }

    private static long firstDifferentDocument(final List<String> a, final List<String> b)
    {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++)
        {
            if (!a.get(i).equals(b.get(i)))
            {
                return i + 1;
            }
        }
        return a.size() == b.size() ? 0 : Math.min(a.size(), b.size()) + 1;
    }

    private interface DocumentVisitor
    {
        void visit(InputRecord input, int resultCode, EffectList effects);
    }

    private static void read(final Path journal, final DocumentVisitor visitor)
    {
        try (JournalReader reader = JournalReader.open(journal))
        {
            reader.read(new JournalListener()
            {
                @Override
                public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                    final JournalPosition position)
                {
                    visitor.visit(input, resultCode, effects);
                }
            });
        }
    }
}
