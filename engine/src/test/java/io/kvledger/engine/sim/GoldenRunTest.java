package io.kvledger.engine.sim;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Golden runs: the deterministic mode's journals (every input, result and effect, field by field) and the final
 * state hash for fixed seeds and configurations, pinned in {@code src/test/resources/golden/runs.txt}. A refactor
 * must leave them identical; a change of behaviour regenerates them on purpose with
 * {@code -Dkvledger.golden.update=true} and says why in its commit.
 * <p>
 * The same runs under admission rules 1 (the rules of every journal written before schema version 4, no timeout
 * term per fetched token) are pinned in {@code runs-rules1.txt}, never regenerated: they were recorded before rules
 * 2 existed, so old journals keep replaying exactly as they were written. The runs under rules 2 (journals written
 * before rules 3, which places a checkpoint a chunk kept back) are pinned in {@code runs-rules2.txt} the same way, and
 * the runs under rules 3 (journals written before rules 4, which keeps an L3 hit at the running limit) in
 * {@code runs-rules3.txt}, those under rules 4 (journals written before rules 6, which checks a hit against the device
 * when it is committed) in {@code runs-rules4.txt}, and those under rules 5 (rules 4 and the last page computed, a
 * version chosen explicitly) in {@code runs-rules5.txt}. {@code runs.txt} holds the runs under the default rules (6);
 * the runs under rules 7 (rules 6 and the last page computed) are in {@code runs-rules7.txt}, regenerated with
 * {@code runs.txt}.
 */
class GoldenRunTest
{
    private static final Path GOLDEN = Path.of("src", "test", "resources", "golden", "runs.txt");
    private static final Path GOLDEN_RULES_7 = Path.of("src", "test", "resources", "golden", "runs-rules7.txt");

    private record Case(String name, EngineConfig config, WorkloadOptions workload) { }

    private static List<Case> cases(final int rules)
    {
        final List<Case> cases = new ArrayList<>();
        for (final Case c : cases())
        {
            final EngineConfig.Builder config = c.config().toBuilder().admissionRules(rules);
            if (rules == 1)
            {
                config.prefetchTimeoutPerKiNs(0);
            }
            // recorded before the serving loop stopped a pass at its first wait for memory
            c.workload().memoryWaitsStopPass = rules >= 3;
            cases.add(new Case(c.name(), config.build(), c.workload()));
        }
        return cases;
    }

    private static List<Case> cases()
    {
        final List<Case> cases = new ArrayList<>();
        for (final long seed : new long[]{1, 7, 42})
        {
            final PrefetchPolicy policy = PrefetchPolicy.values()[(int)(seed % 3)];
            cases.add(new Case("random-pressured-" + seed, SeededSimulationTest.pressured(seed, policy),
                SeededSimulationTest.randomWorkload(seed)));
        }
        for (final WorkloadKind kind : WorkloadKind.values())
        {
            final WorkloadOptions o = new WorkloadOptions();
            o.kind = kind;
            o.requests = 120;
            o.promptTokens = 192;
            o.extendTokens = 64;
            o.seed = 3;
            o.retractRate = 0.2;
            o.abortRate = 0.02;
            o.failureRate = 0.02;
            final EngineConfig config = EngineConfig.builder().pageSize(16).deviceKvPages(512).deviceMambaSlots(48)
                .hostKvPages(96).hostMambaSlots(6).maxRequests(256).maxRequestPages(32).maxOps(256)
                .prefetchThresholdPages(1).seed(3).build();
            cases.add(new Case("workload-" + kind.name().toLowerCase(java.util.Locale.ROOT), config, o));
        }
        return cases;
    }

    private static String run(final Case c) throws NoSuchAlgorithmException
    {
        final MessageDigest digest = MessageDigest.getInstance("SHA-256");
        final long[] documents = {0};
        final CacheStateMachine engine = new CacheStateMachine(c.config());
        final SimulatedPort port = new SimulatedPort(engine, (in, result, effects) ->
        {
            documents[0]++;
            digestDocument(digest, in, result, effects);
        }, c.workload().seed, c.workload().failureRate, null);
        new ServingLoop(port, engine.config(), Workload.build(c.workload())).run();
        return c.name() + " documents=" + documents[0] + " journal=" +
            HexFormat.of().formatHex(digest.digest()).substring(0, 32) + " state=" +
            Long.toHexString(engine.stateHash());
    }

    private static void digestDocument(final MessageDigest digest, final InputRecord in, final int result,
        final EffectList effects)
    {
        final StringBuilder text = new StringBuilder(256);
        text.append(in.sequence()).append(' ').append(in.timestampNs()).append(' ').append(in.type()).append(' ')
            .append(in.request()).append(' ').append(in.op()).append(' ').append(in.ok()).append(' ')
            .append(in.value1()).append(' ').append(in.value2()).append(' ').append(in.value3()).append(' ')
            .append(in.value4()).append(' ').append(in.value5());
        for (int i = 0; i < in.fingerprintCount(); i++)
        {
            text.append(' ').append(in.fingerprintHi(i)).append(':').append(in.fingerprintLo(i));
        }
        text.append(" = ").append(result);
        for (int i = 0; i < effects.size(); i++)
        {
            text.append(" | ").append(effects.typeCode(i)).append(',').append(effects.poolCode(i)).append(',')
                .append(effects.fromStateCode(i)).append(',').append(effects.toStateCode(i)).append(',')
                .append(effects.componentCode(i)).append(',').append(effects.opKindCode(i)).append(',')
                .append(effects.roleCode(i)).append(',').append(effects.reasonCode(i)).append(',')
                .append(effects.requestFromCode(i)).append(',').append(effects.requestToCode(i)).append(',')
                .append(effects.id(i)).append(',').append(effects.owner(i)).append(',').append(effects.value1(i))
                .append(',').append(effects.value2(i)).append(',').append(effects.value3(i));
        }
        text.append('\n');
        digest.update(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The runs of each older rules version, pinned: journals written under it replay exactly as written. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void shouldReproduceTheRunsOfEveryOlderRulesVersion(final int rules) throws IOException, NoSuchAlgorithmException
    {
        final List<String> actual = new ArrayList<>();
        for (final Case c : cases(rules))
        {
            actual.add(run(c));
        }
        final Path golden = Path.of("src", "test", "resources", "golden", "runs-rules" + rules + ".txt");
        assertEquals(String.join("\n", Files.readAllLines(golden, StandardCharsets.UTF_8)),
            String.join("\n", actual), "the rules-" + rules + " runs changed: journals written under rules " +
            rules + " would no longer replay as written");
    }

    @Test
    void shouldReproduceTheGoldenJournalsAndStateHashes() throws IOException, NoSuchAlgorithmException
    {
        final List<String> actual = new ArrayList<>();
        for (final Case c : cases(EngineConfig.DEFAULT_ADMISSION_RULES))
        {
            actual.add(run(c));
        }
        assertGolden(GOLDEN, actual);
    }

    @Test
    void shouldReproduceTheGoldenJournalsOfTheLatestRules() throws IOException, NoSuchAlgorithmException
    {
        final List<String> actual = new ArrayList<>();
        for (final Case c : cases(JournalHeader.LATEST_ADMISSION_RULES))
        {
            actual.add(run(c));
        }
        assertGolden(GOLDEN_RULES_7, actual);
    }

    private static void assertGolden(final Path golden, final List<String> actual) throws IOException
    {
        if (Boolean.getBoolean("kvledger.golden.update"))
        {
            Files.createDirectories(golden.getParent());
            Files.write(golden, actual, StandardCharsets.UTF_8);
        }
        final List<String> expected = Files.readAllLines(golden, StandardCharsets.UTF_8);
        assertEquals(String.join("\n", expected), String.join("\n", actual),
            "deterministic runs changed: a refactor must not change them; a deliberate change of behaviour " +
            "regenerates them with -Dkvledger.golden.update=true");
    }
}
