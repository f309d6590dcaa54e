package io.kvledger.engine.util;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;

/**
 * The one worker-thread lifecycle of the device and store workers: an Agrona {@link AgentRunner} running one
 * {@link Agent} on a daemon thread named after the agent's role.
 * <p>
 * Owns the runner and its thread. A worker stops by draining: its owner tells the agent to stop (the agent's own
 * flag), the agent finishes the work already handed to it and then throws {@link #drained()}, which ends the
 * duty cycle loop and runs {@link Agent#onClose()} on the worker thread. {@link #close()} waits for that at most
 * {@link #DRAIN_TIMEOUT_MS}, then closes the runner, which stops the agent after its current duty cycle
 * (interrupting it every {@link #CLOSE_RETRY_MS} until it has). Any other exception escaping a duty cycle is
 * printed to stderr as an uncaught exception would be, and the worker goes on; an {@link Error} ends it.
 */
public final class AgentWorker implements AutoCloseable
{
    /** How long {@link #close()} waits for an agent to drain its work before stopping it. */
    public static final long DRAIN_TIMEOUT_MS = 10_000;
    /** How often {@link #close()} interrupts an agent that does not stop. */
    public static final int CLOSE_RETRY_MS = 1_000;

    private final AgentRunner runner;
    private Thread thread;

    /**
     * @param agent        the worker's duty cycle.
     * @param idleStrategy how it waits when a duty cycle did no work.
     */
    public AgentWorker(final Agent agent, final IdleStrategy idleStrategy)
    {
        runner = new AgentRunner(idleStrategy, AgentWorker::report, null, agent);
    }

    /**
     * The exception an agent throws once it was told to stop and has no work left: it ends the worker quietly.
     *
     * @return a new expected termination.
     */
    public static AgentTerminationException drained()
    {
        return new AgentTerminationException(true);
    }

    /**
     * Start the worker thread (a daemon named after the agent's role). At most once.
     */
    public synchronized void start()
    {
        if (null != thread)
        {
            throw new IllegalStateException("worker already started: " + runner.agent().roleName());
        }
        thread = AgentRunner.startOnThread(runner, AgentWorker::daemonThread);
    }

    /**
     * Wait for the agent to drain (at most {@link #DRAIN_TIMEOUT_MS}), then close the runner and wait for the
     * thread to end. The caller's interrupt status is kept. A worker never started only closes its agent.
     */
    public void close()
    {
        final Thread worker;
        synchronized (this)
        {
            worker = thread;
        }
        boolean interrupted = false;
        if (null != worker)
        {
            final long deadlineNs = System.nanoTime() + DRAIN_TIMEOUT_MS * 1_000_000L;
            long leftNs;
            while (worker.isAlive() && (leftNs = deadlineNs - System.nanoTime()) > 0)
            {
                try
                {
                    worker.join(Math.max(1, leftNs / 1_000_000L));
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
        }
        runner.close(CLOSE_RETRY_MS, AgentWorker::reportSlowClose);
        if (interrupted || Thread.interrupted())
        {
            Thread.currentThread().interrupt();
        }
    }

    private static Thread daemonThread(final Runnable runnable)
    {
        final Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        return thread;
    }

    private static void report(final Throwable ex)
    {
        System.err.print("Exception in thread \"" + Thread.currentThread().getName() + "\" ");
        ex.printStackTrace();
    }

    private static void reportSlowClose(final Thread thread)
    {
        System.err.println("worker " + thread.getName() + " did not stop within " + CLOSE_RETRY_MS +
            " ms; interrupting it");
    }
}
