package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.SlotState;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The offline checker: folds every document of a journal into a {@link ShadowModel} and collects the
 * {@link Violation}s it finds, in detection order. Independent of the engine's code. Feed it from a
 * {@code JournalReader} (it is a {@link JournalListener}) or call {@link #check} directly.
 * <p>
 * With {@code failFast}, folding stops after the first document that broke an invariant ({@link #stopped()});
 * with {@code maxViolations}, violations past that number are counted ({@link #violationCount()}) but not kept.
 * For the report's picture it also records the owners of every implicated slot ({@link #lanes()}).
 * Single reader thread.
 */
public final class InvariantChecker implements JournalListener, ViolationSink, ShadowObserver
{
    /** Keep every violation. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    private static final int LANE_POINT_LIMIT = 2_000;

    private record LaneKey(Pool pool, int id)
    {
    }

    private static final class LaneBuilder
    {
        final List<SlotLane.Point> points = new ArrayList<>();
        final List<Long> violations = new ArrayList<>();
        String lastOwner;

        void add(final long sequence, final String owner)
        {
            if (!owner.equals(lastOwner) && points.size() < LANE_POINT_LIMIT)
            {
                points.add(new SlotLane.Point(sequence, owner));
                lastOwner = owner;
            }
        }
    }

    private final boolean failFast;
    private final int maxViolations;
    private final ShadowModel model;
    private final List<Violation> violations = new ArrayList<>();
    private final Map<LaneKey, LaneBuilder> lanes = new LinkedHashMap<>();
    private final JournalHeader header = new JournalHeader();
    private long violationCount;
    private long documents;
    private boolean headerSeen;
    private boolean stopped;
    private boolean violatedInDocument;

    /**
     * @param failFast      stop folding after the first document with a violation.
     * @param maxViolations violations kept (further ones are only counted).
     * @param historyLimit  effects kept per slot or node for histories.
     */
    public InvariantChecker(final boolean failFast, final int maxViolations, final int historyLimit)
    {
        this.failFast = failFast;
        this.maxViolations = maxViolations;
        this.model = new ShadowModel(this, historyLimit).observer(this);
    }

    /**
     * A checker that keeps every violation and does not stop.
     */
    public InvariantChecker()
    {
        this(false, UNLIMITED, ShadowModel.DEFAULT_HISTORY_LIMIT);
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
        this.header.copyFrom(header);
        model.configure(header);
        headerSeen = true;
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        check(input, resultCode, effects);
    }

    /**
     * Fold and check one document (ignored once {@link #stopped()}).
     *
     * @param input      the input.
     * @param resultCode its result code.
     * @param effects    its effects.
     */
    public void check(final InputRecord input, final int resultCode, final EffectList effects)
    {
        if (stopped)
        {
            return;
        }
        if (!headerSeen)
        {
            throw new IllegalStateException("document #" + input.sequence() + " before the journal header");
        }
        violatedInDocument = false;
        model.apply(input, resultCode, effects);
        documents++;
        if (failFast && violatedInDocument)
        {
            stopped = true;
        }
    }

    @Override
    public void onViolation(final Violation violation)
    {
        violationCount++;
        violatedInDocument = true;
        if (violations.size() < maxViolations)
        {
            violations.add(violation);
        }
        final Pool pool = poolOf(violation);
        if (pool != null)
        {
            final LaneKey key = new LaneKey(pool, (int)violation.id());
            LaneBuilder lane = lanes.get(key);
            if (lane == null)
            {
                lane = new LaneBuilder();
                for (final SlotLane.Point point : model.slotOwnerHistory(pool, (int)violation.id()))
                {
                    lane.add(point.sequence(), point.owner());
                }
                lanes.put(key, lane);
            }
            lane.violations.add(violation.documentSequence());
        }
    }

    private Pool poolOf(final Violation violation)
    {
        if (!violation.isSlot() || violation.id() < 0)
        {
            return null;
        }
        for (final Pool pool : Pool.values())
        {
            if (pool != Pool.NULL_VAL && pool.name().equals(violation.pool()))
            {
                return violation.id() < model.capacity(pool) ? pool : null;
            }
        }
        return null;
    }

    @Override
    public void onSlotEffect(final Pool pool, final int slot, final long sequence, final EffectList effects,
        final int index, final SlotState stateAfter, final long ownerAfter)
    {
        if (!lanes.isEmpty())
        {
            final LaneBuilder lane = lanes.get(new LaneKey(pool, slot));
            if (lane != null)
            {
                lane.add(sequence, EffectText.owner(stateAfter, ownerAfter));
            }
        }
    }

    /**
     * @return documents checked.
     */
    public long documents()
    {
        return documents;
    }

    /**
     * @return the violations kept, in detection order (read-only).
     */
    public List<Violation> violations()
    {
        return Collections.unmodifiableList(violations);
    }

    /**
     * @return every violation found, including those past {@code maxViolations}.
     */
    public long violationCount()
    {
        return violationCount;
    }

    /**
     * @return true when no invariant broke.
     */
    public boolean clean()
    {
        return violationCount == 0;
    }

    /**
     * @return the first violation found, if any.
     */
    public Optional<Violation> firstViolation()
    {
        return violations.isEmpty() ? Optional.empty() : Optional.of(violations.get(0));
    }

    /**
     * @return true when {@code failFast} stopped folding.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /**
     * @return the journal header seen (a default header before {@link #onHeader}).
     */
    public JournalHeader header()
    {
        return header;
    }

    /**
     * @return the shadow model, for queries after the run.
     */
    public ShadowModel model()
    {
        return model;
    }

    /**
     * @return the owners of every slot named by a violation, over sequence numbers, in order of first violation.
     */
    public List<SlotLane> lanes()
    {
        final List<SlotLane> out = new ArrayList<>(lanes.size());
        for (final Map.Entry<LaneKey, LaneBuilder> entry : lanes.entrySet())
        {
            out.add(new SlotLane(entry.getKey().pool().name(), entry.getKey().id(), entry.getValue().points,
                entry.getValue().violations));
        }
        return out;
    }
}
