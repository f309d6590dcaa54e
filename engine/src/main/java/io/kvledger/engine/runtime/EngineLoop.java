package io.kvledger.engine.runtime;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.ExceptionHandler;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.engine.counters.EngineObserver;
import io.kvledger.engine.device.CopyListener;
import io.kvledger.engine.device.DeviceBackend;
import io.kvledger.engine.api.DecisionFiller;
import io.kvledger.engine.store.L3Store;
import io.kvledger.engine.store.StoreListener;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalException;
import io.kvledger.journal.Inputs;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.OpKind;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The single-threaded engine loop: one Disruptor ring of preallocated input events, many producers (the
 * embedding server's threads, the device's copy thread, the store's I/O thread), one handler thread that per
 * event stamps the sequence and time, applies, appends the journal document, and only then hands the side
 * effects to the device and the store. An exception inside apply (or the journal) stops the loop: the failure
 * and its sequence are recorded, no later input is applied, and callers get {@link ResultCode#ENGINE_STOPPED}.
 * <p>
 * Thread-safe for producers; everything else runs on the engine thread.
 */
public final class EngineLoop implements AutoCloseable, CopyListener, StoreListener
{
    /** Side effects waiting for their document to be appended, at most. */
    private static final int PENDING_CAPACITY = 1 << 16;

    /** Room kept for one input's side effects (launches of a pass, loads it finishes, its answer). */
    private static final int PENDING_HEADROOM = 1 << 15;

    /** Called once per batch end, on the engine thread (group commit of the journal). */
    public interface BatchEnd
    {
        /** The handler reached the end of a batch of events. */
        void onBatchEnd();
    }

    private final CacheStateMachine engine;
    private final DocumentSink journal;
    private final BatchEnd batchEnd;
    private final Dispatcher dispatcher;
    private final Disruptor<EngineEvent> disruptor;
    private final RingBuffer<EngineEvent> ring;
    private final CompletionQueue completions;
    private final PendingSideEffects pending;
    private final long epochNs = System.nanoTime();
    /** What {@link #publish} returns when the input is in the ring. */
    static final int PUBLISHED = 0;

    private volatile boolean running;
    /** Callers' inputs are taken (until {@link #stopInputs}); completions are taken while {@link #running}. */
    private volatile boolean accepting;
    private volatile boolean closed;
    private volatile String failure;
    /**
     * What {@link #failure()} says when the reason itself cannot be written down: building the message is guarded
     * and this constant stands in when it fails, so an {@link OutOfMemoryError} (or a second failure while reporting
     * the first) still stops the loop and answers every waiting caller instead of leaving them waiting.
     */
    static final String FAILED_WITHOUT_DETAIL = "engine thread failed (no detail: building the message failed too)";
    private volatile int inFlightOps;
    private volatile int launchedOps;
    /**
     * Finished loads and copies applied whose completion is not yet on {@link #completions} (their document not yet
     * appended); written by the engine thread only, before {@link #launchedOps}, so a reader that sees no launched op
     * and then none unannounced knows every completion applied is on the queue.
     */
    private volatile int unannounced;
    private final int maxPages;
    /** Engine thread: close's barrier passed; callers' inputs after it are answered ENGINE_STOPPED, not applied. */
    private boolean refusing;
    private volatile long appliedSequence;
    private long sequence;
    private EngineObserver observer;
    private volatile Thread engineThread;

    /**
     * @param engine     the controller (owned by the loop from now on).
     * @param journal    where documents go before any side effect runs.
     * @param batchEnd   group commit hook, or null.
     * @param device     the device backend (copies).
     * @param store      the L3 store.
     * @param ringSize   ring capacity, a power of two.
     * @param wait       how the engine thread waits.
     * @param maxMoves   most moves one op can carry.
     */
    public EngineLoop(final CacheStateMachine engine, final DocumentSink journal, final BatchEnd batchEnd,
        final DeviceBackend device, final L3Store store, final int ringSize, final WaitStrategyKind wait,
        final int maxMoves)
    {
        this.engine = engine;
        this.journal = journal;
        this.batchEnd = batchEnd;
        this.dispatcher = new Dispatcher(device, store, maxMoves, engine.config().kvPageBytes(),
            engine.config().mambaStateBytes());
        this.completions = new CompletionQueue(1 << 16);
        this.pending = new PendingSideEffects(PENDING_CAPACITY);
        maxPages = engine.config().maxRequestPages();
        final ThreadFactory threads = runnable ->
        {
            final Thread t = new Thread(runnable, "kvledger-engine");
            t.setDaemon(true);
            return t;
        };
        disruptor = new Disruptor<>(() -> new EngineEvent(maxPages), ringSize, threads, ProducerType.MULTI,
            new IdleAwareWaitStrategy(wait.create(), this::onIdle));
        disruptor.handleEventsWith(new Handler());
        disruptor.setDefaultExceptionHandler(new FailStop());
        ring = disruptor.getRingBuffer();
    }

    /** Start the engine thread. */
    public void start()
    {
        running = true;
        accepting = true;
        disruptor.start();
    }

    /**
     * Set who is told after each input and when the engine thread is about to wait (live counters); call before
     * {@link #start()}.
     *
     * @param observer the observer, or null.
     */
    public void observer(final EngineObserver observer)
    {
        this.observer = observer;
    }

    /** @return inputs published to the ring and not yet applied (any thread; reads the producers' cursor). */
    public long ringFill()
    {
        return ring.getBufferSize() - ring.remainingCapacity();
    }

    /** @return slots of the ring. */
    public int ringCapacity()
    {
        return ring.getBufferSize();
    }

    /** @return the finished-load notifications for the serving thread. */
    public CompletionQueue completions()
    {
        return completions;
    }

    /** @return ops in flight after the last applied input (any thread). */
    public int inFlightOps()
    {
        return inFlightOps;
    }

    /** @return sequence of the last applied input (any thread). */
    public long appliedSequence()
    {
        return appliedSequence;
    }

    /** @return the fail-stop reason, or null while healthy. */
    public String failure()
    {
        return failure;
    }

    /** @return bytes the dispatched ops move (engine thread; read after close). */
    public long movedBytes()
    {
        return dispatcher.movedBytes;
    }

    /**
     * Whether no caller will be answered any more: the loop was closed (its engine thread stopped) or its engine
     * thread died. A fail-stopped loop that is still running answers every input with
     * {@link ResultCode#ENGINE_STOPPED}, so it is not terminated.
     *
     * @return true when waiting for an answer would be in vain.
     */
    boolean terminated()
    {
        final Thread thread = engineThread;
        return closed || (null != thread && !thread.isAlive());
    }

    /** @throws EngineStoppedException when the loop fail-stopped or was closed. */
    void checkRunning()
    {
        if (failure != null)
        {
            throw new EngineStoppedException("kvledger engine stopped: " + failure);
        }
        if (closed)
        {
            throw new EngineStoppedException("kvledger engine is closed");
        }
    }

    /**
     * Publish a copy of an input; the engine stamps its sequence and time. An input the ring slot cannot hold is
     * refused here, before a slot is claimed (a claimed slot must be published, or the engine thread waits for it
     * for ever).
     *
     * @param source   the input (copied into the ring slot).
     * @param reply    where the engine answers, or null.
     * @param ticket   the reply ticket to complete.
     * @param failFast when true, return {@link ResultCode#RING_FULL} instead of waiting for ring capacity.
     * @return {@link #PUBLISHED}, or why not: {@link ResultCode#ENGINE_STOPPED} (stopped, closing or closed),
     * {@link ResultCode#BAD_INPUT} (no input type, or the schema's null type), {@link ResultCode#BAD_REQUEST_SIZE}
     * (more fingerprints than {@code maxRequestPages}), {@link ResultCode#RING_FULL}.
     */
    int publish(final InputRecord source, final Reply reply, final long ticket, final boolean failFast)
    {
        if (!accepting || !running || failure != null)
        {
            return ResultCode.ENGINE_STOPPED;
        }
        if (null == source.type() || InputType.NULL_VAL == source.type())
        {
            // The schema's null type is no input type either: the engine would refuse it, and the journal cannot
            // write it (a fail-stop for every caller), so it never reaches the ring.
            return ResultCode.BAD_INPUT;
        }
        if (source.fingerprintCount() > maxPages)
        {
            return ResultCode.BAD_REQUEST_SIZE;
        }
        final long seq;
        if (failFast)
        {
            try
            {
                seq = ring.tryNext();
            }
            catch (final InsufficientCapacityException ex)
            {
                return ResultCode.RING_FULL;
            }
        }
        else
        {
            seq = ring.next();
        }
        final EngineEvent event = ring.get(seq);
        event.reply = reply;
        event.ticket = ticket;
        event.kind = EngineEvent.UNREADABLE;
        try
        {
            event.input.copyFrom(source);
            event.kind = EngineEvent.INPUT;
        }
        finally
        {
            ring.publish(seq);
        }
        return PUBLISHED;
    }

    /**
     * Close, first step: callers' inputs are refused from now on ({@link ResultCode#ENGINE_STOPPED}) and every
     * input published before is applied, journaled and answered when this returns; completions of operations in
     * flight are still taken. Waits at most {@code timeoutNs} for the engine thread.
     *
     * @param timeoutNs how long to wait for the inputs before to be applied.
     * @return true when they were.
     */
    public boolean stopInputs(final long timeoutNs)
    {
        accepting = false;
        if (!running || terminated())
        {
            return false;
        }
        final Reply barrier = new Reply(0);
        final long ticket = barrier.next();
        final long seq = ring.next();
        final EngineEvent event = ring.get(seq);
        event.reply = barrier;
        event.ticket = ticket;
        event.kind = EngineEvent.BARRIER;
        ring.publish(seq);
        final long deadline = System.nanoTime() + timeoutNs;
        while (!barrier.answered(ticket))
        {
            if (terminated() || System.nanoTime() > deadline)
            {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        return true;
    }

    private void publishCompletion(final InputType type, final long op, final boolean ok, final long v1,
        final long v2)
    {
        if (!running)
        {
            return;
        }
        final long seq = ring.next();
        final EngineEvent event = ring.get(seq);
        final InputRecord in = event.input.reset();
        event.kind = EngineEvent.INPUT;
        switch (type)
        {
            case STORAGE_HIT:
                Inputs.storageHit(in, op, v1, v2);
                break;
            case FETCH_DONE:
                Inputs.fetchDone(in, op, ok, v1, v2 != 0);
                break;
            default:
                Inputs.ack(in, op, ok);
                break;
        }
        event.reply = null;
        ring.publish(seq);
    }

    @Override
    public void onCopyDone(final long op, final boolean ok)
    {
        publishCompletion(InputType.ACK, op, ok, 0, 0);
    }

    @Override
    public void onQueryDone(final long op, final int presentPages, final int mambaPages)
    {
        publishCompletion(InputType.STORAGE_HIT, op, true, presentPages, mambaPages);
    }

    @Override
    public void onQueryFailed(final long op)
    {
        if (!running)
        {
            return;
        }
        final long seq = ring.next();
        final EngineEvent event = ring.get(seq);
        Inputs.storageQueryFailed(event.input, op);
        event.reply = null;
        ring.publish(seq);
    }

    @Override
    public void onFetchDone(final long op, final boolean ok, final int pagesRead, final boolean mambaRead)
    {
        publishCompletion(InputType.FETCH_DONE, op, ok, pagesRead, mambaRead ? 1 : 0);
    }

    @Override
    public void onWriteDone(final long op, final boolean ok)
    {
        publishCompletion(InputType.ACK, op, ok, 0, 0);
    }

    /**
     * Wait until no launched op is in flight (their completions applied, journaled, and those of loads and copies on
     * {@link #completions()}), up to a timeout. Ops only queued (a pass left open) are not waited for: they launch
     * only at a pass's end.
     *
     * @param timeoutNs how long to wait.
     * @return true when drained.
     */
    public boolean awaitQuiescent(final long timeoutNs)
    {
        final long deadline = System.nanoTime() + timeoutNs;
        // launchedOps first: the engine thread counts a completion as unannounced before it publishes launchedOps
        while ((launchedOps > 0 || unannounced > 0) && failure == null)
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
        return true;
    }

    /**
     * Stop: no more inputs are accepted, the ring is drained (every published input applied and journaled),
     * the engine thread ends. Close the device and store first so no completion races the shutdown.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        running = false;
        accepting = false;
        try
        {
            disruptor.shutdown(10, TimeUnit.SECONDS);
        }
        catch (final com.lmax.disruptor.TimeoutException ex)
        {
            disruptor.halt();
        }
        closed = true;
    }

    private void onIdle()
    {
        if (observer != null && Thread.currentThread() == engineThread)
        {
            observer.onIdle();
        }
    }

    private final class Handler implements EventHandler<EngineEvent>, PendingSideEffects.Release
    {
        private final PendingSideEffects.Release failed = (kind, value, reply) ->
        {
            if (kind == PendingSideEffects.REPLY)
            {
                answer(reply, value, ResultCode.ENGINE_STOPPED);
            }
        };

        @Override
        public void onStart()
        {
            engineThread = Thread.currentThread();
        }

        @Override
        public void onEvent(final EngineEvent event, final long ringSequence, final boolean endOfBatch)
        {
            final InputRecord in = event.input;
            final Reply reply = event.reply;
            event.reply = null;
            if (event.kind == EngineEvent.BARRIER)
            {
                passBarrier(reply, event.ticket);
                return;
            }
            if (event.kind == EngineEvent.UNREADABLE)
            {
                answer(reply, event.ticket, ResultCode.BAD_INPUT);
                return;
            }
            if (failure != null || (refusing && reply != null))
            {
                answer(reply, event.ticket, ResultCode.ENGINE_STOPPED);
                return;
            }
            in.sequence(++sequence).timestampNs(System.nanoTime() - epochNs);
            final int result;
            try
            {
                if (pending.free() < PENDING_HEADROOM)
                {
                    releaseThrough(sequence - 1, true);
                }
                result = engine.apply(in);
                journal.append(in, result, engine.effects());
            }
            catch (final Throwable t)
            {
                stop(reason("input #", in.sequence(), in.type(), " failed: ", t), reply, event.ticket);
                return;
            }
            record(in, result, reply, event.ticket);
            inFlightOps = engine.inFlightOps();
            launchedOps = engine.launchedOps();
            appliedSequence = in.sequence();
            if (observer != null)
            {
                observer.onApplied();
            }
            try
            {
                releaseThrough(sequence, endOfBatch);
            }
            catch (final Throwable t)
            {
                stop(reason("journal or side effects of input #", in.sequence(), in.type(), " failed: ", t), null,
                    0);
                return;
            }
            if (endOfBatch && batchEnd != null)
            {
                batchEnd.onBatchEnd();
            }
        }

        /**
         * Record the document's side effects in order: its launches, the loads it finished, the caller's answer
         * (the decision is filled now, from the state this input left).
         */
        private void record(final InputRecord in, final int result, final Reply reply, final long ticket)
        {
            final long seq = in.sequence();
            final EffectList effects = engine.effects();
            for (int i = 0; i < effects.size(); i++)
            {
                final EffectType type = effects.type(i);
                if (type == EffectType.OP_LAUNCHED)
                {
                    pending.add(seq, PendingSideEffects.LAUNCH, effects.id(i), null);
                }
                else if ((type == EffectType.OP_ACKED || type == EffectType.OP_FAILED) &&
                    (effects.opKind(i) == OpKind.LOAD || effects.opKind(i) == OpKind.COW))
                {
                    pending.add(seq, type == EffectType.OP_ACKED ? PendingSideEffects.LOAD_DONE :
                        PendingSideEffects.LOAD_FAILED, effects.id(i), null);
                    unannounced = unannounced + 1;
                }
            }
            if (reply != null)
            {
                DecisionFiller.fill(engine, in, result, reply.decision);
                pending.add(seq, PendingSideEffects.REPLY, ticket, reply);
            }
        }

        /**
         * Release what the journal has appended; with {@code await}, wait until it has appended {@code upTo} first
         * (the end of a batch, or no room left for the next input's side effects).
         */
        /**
         * Close's barrier: every input before it is applied; wait for their documents and run their side effects,
         * then refuse callers' inputs from here on and answer the closing thread.
         */
        private void passBarrier(final Reply reply, final long ticket)
        {
            if (failure == null)
            {
                try
                {
                    releaseThrough(sequence, true);
                }
                catch (final Throwable t)
                {
                    stop(reason("journal or side effects before close after input #", sequence, null, " failed: ",
                        t), null, 0);
                }
            }
            refusing = true;
            answer(reply, ticket, ResultCode.OK);
        }

        private void releaseThrough(final long upTo, final boolean await)
        {
            if (pending.size() == 0)
            {
                return;
            }
            long appended = journal.appendedSequence();
            if (await && appended < upTo)
            {
                journal.awaitAppended(upTo);
                appended = upTo;
            }
            pending.release(appended, this);
        }

        @Override
        public void release(final byte kind, final long value, final Reply reply)
        {
            switch (kind)
            {
                case PendingSideEffects.LAUNCH:
                    dispatcher.launch(value, engine.ops());
                    break;
                case PendingSideEffects.LOAD_DONE:
                case PendingSideEffects.LOAD_FAILED:
                    completions.offer(value, kind == PendingSideEffects.LOAD_DONE);
                    unannounced = unannounced - 1;
                    break;
                default:
                    reply.complete(value);
                    break;
            }
        }

        /**
         * Fail-stop: record the reason, answer the current caller and every caller still waiting for an unappended
         * document with {@link ResultCode#ENGINE_STOPPED}; side effects of documents the journal did append still
         * run, nothing else does.
         */
        private void stop(final String reason, final Reply reply, final long ticket)
        {
            failure = reason;
            // Published before anyone is answered: a caller told ENGINE_STOPPED reads FAILED in the counters.
            try
            {
                if (observer != null)
                {
                    observer.onFailed();
                }
            }
            catch (final Throwable ignore)
            {
                // the counters could not record it; the callers are still answered
            }
            answer(reply, ticket, ResultCode.ENGINE_STOPPED);
            long appended;
            try
            {
                appended = journal.appendedSequence();
            }
            catch (final Throwable ignore)
            {
                appended = 0;
            }
            try
            {
                pending.release(appended, this);
            }
            catch (final Throwable ignore)
            {
                // the data plane refused a launch while stopping; the journal already holds the decision
            }
            pending.release(Long.MAX_VALUE, failed);
        }

        private void answer(final Reply reply, final long ticket, final int code)
        {
            if (reply != null)
            {
                reply.decision.clear();
                reply.decision.resultCode = code;
                reply.complete(ticket);
            }
        }
    }

    /**
     * A failure's reason, {@code prefix + number (+ " " + what) + how + cause}, or {@link #FAILED_WITHOUT_DETAIL} when
     * building it fails (out of memory, most likely, or a cause whose description throws).
     */
    static String reason(final String prefix, final long number, final Object what, final String how,
        final Throwable cause)
    {
        try
        {
            // a journal failure's message names the file and the reason; its class name adds nothing
            final Object why = cause instanceof JournalException ? cause.getMessage() : cause;
            return prefix + number + (null == what ? "" : " " + what) + how + why;
        }
        catch (final Throwable ignore)
        {
            return FAILED_WITHOUT_DETAIL;
        }
    }

    private final class FailStop implements ExceptionHandler<EngineEvent>
    {
        @Override
        public void handleEventException(final Throwable ex, final long ringSequence, final EngineEvent event)
        {
            failure = reason("engine thread failed at ring sequence ", ringSequence, null, ": ", ex);
            if (event != null && event.reply != null)
            {
                event.reply.decision.resultCode = ResultCode.ENGINE_STOPPED;
                event.reply.complete(event.ticket);
            }
            try
            {
                if (observer != null)
                {
                    observer.onFailed();
                }
            }
            catch (final Throwable ignore)
            {
                // the counters could not record it; the callers were answered
            }
        }

        @Override
        public void handleOnStartException(final Throwable ex)
        {
            failure = "engine thread failed to start: " + ex;
        }

        @Override
        public void handleOnShutdownException(final Throwable ex)
        {
        }
    }
}
