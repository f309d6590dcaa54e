package io.kvledger.engine.runtime;

import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.ingress.Fingerprinter;
import io.kvledger.engine.api.DataPlane;
import io.kvledger.engine.api.Decision;
import io.kvledger.engine.api.EnginePort;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.Inputs;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;

/**
 * One server thread's handle on the controller. Every call publishes one input to the ring and waits for the
 * engine thread to apply and journal it, then returns its result code; the answer for the call's request
 * ({@link #decision()}) is written into a reused object, so a call allocates nothing. Fingerprints are computed
 * here, on the caller's thread, never on the engine thread.
 * <p>
 * Not thread-safe: one session per thread.
 */
public final class Session implements EnginePort
{
    private final KvLedger ledger;
    private final EngineLoop loop;
    private final boolean failFast;
    private final InputRecord input;
    private final Reply reply;
    private final Fingerprinter fingerprinter;
    private final IdleStrategy idle = new BackoffIdleStrategy(64, 64, 1_000, 50_000);
    private final BackendDataPlane dataPlane;
    private final long epochNs = System.nanoTime();
    private long published;

    Session(final KvLedger ledger, final EngineLoop loop, final KvLedgerOptions options, final EngineConfig config,
        final DeviceBackend device)
    {
        this.ledger = ledger;
        this.loop = loop;
        this.failFast = options.failFastWhenFull;
        input = new InputRecord(config.maxRequestPages());
        reply = new Reply(config.maxRequestPages());
        fingerprinter = new Fingerprinter(config.pageSize());
        dataPlane = new BackendDataPlane(device);
    }

    /** @return the answer to this session's last call (reused). */
    public Decision decision()
    {
        return reply.decision;
    }

    /**
     * A request arrives: its tokens are cut into pages and fingerprinted here. Tokens the call cannot use (none, a
     * count outside the array, more full pages than {@code maxRequestPages}) get
     * {@link ResultCode#BAD_REQUEST_SIZE} without reaching the engine.
     *
     * @param requestId    caller's request id (unique among live requests).
     * @param namespace    tenant / cache salt (see {@link Fingerprinter#namespaceId(String)}).
     * @param tokens       token ids.
     * @param count        tokens used.
     * @param maxNewTokens decode budget.
     * @return result code.
     */
    public int arrive(final long requestId, final long namespace, final int[] tokens, final int count,
        final long maxNewTokens)
    {
        if (null == tokens || count < 1 || count > tokens.length ||
            count / fingerprinter.pageSize() > input.fingerprintCapacity())
        {
            return refuse(ResultCode.BAD_REQUEST_SIZE);
        }
        input.reset();
        final int tail = fingerprinter.fingerprint(namespace, tokens, count, input);
        return call(Inputs.arrive(input, requestId, tail, maxNewTokens, namespace));
    }

    /** Start a scheduling pass with its budgets. */
    public int beginPass(final long maxRunning, final long tokenBudget, final long inputBudget, final long chunkBudget)
    {
        return call(Inputs.passBegin(input.reset(), maxRunning, tokenBudget, inputBudget, chunkBudget));
    }

    /** Ask to admit a request; on OK, {@link #decision()} says which load or copy to wait for. */
    public int admit(final long requestId)
    {
        return call(Inputs.admit(input.reset(), requestId));
    }

    /** The scheduler drops an admitted request before its batch runs. */
    public int retract(final long requestId)
    {
        return call(Inputs.retract(input.reset(), requestId));
    }

    /** End the pass: queued loads and copies launch. */
    public int endPass()
    {
        return call(Inputs.passEnd(input.reset()));
    }

    /** Abort a request, with the ReplaySSM cursors the server last saw for its working state. */
    public int abort(final long requestId, final long writePos, final long cacheBase, final long isFlush)
    {
        return call(Inputs.abort(input.reset(), requestId, writePos, cacheBase, isFlush));
    }

    /** Chunked-prefill progress: cache what is computed so far. */
    public int chunk(final long requestId, final int computedPages, final int trackedPages, final long writePos,
        final long cacheBase, final long isFlush)
    {
        return call(Inputs.chunk(input.reset(), requestId, computedPages, trackedPages, writePos, cacheBase,
            isFlush));
    }

    /** The request is done: cache its pages and checkpoint, release it. */
    public int finish(final long requestId, final int computedPages, final int trackedPages, final long writePos,
        final long cacheBase, final long isFlush)
    {
        return call(Inputs.finish(input.reset(), requestId, computedPages, trackedPages, writePos, cacheBase,
            isFlush));
    }

    /** Let time pass; {@code evictPages} > 0 evicts up to that many unlocked device pages. */
    public int tick(final long evictPages)
    {
        return call(Inputs.tick(input.reset(), evictPages));
    }

    /**
     * Take the oldest finished load or copy-on-write. The ledger's sessions share one queue: any of them may poll,
     * and each completion is taken by exactly one poller (normally the server's scheduler thread).
     *
     * @return packed value for {@link CompletionQueue#op(long)} / {@link CompletionQueue#ok(long)}, or -1.
     */
    public long pollCompletion()
    {
        return loop.completions().poll();
    }

    private int call(final InputRecord in)
    {
        final long ticket = reply.next();
        final int refused = loop.publish(in, reply, ticket, failFast);
        if (refused != EngineLoop.PUBLISHED)
        {
            // The engine stopped (fail-stop or close), the ring was full under failFastWhenFull, or the input
            // cannot be taken at all.
            return refuse(refused);
        }
        published++;
        reply.await(ticket, idle, loop);
        return reply.decision.resultCode;
    }

    private int refuse(final int resultCode)
    {
        reply.decision.clear();
        reply.decision.resultCode = resultCode;
        return resultCode;
    }

    // ---- EnginePort, so the model serving loop can drive a live controller ----

    /**
     * {@inheritDoc}
     * <p>
     * A null input, or a decision that cannot hold a request's pages ({@code maxRequestPages}), is answered
     * {@link ResultCode#BAD_INPUT} without reaching the engine; a null decision too (the answer would be lost).
     */
    @Override
    public int submit(final InputRecord in, final Decision decision)
    {
        if (null == in || null == decision || decision.pageIds.length < reply.decision.pageIds.length)
        {
            final int refused = refuse(ResultCode.BAD_INPUT);
            if (null != decision)
            {
                decision.clear();
                decision.resultCode = refused;
            }
            return refused;
        }
        final int result = call(in);
        decision.copyFrom(reply.decision);
        return result;
    }

    /** Inputs applied that this session did not publish (completions, other sessions): a change signal. */
    @Override
    public long completions()
    {
        return loop.appliedSequence() - published;
    }

    @Override
    public void pump(final OpListener listener)
    {
        long packed = loop.completions().poll();
        if (packed < 0)
        {
            // A scheduler step: give the copy and storage threads time before the next pass.
            LockSupport.parkNanos(100_000);
            packed = loop.completions().poll();
        }
        while (packed >= 0)
        {
            listener.onOpDone(CompletionQueue.op(packed), CompletionQueue.ok(packed));
            packed = loop.completions().poll();
        }
        loop.checkRunning();
    }

    @Override
    public long nowNs()
    {
        return System.nanoTime() - epochNs;
    }

    @Override
    public DataPlane dataPlane()
    {
        return dataPlane;
    }

    @Override
    public boolean busy()
    {
        return loop.inFlightOps() > 0;
    }

    /** @return the ledger this session belongs to. */
    public KvLedger ledger()
    {
        return ledger;
    }
}
