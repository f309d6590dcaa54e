package io.kvledger.journal;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * Pre-faults the pages of the current queue file just ahead of a {@link JournalWriter}'s write position, on its own
 * daemon thread, so the first-touch page faults (block allocation and zeroing by the file system, ~2.6 ns per appended
 * byte on the appending thread otherwise) happen here and the writer only maps pages already in the page cache.
 * <p>
 * It maps the file itself and touches each page with a compare-and-swap of zero by zero, the way Chronicle's own
 * toucher does: a word the writer already wrote is left as it is, a zero stays zero, so the queue's content and its
 * torn-tail detection are unchanged. It never touches beyond the file's current length, nor beyond the blocks the
 * writer reserved ({@link JournalSpace}): a write to a hole of a full file system is a {@code SIGBUS}, which in this
 * thread's compare-and-swap (VM code, not a compiled unsafe access) stops the JVM. Chronicle Queue's
 * {@code ExcerptAppender.pretouch()} is not used: the open-source 2026.4 build logs that it needs the Enterprise
 * edition and fails with a StackOverflowError.
 * <p>
 * Thread-safe: {@link #published} is called by the writer thread, everything else runs on the toucher thread.
 */
final class QueuePretoucher implements Runnable
{
    /**
     * How far ahead of the write position pages are touched when a {@link Journaller} thread writes: on a small
     * machine the toucher then shares the cores with two busy threads, and a short lead spreads its page faults
     * instead of bursting them. When the application's own thread writes, the toucher faults in everything Chronicle
     * has allocated (measured faster for that writer on the 2-core build VM: pr-bench inline 6.8-7.2 µs a request
     * against 8.6-10.2 with the short lead).
     */
    static final long AHEAD_BYTES = 512L * 1024;

    private static final int PAGE = 4096;
    private static final long WINDOW_BYTES = 8L * 1024 * 1024;
    private static final long IDLE_NS = 200_000L;
    /** Longest sleep with the short lead, where the writer wakes the toucher when it needs pages (a safety net). */
    private static final long SHORT_LEAD_IDLE_NS = 5_000_000L;

    private final Thread thread;
    private volatile boolean running = true;
    private volatile File file;
    private volatile long position;
    private volatile long limit;
    private volatile long ahead = Long.MAX_VALUE / 4;
    private volatile long mappingAddress;
    private volatile long mappingStart;
    private volatile long mappingLimit;

    private final PagePopulator populator = new PagePopulator();

    private File mappedFile;
    private MappedByteBuffer mapped;
    private static final byte[] EMPTY = new byte[0];

    private final UnsafeBuffer window = new UnsafeBuffer(EMPTY);
    private long windowStart;
    private long windowEnd;
    private volatile long touchedTo;
    private volatile boolean parked;
    private long fileLength;
    private volatile long touchedPages;

    QueuePretoucher()
    {
        thread = new Thread(this, "kvledger-journal-pretouch");
        thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    /**
     * The writer appended up to {@code endPosition} of {@code queueFile}.
     *
     * @param queueFile   the file written (the same object until the cycle rolls).
     * @param endPosition   file offset after the last document.
     * @param reservedLimit file offset up to which the file's blocks are reserved ({@link JournalSpace#limit()}):
     *                      pages are touched only below it, so a full file system never meets this thread's writes.
     */
    void published(final File queueFile, final long endPosition, final long reservedLimit)
    {
        if (queueFile != file)
        {
            // The limit of the file before must not be read with the new file: zero first, then the file.
            limit = 0;
            file = queueFile;
        }
        position = endPosition;
        limit = reservedLimit;
        final long lead = ahead;
        if (lead < Long.MAX_VALUE / 8 && touchedTo - endPosition < lead / 2 && parked)
        {
            // With the short lead the toucher sleeps until the writer has used half of it: one wake-up for a run of
            // pages, instead of one every IDLE_NS that preempts the writer or the engine on a small machine.
            parked = false;
            LockSupport.unpark(thread);
        }
    }

    /**
     * The writer's own mapping of the file it writes now: file offsets {@code [start, limit)} at {@code address}. The
     * toucher then populates the pages ahead in that mapping ({@link PagePopulator}); a range outside it, or no
     * populating on this system, falls back to touching through the toucher's own mapping. The three values are
     * read without a lock: a stale or mixed view can only populate a range no longer the writer's, which changes
     * nothing. Writer thread.
     *
     * @param address address of file offset {@code start} in the writer's mapping.
     * @param start   first file offset mapped.
     * @param limit   file offset after the last one mapped.
     */
    void mapping(final long address, final long start, final long limit)
    {
        mappingStart = start;
        mappingLimit = limit;
        mappingAddress = address;
    }

    /** @return whether the pages ahead are populated in the writer's own mapping (rather than touched apart). */
    boolean populating()
    {
        return populator.available() && 0 != mappingAddress;
    }

    /** Touch at most {@link #AHEAD_BYTES} ahead of the write position from now on. */
    void shortLead()
    {
        ahead = AHEAD_BYTES;
    }

    /** @return pages touched so far (for tests and diagnostics). */
    long touchedPages()
    {
        return touchedPages;
    }

    /** Stop the thread and wait for it to release its mapping. */
    void close()
    {
        running = false;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive())
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run()
    {
        try
        {
            while (running)
            {
                if (!touchAhead())
                {
                    if (ahead < Long.MAX_VALUE / 8)
                    {
                        parked = true;
                        // half a lead ahead: sleep until the writer wakes it; otherwise the file's end or the
                        // reserved space stopped it, and it looks again shortly
                        LockSupport.parkNanos(touchedTo - position >= ahead / 2 ? SHORT_LEAD_IDLE_NS : IDLE_NS);
                        parked = false;
                    }
                    else
                    {
                        LockSupport.parkNanos(IDLE_NS);
                    }
                }
            }
        }
        catch (final RuntimeException | Error ex)
        {
            // Pre-faulting is an optimisation only: after a failure the writer faults its own pages, as without it.
            running = false;
        }
        finally
        {
            unmap();
        }
    }

    private boolean touchAhead()
    {
        final File current = file;
        if (null == current)
        {
            return false;
        }
        if (current != mappedFile)
        {
            unmap();
            mappedFile = current;
            touchedTo = 0;
            fileLength = 0;
        }
        final long written = position;
        final long lead = ahead;
        final long from = Math.max(touchedTo, (written + PAGE - 1) & -PAGE);
        // With the short lead, at most AHEAD_BYTES ahead of the writer: touching the whole block Chronicle allocated
        // at once costs thousands of page faults in one burst, on a core the journaller thread may need. Nothing is
        // touched while half the lead is still ahead, so the pages go in runs of half a lead (one populate call for
        // 64 pages) rather than one call per page the writer fills.
        if (lead < Long.MAX_VALUE / 8 && from - written >= lead / 2)
        {
            return false;
        }
        final long wanted = Math.min((written + lead) & -PAGE, limit & -PAGE);
        if (wanted > fileLength)
        {
            // the file's length is asked for only when the one known stops the touching (a stat a call otherwise)
            fileLength = current.length();
        }
        final long length = fileLength;
        final long to = Math.min(wanted, length & -PAGE);
        if (from >= to)
        {
            return false;
        }
        final long address = mappingAddress;
        final long start = mappingStart;
        final long end = Math.min(to, mappingLimit & -PAGE);
        if (0 != address && from >= start && end > from && populator.populate(address + (from - start), end - from))
        {
            touchedPages += (end - from) / PAGE;
            touchedTo = end;
            return true;
        }
        long page = from;
        while (page < to && running)
        {
            if (page < windowStart || page >= windowEnd)
            {
                map(current, page, length);
            }
            window.compareAndSetLong((int)(page - windowStart), 0L, 0L);
            page += PAGE;
        }
        touchedPages += (page - from) / PAGE;
        touchedTo = page;
        return true;
    }

    private void map(final File current, final long page, final long length)
    {
        unmapWindow();
        windowStart = page & -WINDOW_BYTES;
        windowEnd = Math.min(windowStart + WINDOW_BYTES, length & -PAGE);
        mapped = IoUtil.mapExistingFile(current, FileChannel.MapMode.READ_WRITE, "journal pretouch", windowStart,
            windowEnd - windowStart);
        window.wrap(mapped);
    }

    private void unmap()
    {
        unmapWindow();
        mappedFile = null;
    }

    private void unmapWindow()
    {
        if (null != mapped)
        {
            window.wrap(EMPTY);
            IoUtil.unmap(mapped);
            mapped = null;
        }
        windowStart = 0;
        windowEnd = 0;
    }
}
