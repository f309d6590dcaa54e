package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalPrinter;

/**
 * Re-executes a journal's recorded inputs on the current engine, built with the journal's configuration and
 * fault switches, and compares the result code and the effects document by document while the journal is read.
 * After the first divergence the remaining documents are only counted. Streaming: nothing is kept per document.
 */
final class Replayer implements JournalListener
{
    /**
     * The first document where the current engine disagrees with the journal.
     *
     * @param sequence    document sequence.
     * @param inputType   the input's type name.
     * @param input       the input, one line.
     * @param kind        {@code result}, {@code effect} or {@code exception}.
     * @param effectIndex index of the first differing effect, -1 unless {@code kind} is {@code effect}.
     * @param recorded    what the journal holds there ({@code (none)} past its last effect).
     * @param replayed    what the engine produced there ({@code (none)} past its last effect).
     */
    record Divergence(
        long sequence,
        String inputType,
        String input,
        String kind,
        int effectIndex,
        String recorded,
        String replayed)
    {
        /** Divergence kind: the result codes differ. */
        static final String RESULT = "result";
        /** Divergence kind: an effect differs, or one list is longer. */
        static final String EFFECT = "effect";
        /** Divergence kind: the engine threw while applying the input. */
        static final String EXCEPTION = "exception";

        /**
         * @return one line: {@code divergence at document #SEQ (TYPE): effect k: recorded X / replayed Y}.
         */
        String describe()
        {
            final String head = "divergence at document #" + sequence + " (" + inputType + "): ";
            switch (kind)
            {
                case RESULT:
                    return head + "result code: recorded " + recorded + " / replayed " + replayed;
                case EXCEPTION:
                    return head + "the engine threw " + replayed + " (recorded result " + recorded + ")";
                default:
                    return head + "effect " + effectIndex + ": recorded " + recorded + " / replayed " + replayed;
            }
        }
    }

    private static final String NONE = "(none)";

    private CacheStateMachine engine;
    private long documents;
    private long applied;
    private Divergence divergence;

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        engine = newEngine(header);
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        documents++;
        if (null != divergence)
        {
            return;
        }

        final int replayedCode;
        try
        {
            replayedCode = engine.apply(input);
        }
        catch (final RuntimeException ex)
        {
            divergence = diverged(input, Divergence.EXCEPTION, -1, result(resultCode),
                ex.getClass().getSimpleName() + ": " + KvledgerMain.firstLine(ex.getMessage()));
            return;
        }
        applied++;

        if (replayedCode != resultCode)
        {
            divergence = diverged(input, Divergence.RESULT, -1, result(resultCode), result(replayedCode));
            return;
        }
        final EffectList replayed = engine.effects();
        final int k = replayed.firstDifference(effects);
        if (k >= 0)
        {
            String recordedText = effect(effects, k);
            String replayedText = effect(replayed, k);
            if (recordedText.equals(replayedText))
            {
                recordedText += " " + columns(effects, k);
                replayedText += " " + columns(replayed, k);
            }
            divergence = diverged(input, Divergence.EFFECT, k, recordedText, replayedText);
        }
    }

    /**
     * Build the engine a journal was written with.
     *
     * @param header the journal's header.
     * @return a fresh engine with the journal's configuration and fault switches.
     * @throws CliException when this build refuses that configuration.
     */
    static CacheStateMachine newEngine(final JournalHeader header)
    {
        try
        {
            return new CacheStateMachine(EngineConfig.fromHeader(header));
        }
        catch (final RuntimeException ex)
        {
            throw new CliException("this engine refuses the journal's configuration: " +
                KvledgerMain.firstLine(ex.getMessage()), ex);
        }
    }

    private static Divergence diverged(final InputRecord input, final String kind, final int effectIndex,
        final String recorded, final String replayed)
    {
        return new Divergence(input.sequence(), input.type().name(), JournalPrinter.describeInput(input), kind,
            effectIndex, recorded, replayed);
    }

    private static String result(final int code)
    {
        return ResultCode.name(code) + " (" + code + ")";
    }

    private static String effect(final EffectList effects, final int index)
    {
        return index < effects.size() ? JournalPrinter.describeEffect(effects, index) : NONE;
    }

    /** Every column of an effect, for two effects whose one-line descriptions are the same. */
    private static String columns(final EffectList effects, final int index)
    {
        return "[pool=" + effects.poolCode(index) + " from=" + effects.fromStateCode(index) + " to=" +
            effects.toStateCode(index) + " component=" + effects.componentCode(index) + " opKind=" +
            effects.opKindCode(index) + " role=" + effects.roleCode(index) + " reason=" + effects.reasonCode(index) +
            " requestFrom=" + effects.requestFromCode(index) + " requestTo=" + effects.requestToCode(index) +
            " id=" + effects.id(index) + " owner=" + effects.owner(index) + " value1=" + effects.value1(index) +
            " value2=" + effects.value2(index) + " value3=" + effects.value3(index) + "]";
    }

    /**
     * @return documents read.
     */
    long documents()
    {
        return documents;
    }

    /**
     * @return documents the engine applied (all of them unless it threw).
     */
    long applied()
    {
        return applied;
    }

    /**
     * @return the first divergence, or null when every document matched.
     */
    Divergence divergence()
    {
        return divergence;
    }

    /**
     * @return the engine's state hash after the last document applied.
     */
    long stateHash()
    {
        return engine.stateHash();
    }

    /**
     * @param hash a state hash.
     * @return it as {@code 0x} and 16 hex digits.
     */
    static String hex(final long hash)
    {
        final String digits = Long.toHexString(hash);
        return "0x" + "0000000000000000".substring(digits.length()) + digits;
    }
}
