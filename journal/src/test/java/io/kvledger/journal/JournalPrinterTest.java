package io.kvledger.journal;

import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.FaultSetDecoder;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.PrefetchPolicy;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.journal.codec.Role;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Golden dump of a small hand-built scenario, plus the printer's naming rules. Regenerate the golden file after an
 * intended format change with {@code mvn -o install -pl journal -Dkvledger.golden.update=true}, then review the diff.
 */
class JournalPrinterTest
{
    private static final String GOLDEN = "golden/small-scenario.dump";

    @TempDir
    Path tempDir;

    @Test
    void shouldPrintTheSmallScenarioExactlyAsTheGoldenDump() throws IOException
    {
        final Path dir = tempDir.resolve("journal");
        writeSmallScenario(dir);

        final StringBuilder text = new StringBuilder();
        final ReadOutcome outcome = JournalReader.open(dir).read(new JournalPrinter(text));
        assertEquals(ReadStatus.CLEAN, outcome.status(), outcome.message());

        if (Boolean.getBoolean("kvledger.golden.update"))
        {
            Files.writeString(Paths.get("src/test/resources", GOLDEN), text, StandardCharsets.UTF_8);
        }
        assertEquals(golden(), text.toString());
    }

    @Test
    void shouldNameResultsAndPrintFingerprintsWhenAsked()
    {
        final InputRecord input = new InputRecord(4).type(InputType.ARRIVE).sequence(3).timestampNs(99).request(7)
            .addFingerprint(0x0123456789abcdefL, -1L);
        final EffectList effects = new EffectList(1);
        final StringBuilder text = new StringBuilder();

        new JournalPrinter(text, (code) -> 0 == code ? "OK" : "E" + code).fingerprints(true)
            .onDocument(input, 0, effects, new JournalPosition());

        assertEquals("#3 t=99 ARRIVE req=7 pages=1 -> OK\n" +
            "    fingerprints 0123456789abcdefffffffffffffffff\n", text.toString());
    }

    @Test
    void shouldDescribeEveryEffectTypeEvenWithNullColumns()
    {
        final EffectList effects = new EffectList(32);
        for (final EffectType type : JournalTestData.EFFECT_TYPES)
        {
            effects.add(type);
        }
        for (int i = 0; i < effects.size(); i++)
        {
            final String text = JournalPrinter.describeEffect(effects, i);
            assertTrue(text.startsWith(effects.type(i).name()), text);
            assertTrue(!text.contains("NULL_VAL") && !text.contains("null"), text);
        }
    }

    @Test
    void shouldNameFaultsAsTheSchemaDoes() throws ReflectiveOperationException
    {
        int choices = 0;
        for (final Method method : FaultSetDecoder.class.getMethods())
        {
            if (Modifier.isStatic(method.getModifiers()) && boolean.class == method.getReturnType() &&
                1 == method.getParameterCount() && long.class == method.getParameterTypes()[0])
            {
                choices++;
                int bit = -1;
                for (int i = 0; i < Long.SIZE; i++)
                {
                    if ((Boolean)method.invoke(null, 1L << i))
                    {
                        bit = i;
                    }
                }
                assertTrue(JournalPrinter.faultName(bit).equalsIgnoreCase(method.getName()),
                    method.getName() + " is bit " + bit + " but the printer calls it " + JournalPrinter.faultName(bit));
            }
        }
        assertEquals(choices, JournalPrinter.faultCount());
        assertEquals("none", JournalPrinter.faultNames(0));
        assertEquals("RESERVE_REQUEST_SLOT_ONLY DOUBLE_FREE_ON_ABORT bit63",
            JournalPrinter.faultNames(0x8000_0000_0000_0009L));
    }

    static void writeSmallScenario(final Path dir)
    {
        final JournalHeader header = new JournalHeader()
            .createdNs(1_700_000_000_000_000_000L)
            .seed(42)
            .pageSize(16)
            .deviceKvPages(64)
            .deviceMambaSlots(8)
            .hostKvPages(128)
            .hostMambaSlots(16)
            .trackingSlots(4)
            .maxStagedDefers(3)
            .maxRequests(32)
            .maxRequestPages(256)
            .prefetchThresholdPages(4)
            .prefetchPolicy(PrefetchPolicy.TIMEOUT)
            .prefetchTimeoutNs(2_000_000)
            .hybrid(true)
            .deviceKind(DeviceKind.SIMULATED)
            .kvPageBytes(4096)
            .mambaStateBytes(65_536)
            .faultMask((1L << 3) | (1L << 4))
            .maxNodes(1024)
            .maxOps(512)
            .kvledgerVersion("0.1.0")
            .label("small-scenario");

        final InputRecord input = new InputRecord(8);
        final EffectList e = new EffectList(16);
        try (JournalWriter writer = JournalWriter.open(dir, header, false, JournalTestData.SMALL_BLOCK_SIZE))
        {
            input.reset().type(InputType.ARRIVE).sequence(1).timestampNs(1_000).request(17).value1(12).value2(256)
                .value3(1).addFingerprint(0x1111, 0x2222).addFingerprint(0x3333, 0x4444).addFingerprint(0x5555, 0x6666)
                .addFingerprint(0x7777, 0x8888);
            e.clear();
            requestState(e, 17, RequestState.NULL_VAL, RequestState.WAITING);
            opQueued(e, 12, OpKind.QUERY, 17, 0, 4);
            writer.append(input, 0, e);

            input.reset().type(InputType.PASS_BEGIN).sequence(2).timestampNs(2_000).value1(8).value2(4096).value3(2048)
                .value4(512);
            e.clear();
            writer.append(input, 0, e);

            input.reset().type(InputType.ADMIT).sequence(3).timestampNs(2_100).request(17);
            e.clear();
            e.value1(e.add(EffectType.RESERVED), 1).owner(e.size() - 1, 17).value2(e.size() - 1, 4);
            slot(e, Pool.DEVICE_MAMBA, 3, SlotState.FREE, -1, SlotState.REQUEST, 17);
            slot(e, Pool.DEVICE_KV, 40, SlotState.FREE, -1, SlotState.REQUEST, 17);
            lock(e, EffectType.LOCKED, 5, Component.FULL, SlotState.REQUEST, 17, 9);
            final int admitted = e.add(EffectType.ADMITTED);
            e.owner(admitted, 17).id(admitted, -1).value1(admitted, 4).value2(admitted, 0).value3(admitted, -1);
            requestState(e, 17, RequestState.WAITING, RequestState.ADMITTED);
            writer.append(input, 0, e);

            input.reset().type(InputType.ADMIT).sequence(4).timestampNs(2_200).request(18);
            e.clear();
            final int deferred = e.add(EffectType.DEFERRED);
            e.owner(deferred, 18).reason(deferred, Reason.MAMBA_SLOTS).value1(deferred, 3);
            writer.append(input, -1001, e);

            input.reset().type(InputType.PASS_END).sequence(5).timestampNs(2_300);
            e.clear();
            opQueued(e, 13, OpKind.LOAD, 17, 1, 2);
            final int target = e.add(EffectType.OP_TARGET);
            e.id(target, 13).pool(target, Pool.DEVICE_KV).role(target, Role.WRITE).value1(target, 40);
            e.id(e.add(EffectType.OP_LAUNCHED), 13);
            writer.append(input, 0, e);

            input.reset().type(InputType.ACK).sequence(6).timestampNs(3_000).op(13).ok(true);
            e.clear();
            e.id(e.add(EffectType.OP_ACKED), 13);
            slot(e, Pool.DEVICE_KV, 40, SlotState.OP, 13, SlotState.NODE, 5);
            writer.append(input, 0, e);

            input.reset().type(InputType.FINISH).sequence(7).timestampNs(4_000).request(17).value1(4).value2(2)
                .value3(7).value5(1);
            e.clear();
            final int inserted = e.add(EffectType.NODE_INSERTED);
            e.id(inserted, 5).owner(inserted, 2).value1(inserted, 4).value2(inserted, 10);
            lock(e, EffectType.UNLOCKED, 5, Component.FULL, SlotState.REQUEST, 17, 9);
            final int observed = e.add(EffectType.CURSORS_OBSERVED);
            e.pool(observed, Pool.DEVICE_MAMBA).id(observed, 3).value1(observed, 7).value2(observed, 0)
                .value3(observed, 1);
            final int evicted = e.add(EffectType.EVICTED);
            e.id(evicted, 4).component(evicted, Component.MAMBA);
            requestState(e, 17, RequestState.RUNNING, RequestState.FINISHED);
            writer.append(input, 0, e);

            input.reset().type(InputType.TICK).sequence(8).timestampNs(5_000);
            e.clear();
            final int split = e.add(EffectType.NODE_SPLIT);
            e.id(split, 5).owner(split, 6).value1(split, 2);
            e.id(e.add(EffectType.NODE_DELETED), 4);
            final int dropped = e.add(EffectType.HOLD_DROPPED);
            e.owner(dropped, 18).reason(dropped, Reason.DEFER_LIMIT).value1(dropped, 3);
            final int waited = e.add(EffectType.WAITED);
            e.owner(waited, 19).reason(waited, Reason.TOKEN_BUDGET);
            final int rejected = e.add(EffectType.REJECTED);
            e.owner(rejected, 20).reason(rejected, Reason.TOO_LARGE);
            final int stored = e.add(EffectType.PAGES_STORED);
            e.id(stored, 14).value1(stored, 12);
            final int parked = e.add(EffectType.HIT_PARKED);
            e.owner(parked, 21).value1(parked, 5);
            final int staged = e.add(EffectType.HOLD_STAGED);
            e.owner(staged, 22).id(staged, 15).value1(staged, 4).value2(staged, 0);
            e.id(e.add(EffectType.OP_CANCELLED), 16);
            e.id(e.add(EffectType.OP_FAILED), 17);
            final int reset = e.add(EffectType.CURSORS_RESET);
            e.pool(reset, Pool.DEVICE_MAMBA).id(reset, 4);
            slot(e, Pool.HOST_KV, 7, SlotState.NODE, 5, SlotState.PENDING_FREE, 16);
            writer.append(input, 0, e);
        }
    }

    private static void requestState(
        final EffectList e, final long request, final RequestState from, final RequestState to)
    {
        final int i = e.add(EffectType.REQUEST_STATE);
        e.owner(i, request).requestTo(i, to);
        if (RequestState.NULL_VAL != from)
        {
            e.requestFrom(i, from);
        }
    }

    private static void opQueued(
        final EffectList e, final long op, final OpKind kind, final long owner, final long targets, final long pages)
    {
        final int i = e.add(EffectType.OP_QUEUED);
        e.id(i, op).opKind(i, kind).owner(i, owner).value1(i, targets).value2(i, pages);
    }

    private static void slot(
        final EffectList e, final Pool pool, final long slot, final SlotState from, final long previousOwner,
        final SlotState to, final long owner)
    {
        final int i = e.add(EffectType.SLOT_TRANSITION);
        e.pool(i, pool).id(i, slot).fromState(i, from).toState(i, to).owner(i, owner).value1(i, previousOwner);
    }

    private static void lock(
        final EffectList e, final EffectType type, final long node, final Component component, final SlotState holder,
        final long holderId, final long receipt)
    {
        final int i = e.add(type);
        e.id(i, node).component(i, component).toState(i, holder).owner(i, holderId).value1(i, receipt);
    }

    private static String golden() throws IOException
    {
        try (InputStream in = JournalPrinterTest.class.getClassLoader().getResourceAsStream(GOLDEN))
        {
            assertNotNull(in, GOLDEN + " missing from the test classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
