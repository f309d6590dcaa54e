package io.kvledger.engine.sim;

import io.kvledger.journal.codec.Reason;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Decides whether the serving loop offers a waiting request again: only when something it waits for may have
 * changed since the engine answered {@code WAITED}, so a long run's journal is not mostly repeated waits.
 * <ul>
 *     <li>{@code RUNNING_LIMIT}: nobody can be admitted until a running request leaves (finish, abort, retract,
 *     failed load); after such an answer no request is offered until then.</li>
 *     <li>{@code PREFETCH_PENDING}, {@code LOAD_IN_FLIGHT}: an operation completed (the port applied a
 *     completion: a storage answer, a fetch, an ack).</li>
 *     <li>{@code ALLOCATION}, {@code MAMBA_SLOTS}: an operation completed or a request left or reported
 *     progress (slots freed, pages cached). Once one request of a pass waits for memory (device pages or Mamba
 *     slots), the others that last waited for memory are not offered again in that pass, as the upstream scheduler
 *     stops its pass at the first request memory refuses; the next change offers them again, in queue order.</li>
 *     <li>the pass budgets, or no reason known: the next pass (budgets are per pass).</li>
 * </ul>
 * Whatever it waits for, a request is offered again once {@link #RECHECK_NS} of port time passed since it
 * waited, so waits that end with time alone (the query grace period, the prefetch timeout) still end, and a
 * missed change costs at most that delay. Serving thread only.
 */
final class WakeGate
{
    /** Port time after which a waiting request is offered again whatever it waits for. */
    static final long RECHECK_NS = 4_000_000L;

    private static final class Sleep
    {
        Reason reason;
        long atNs;
        long completions;
        long releases;
        long progress;
    }

    private final Long2ObjectHashMap<Sleep> sleeping = new Long2ObjectHashMap<>();
    private long releases;
    private long progress;
    private boolean runningFull;
    private long runningFullAtNs;
    private long skipped;
    private final boolean memoryWaitsStopPass;
    private boolean memoryShortThisPass;
    private boolean inPass;

    /** A gate whose pass stops at the first wait for memory. */
    WakeGate()
    {
        this(true);
    }

    /**
     * @param memoryWaitsStopPass whether a pass stops offering memory waiters once one of them waits again.
     */
    WakeGate(final boolean memoryWaitsStopPass)
    {
        this.memoryWaitsStopPass = memoryWaitsStopPass;
    }

    /** A running request left (finished, aborted, retracted, its load failed): the running limit may allow more. */
    void released()
    {
        releases++;
        progress++;
        runningFull = false;
    }

    /** A pass begins: nobody has waited in it yet. */
    void passBegun()
    {
        inPass = true;
        memoryShortThisPass = false;
    }

    /** The pass ended: {@link #wouldOffer} answers again as between passes. */
    void passEnded()
    {
        inPass = false;
        memoryShortThisPass = false;
    }

    /** A request reported progress (a chunk computed): pages may have become cached and evictable. */
    void progressed()
    {
        progress++;
    }

    /**
     * The engine answered {@code WAITED}.
     *
     * @param request     the request.
     * @param reason      the reason recorded with the wait, or null when unknown.
     * @param nowNs       port time.
     * @param completions the port's completion count now ({@link EnginePort#completions()}).
     */
    void waited(final long request, final Reason reason, final long nowNs, final long completions)
    {
        Sleep sleep = sleeping.get(request);
        if (null == sleep)
        {
            sleep = new Sleep();
            sleeping.put(request, sleep);
        }
        sleep.reason = reason;
        sleep.atNs = nowNs;
        sleep.completions = completions;
        sleep.releases = releases;
        sleep.progress = progress;
        if (Reason.RUNNING_LIMIT == reason)
        {
            runningFull = true;
            runningFullAtNs = nowNs;
        }
        if ((Reason.MAMBA_SLOTS == reason || Reason.ALLOCATION == reason) && memoryWaitsStopPass && inPass)
        {
            memoryShortThisPass = true;
        }
    }

    /** @param request no longer waiting (admitted, rejected or gone). */
    void forget(final long request)
    {
        sleeping.remove(request);
    }

    /**
     * @param request     a waiting request.
     * @param nowNs       port time.
     * @param completions the port's completion count now.
     * @return whether to offer it in this pass.
     */
    boolean mayOffer(final long request, final long nowNs, final long completions)
    {
        final boolean offer = decide(request, nowNs, completions);
        if (!offer)
        {
            skipped++;
        }
        return offer;
    }

    /**
     * {@link #mayOffer} without counting.
     *
     * @param request     a waiting request.
     * @param nowNs       port time.
     * @param completions the port's completion count now.
     * @return whether it would be offered.
     */
    boolean wouldOffer(final long request, final long nowNs, final long completions)
    {
        return decide(request, nowNs, completions);
    }

    /** @return offers left out so far (each one a {@code WAITED} document the journal does not hold). */
    long skipped()
    {
        return skipped;
    }

    private boolean decide(final long request, final long nowNs, final long completions)
    {
        if (runningFull && nowNs - runningFullAtNs < RECHECK_NS)
        {
            return false;
        }
        final Sleep sleep = sleeping.get(request);
        if (null == sleep || null == sleep.reason || nowNs - sleep.atNs >= RECHECK_NS || completions < 0)
        {
            return true;
        }
        switch (sleep.reason)
        {
            case RUNNING_LIMIT:
                return releases != sleep.releases;
            case PREFETCH_PENDING:
            case LOAD_IN_FLIGHT:
                return completions != sleep.completions;
            case ALLOCATION:
            case MAMBA_SLOTS:
                return !memoryShortThisPass && (completions != sleep.completions || progress != sleep.progress);
            default:
                return true;
        }
    }
}
