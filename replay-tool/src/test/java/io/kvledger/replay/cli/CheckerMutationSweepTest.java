package io.kvledger.replay.cli;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.SlotState;
import io.kvledger.replay.check.InvariantChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mutation sweep of the checker: small deterministic clean journals (a pr-bench run, and one with retracts and
 * aborts), and for each document single semantic mutations of its effects (drop one, duplicate one, swap two
 * adjacent, change a SLOT_TRANSITION's owner or its to-state, retarget an OP_TARGET, CURSORS_RESET or
 * CURSORS_OBSERVED to the next slot), each folded by a fail-fast {@link InvariantChecker} (what {@code kvledger
 * check} runs). By default a few mutations of each kind, effect type, input type and pool are tried (about 2,000,
 * a few seconds); {@code -Dkvledger.sweep.full=true} tries every one. Mutations the checker does not flag are
 * counted by kind, effect and input type and printed. Those left are legal histories: records that change no state
 * (WAITED, PAGES_STORED, RESERVED, HOLD_STAGED, CURSORS_OBSERVED dropped or repeated), resets of slots whose cursors
 * are zero already, and reorders inside one document that the checker judges at the document's end by design (I2,
 * I13, I7 for an op's unlock, I18 for KV pages); a repeated EVICTED of one node in one TICK is the one record that
 * misstates what happened, and it breaks no state invariant. The mutations that were gaps are rules now (I12 a
 * slot handed to a node not in the tree, I19 a FINISH or ABORT that does not end its request, an ARRIVE creating it
 * twice). It asserts only what is sure: the clean journals check clean;
 * a SLOT_TRANSITION dropped, duplicated, given another owner or another to-state, an OP_TARGET moved to another
 * slot, and a REQUEST_STATE of an ARRIVE, FINISH or ABORT dropped or duplicated are all flagged.
 */
class CheckerMutationSweepTest
{
    /**
     * {@code -Dkvledger.sweep.verbose=PREFIX,...} prints the document and its mutation for the first unflagged
     * mutations whose key (for example {@code REQUEST_STATE in FINISH}) starts with one of the prefixes.
     */
    private static final List<String> VERBOSE = List.of(System.getProperty("kvledger.sweep.verbose", "")
        .split(",")).stream().filter(p -> !p.isEmpty()).toList();

    /** {@code -Dkvledger.sweep.full=true}: every mutation; by default a few of each kind, effect, input and pool. */
    private static final boolean FULL = Boolean.getBoolean("kvledger.sweep.full");
    /** Mutations tried per kind, effect type(s), input type and pool, per journal, unless {@link #FULL}. */
    private static final int SAMPLES = 3;

    private final Map<String, Integer> samples = new java.util.HashMap<>();

    @TempDir
    Path dir;

    /** One document of a journal, copied. */
    private record Doc(InputRecord input, int result, EffectList effects)
    {
    }

    /** A journal held in memory. */
    private record Journal(String name, JournalHeader header, List<Doc> docs)
    {
    }

    /** Counts of one mutation kind. */
    private static final class Tally
    {
        int tried;
        int flagged;
        final Map<String, Integer> unflagged = new TreeMap<>();
        final Map<String, String> example = new TreeMap<>();
    }

    @Test
    void shouldFlagMutatedOwnershipEffectsOfCleanJournals()
    {
        final List<Journal> journals = new ArrayList<>();
        journals.add(journal("pr-bench", options(4, 0.0, 0.0)));
        journals.add(journal("retract-abort", options(5, 0.4, 0.3)));
        final Map<String, Tally> tallies = new TreeMap<>();
        for (final Journal journal : journals)
        {
            assertEquals(0, fold(journal, -1, null), journal.name() + " checks clean");
            for (int d = 0; d < journal.docs().size(); d++)
            {
                sweepDocument(journal, d, tallies);
            }
        }
        int tried = 0;
        int flagged = 0;
        final StringBuilder report = new StringBuilder("checker mutation sweep:\n");
        for (final Map.Entry<String, Tally> entry : tallies.entrySet())
        {
            final Tally t = entry.getValue();
            tried += t.tried;
            flagged += t.flagged;
            report.append(String.format("  %-22s tried %5d flagged %5d%n", entry.getKey(), t.tried, t.flagged));
            for (final Map.Entry<String, Integer> u : t.unflagged.entrySet())
            {
                report.append(String.format("      unflagged %-40s %4d  e.g. %s%n", u.getKey(), u.getValue(),
                    t.example.get(u.getKey())));
            }
        }
        report.append("  total tried ").append(tried).append(", flagged ").append(flagged);
        System.out.println(report);
        assertTrue(tried > (FULL ? 10_000 : 500), report.toString());
        for (final String kind : List.of("drop", "duplicate"))
        {
            for (final String key : tallies.get(kind).unflagged.keySet())
            {
                assertTrue(!key.startsWith(EffectType.SLOT_TRANSITION.name()) &&
                    !key.startsWith(EffectType.REQUEST_STATE.name() + " in FINISH") &&
                    !key.startsWith(EffectType.REQUEST_STATE.name() + " in ABORT") &&
                    !key.startsWith(EffectType.REQUEST_STATE.name() + " in ARRIVE"), kind + " " + key + "\n" + report);
            }
        }
        for (final String kind : List.of("owner", "to-state"))
        {
            assertTrue(tallies.get(kind).unflagged.isEmpty(), report.toString());
        }
        for (final String key : tallies.get("retarget").unflagged.keySet())
        {
            // a reset moved to a FREE slot leaves a clean one unreset, an observation moved to the request's other
            // (tracking) slot is still on a slot it owns: legal histories, so only OP_TARGET is sure
            assertTrue(!key.startsWith(EffectType.OP_TARGET.name()), "retarget " + key + "\n" + report);
        }
    }

    private void sweepDocument(final Journal journal, final int d, final Map<String, Tally> tallies)
    {
        final EffectList original = journal.docs().get(d).effects();
        final int n = original.size();
        for (int i = 0; i < n; i++)
        {
            final int at = i;
            final EffectType type = original.type(i);
            mutate(journal, d, at, tallies, "drop", type, e -> remove(e, at));
            mutate(journal, d, at, tallies, "duplicate", type, e -> insertCopy(e, at, at));
            if (i + 1 < n && !original.sameAs(i, original, i + 1))
            {
                mutate(journal, d, at, tallies, "swap", type.name() + "/" + original.type(i + 1).name(),
                    e -> swap(e, at));
            }
            if (type == EffectType.SLOT_TRANSITION)
            {
                if (original.toState(i) != SlotState.FREE)
                {
                    mutate(journal, d, at, tallies, "owner", type, e -> e.owner(at, e.owner(at) + 1));
                }
                for (final SlotState to : List.of(SlotState.FREE, SlotState.REQUEST, SlotState.NODE, SlotState.OP,
                    SlotState.PENDING_FREE))
                {
                    if (to != original.toState(i))
                    {
                        mutate(journal, d, at, tallies, "to-state", original.toState(i) + "->" + to,
                            e -> e.toState(at, to));
                    }
                }
            }
            if (type == EffectType.OP_TARGET || type == EffectType.CURSORS_RESET ||
                type == EffectType.CURSORS_OBSERVED)
            {
                mutate(journal, d, at, tallies, "retarget", type, e -> e.id(at, e.id(at) + 1));
            }
        }
    }

    private void mutate(final Journal journal, final int d, final int at, final Map<String, Tally> tallies,
        final String kind, final Object what, final Consumer<EffectList> mutation)
    {
        final String signature = kind + " " + what + " " + journal.docs().get(d).input().type() + " " +
            journal.docs().get(d).effects().pool(at);
        if (!FULL && samples.merge(journal.name() + " " + signature, 1, Integer::sum) > SAMPLES)
        {
            return;
        }
        final EffectList mutated = new EffectList(64);
        mutated.copyFrom(journal.docs().get(d).effects());
        mutation.accept(mutated);
        final Tally t = tallies.computeIfAbsent(kind, k -> new Tally());
        t.tried++;
        if (fold(journal, d, mutated) > 0)
        {
            t.flagged++;
        }
        else
        {
            final String key = what.toString() + " in " + journal.docs().get(d).input().type();
            t.unflagged.merge(key, 1, Integer::sum);
            t.example.putIfAbsent(key, journal.name() + " #" + journal.docs().get(d).input().sequence());
            if (VERBOSE.stream().anyMatch(key::startsWith) && t.unflagged.get(key) <= 2)
            {
                final StringBuilder b = new StringBuilder("UNFLAGGED " + kind + " " + key + " " + journal.name() +
                    " #" + journal.docs().get(d).input().sequence() + "\n");
                final EffectList o = journal.docs().get(d).effects();
                for (int i = 0; i < o.size(); i++)
                {
                    b.append("   o ").append(io.kvledger.journal.JournalPrinter.describeEffect(o, i)).append('\n');
                }
                for (int i = 0; i < mutated.size(); i++)
                {
                    b.append("   m ").append(io.kvledger.journal.JournalPrinter.describeEffect(mutated, i))
                        .append('\n');
                }
                System.out.println(b);
            }
        }
    }

    /** @return violations found (fail-fast: 0 or those of the first bad document). */
    private static long fold(final Journal journal, final int mutatedDoc, final EffectList mutated)
    {
        final InvariantChecker checker = new InvariantChecker(true, 4, 0);
        checker.onHeader(journal.header(), null);
        for (int d = 0; d < journal.docs().size() && !checker.stopped(); d++)
        {
            final Doc doc = journal.docs().get(d);
            checker.check(doc.input(), doc.result(), d == mutatedDoc ? mutated : doc.effects());
        }
        return checker.violationCount();
    }

    private static void remove(final EffectList e, final int at)
    {
        final EffectList copy = new EffectList(64);
        for (int i = 0; i < e.size(); i++)
        {
            if (i != at)
            {
                copy.addCopy(e, i);
            }
        }
        e.copyFrom(copy);
    }

    private static void insertCopy(final EffectList e, final int from, final int before)
    {
        final EffectList copy = new EffectList(64);
        for (int i = 0; i < e.size(); i++)
        {
            if (i == before)
            {
                copy.addCopy(e, from);
            }
            copy.addCopy(e, i);
        }
        e.copyFrom(copy);
    }

    private static void swap(final EffectList e, final int at)
    {
        final EffectList copy = new EffectList(64);
        for (int i = 0; i < e.size(); i++)
        {
            copy.addCopy(e, i == at ? at + 1 : i == at + 1 ? at : i);
        }
        e.copyFrom(copy);
    }

    private static WorkloadOptions options(final int requests, final double retractRate, final double abortRate)
    {
        final WorkloadOptions options = CliJournals.workload(retractRate);
        options.requests = requests;
        options.abortRate = abortRate;
        return options;
    }

    private Journal journal(final String name, final WorkloadOptions options)
    {
        final EngineConfig config = EngineConfig.builder().pageSize(16).deviceKvPages(128).deviceMambaSlots(24)
            .hostKvPages(256).hostMambaSlots(16).maxRequests(16).maxRequestPages(32).maxOps(64)
            .prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).seed(CliJournals.SEED).build();
        final Path path = CliJournals.write(dir.resolve(name), name, config, options);
        final JournalHeader header = new JournalHeader();
        final List<Doc> docs = new ArrayList<>();
        JournalReader.open(path).read(new JournalListener()
        {
            @Override
            public void onHeader(final JournalHeader h, final JournalPosition position)
            {
                header.copyFrom(h);
            }

            @Override
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
                final InputRecord in = new InputRecord(Math.max(64, input.fingerprintCount()));
                in.copyFrom(input);
                final EffectList copy = new EffectList(64);
                copy.copyFrom(effects);
                docs.add(new Doc(in, resultCode, copy));
            }
        });
        return new Journal(name, header, docs);
    }
}
