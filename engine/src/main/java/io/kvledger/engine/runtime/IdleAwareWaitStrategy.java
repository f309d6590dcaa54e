package io.kvledger.engine.runtime;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * A wait strategy that tells the waiting thread's owner, just before it would wait, that no input is there: the
 * moment for background work that must not delay an input (Aeron's duty cycle: an agent does its housekeeping when
 * it found no work). Everything else is the delegate's.
 * <p>
 * Thread ownership: {@link #waitFor} runs on the consumer threads; the callback runs on the thread that calls it.
 */
final class IdleAwareWaitStrategy implements WaitStrategy
{
    /** Told on the waiting thread. */
    @FunctionalInterface
    interface IdleListener
    {
        /** No input is available; the thread is about to wait for one. */
        void onIdle();
    }

    private final WaitStrategy delegate;
    private final IdleListener listener;

    /**
     * @param delegate how to wait.
     * @param listener told before a wait.
     */
    IdleAwareWaitStrategy(final WaitStrategy delegate, final IdleListener listener)
    {
        this.delegate = delegate;
        this.listener = listener;
    }

    @Override
    public long waitFor(final long sequence, final Sequence cursor, final Sequence dependentSequence,
        final SequenceBarrier barrier) throws AlertException, InterruptedException, TimeoutException
    {
        if (dependentSequence.get() < sequence)
        {
            listener.onIdle();
        }
        return delegate.waitFor(sequence, cursor, dependentSequence, barrier);
    }

    @Override
    public void signalAllWhenBlocking()
    {
        delegate.signalAllWhenBlocking();
    }
}
