package io.kvledger.engine;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.PrefetchPolicy;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any sequence of inputs, however malformed (unknown or negative ids, impossible counts, inputs out of order, every
 * type with arbitrary values), gets a result code from the engine: it never throws, and every structure still
 * verifies. Random configurations from tiny to roomy; a negative result (a rejected input) records no effect, as
 * {@link ResultCode} promises, and leaves the state hash as it was: it changed nothing. (The deep paths, loads,
 * backups and their acks, are driven by the seeded serving simulations and {@code kvledger explore}; this test is
 * about what a malformed input can do.)
 */
class RandomInputTest
{
    private static final InputType[] TYPES =
        Arrays.stream(InputType.values()).filter(t -> t != InputType.NULL_VAL).toArray(InputType[]::new);

    @Test
    void shouldAnswerEveryInputWithAResultCodeAndKeepItsStructuresValid()
    {
        long accepted = 0;
        long refused = 0;
        for (long seed = 1; seed <= 120; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final CacheStateMachine engine = new CacheStateMachine(config(random, seed));
            final InputRecord in = new InputRecord(64);
            for (long sequence = 1; sequence <= 1_500; sequence++)
            {
                next(random, in.reset());
                in.sequence(sequence).timestampNs(sequence * 1_000);
                final long before = engine.stateHash();
                final int result = engine.apply(in);
                if (result >= ResultCode.OK)
                {
                    accepted++;
                }
                else
                {
                    refused++;
                    assertEquals(0, engine.effects().size(), "seed " + seed + " input " + sequence + " " +
                        in.type() + " refused with " + result + " but left effects");
                    assertEquals(before, engine.stateHash(), "seed " + seed + " input " + sequence + " " +
                        in.type() + " refused with " + result + " but changed the state");
                }
                if (sequence % 50 == 0)
                {
                    engine.verify();
                }
            }
            engine.verify();
        }
        assertTrue(accepted > 10_000 && refused > 10_000, accepted + " accepted, " + refused + " refused");
    }

    private static EngineConfig config(final SplittableRandom random, final long seed)
    {
        return EngineConfig.builder().pageSize(1 + random.nextInt(16)).hybrid(random.nextBoolean())
            .deviceKvPages(8 + random.nextInt(200)).deviceMambaSlots(4 + random.nextInt(16))
            .hostKvPages(2 + random.nextInt(64)).hostMambaSlots(2 + random.nextInt(8))
            .maxRequests(2 + random.nextInt(16)).maxRequestPages(64).maxOps(64)
            .prefetchThresholdPages(random.nextInt(8))
            .prefetchPolicy(PrefetchPolicy.values()[random.nextInt(3)]).seed(seed).build();
    }

    /** One input: a lifecycle input with ids from a small set (so some are live), or any type with any values. */
    private static void next(final SplittableRandom random, final InputRecord in)
    {
        final long request = random.nextInt(6) - 1;
        final long op = random.nextInt(80) - 2;
        switch (random.nextInt(12))
        {
            case 0:
                Inputs.arrive(in, request, random.nextInt(20), random.nextInt(3), 0);
                final int pages = random.nextInt(20);
                final long prompt = random.nextInt(4);
                for (int i = 0; i < pages; i++)
                {
                    in.addFingerprint(prompt * 1_000 + i, random.nextInt(3) == 0 ? random.nextLong() : i);
                }
                break;
            case 1:
                Inputs.passBegin(in, random.nextInt(5) - 1, random.nextInt(10_000) - 5, random.nextInt(100),
                    random.nextInt(100));
                break;
            case 2:
                Inputs.admit(in, request);
                break;
            case 3:
                Inputs.passEnd(in);
                break;
            case 4:
                Inputs.finish(in, request, random.nextInt(25) - 2, random.nextInt(25) - 2, random.nextInt(4),
                    random.nextInt(4), random.nextInt(2));
                break;
            case 5:
                Inputs.chunk(in, request, random.nextInt(25) - 2, random.nextInt(25) - 2, random.nextInt(4),
                    random.nextInt(4), random.nextInt(2));
                break;
            case 6:
                Inputs.ack(in, op, random.nextBoolean());
                break;
            case 7:
                Inputs.abort(in, request, random.nextInt(4), random.nextInt(4), random.nextInt(2));
                break;
            case 8:
                Inputs.retract(in, request);
                break;
            case 9:
                Inputs.tick(in, random.nextInt(30) - 3);
                break;
            case 10:
                in.type(TYPES[random.nextInt(TYPES.length)]).request(request).op(op).value1(random.nextInt(50) - 5)
                    .value2(random.nextInt(50) - 5).value3(random.nextInt(50) - 5).value4(random.nextInt(5))
                    .value5(random.nextInt(5)).ok(random.nextBoolean());
                break;
            default:
                Inputs.storageHit(in, op, random.nextInt(20) - 2, random.nextInt(20));
                break;
        }
    }
}
