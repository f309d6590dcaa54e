package io.kvledger.engine.util;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentWorkerTest
{
    /** Has {@code backlog} items of work; ends once told to stop and the backlog is done. */
    private static final class BacklogAgent implements Agent
    {
        final AtomicInteger backlog = new AtomicInteger();
        final AtomicInteger done = new AtomicInteger();
        volatile boolean running = true;
        volatile String threadName;
        volatile boolean daemon;
        volatile boolean closedOnWorker;

        public void onStart()
        {
            threadName = Thread.currentThread().getName();
            daemon = Thread.currentThread().isDaemon();
        }

        public int doWork()
        {
            if (backlog.get() > 0)
            {
                backlog.decrementAndGet();
                done.incrementAndGet();
                return 1;
            }
            if (!running)
            {
                throw AgentWorker.drained();
            }
            return 0;
        }

        public void onClose()
        {
            closedOnWorker = Thread.currentThread().getName().equals(threadName);
        }

        public String roleName()
        {
            return "test-worker";
        }
    }

    @Test
    void closeDrainsTheWorkAlreadyHandedOver()
    {
        final BacklogAgent agent = new BacklogAgent();
        final AgentWorker worker = new AgentWorker(agent, new BusySpinIdleStrategy());
        worker.start();
        agent.backlog.set(10_000);
        agent.running = false;
        worker.close();

        assertEquals(10_000, agent.done.get());
        assertEquals("test-worker", agent.threadName);
        assertTrue(agent.daemon);
        assertTrue(agent.closedOnWorker);
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void startsOnce()
    {
        final BacklogAgent agent = new BacklogAgent();
        final AgentWorker worker = new AgentWorker(agent, new BusySpinIdleStrategy());
        worker.start();
        assertThrows(IllegalStateException.class, worker::start);
        agent.running = false;
        worker.close();
    }

    @Test
    void closeKeepsTheCallersInterruptStatus()
    {
        final BacklogAgent agent = new BacklogAgent();
        final AgentWorker worker = new AgentWorker(agent, new BusySpinIdleStrategy());
        worker.start();
        agent.running = false;
        Thread.currentThread().interrupt();
        worker.close();
        assertTrue(Thread.interrupted());
        assertTrue(agent.closedOnWorker);
    }
}
