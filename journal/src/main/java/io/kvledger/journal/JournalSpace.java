package io.kvledger.journal;

import java.io.File;

/**
 * Reserves the file system blocks of the queue file a {@link JournalWriter} appends to, ahead of its write position,
 * so that a full file system fails an append cleanly, before any byte of it is written.
 * <p>
 * Why: Chronicle Queue grows its files as sparse files and writes them through a memory mapping. On a full file
 * system the first write to a hole of the mapping cannot get a block and the kernel answers with {@code SIGBUS};
 * HotSpot turns that into an asynchronous {@link InternalError} ("a fault occurred in a recent unsafe memory access
 * operation") delivered at some later point of the thread, so the append that lost its bytes may already have
 * returned, and the journal ends in a torn document. With the blocks reserved first
 * ({@link FileBlocks#allocate}, {@code fallocate} keeping the file's size), the mapping's writes never meet a hole: an
 * append whose blocks cannot be reserved throws a {@link JournalException} naming the full file system and appends
 * nothing; every append that returned is on the file system.
 * <p>
 * Before a document at file offset {@code start} of {@code length} bytes is written, the file must be reserved up to
 * {@code start + length + }{@link #MARGIN}: the margin covers what Chronicle itself writes after the document before
 * the next reservation (the next document's 4-byte header, an index array of {@link JournalWriter#ROLL_CYCLE} and
 * its index-of-indexes entry, the end-of-file marker on a roll). Reservations reach {@link #LEAD} further, in whole
 * {@link #CHUNK}s, so one call in a few thousand documents reaches the file system; when that no longer fits, exactly
 * what the document needs is tried before the append is refused, so the journal uses the file system to its last
 * usable bytes. The pretouch thread writes pages only below {@link #limit()}.
 * <p>
 * Where the file system cannot allocate ahead ({@code EOPNOTSUPP}: some network and copy-on-write file systems; not
 * Linux; no JNA native library), reservation is off and the writer behaves as Chronicle does alone
 * ({@link #reserving()} says which).
 * <p>
 * A reservation costs the appending thread one {@code fallocate} of a megabyte per ~1,000 pr-bench documents (3.4 µs
 * each on the ext4 disk of the 2-core build VM); the common case is a comparison. Writer thread only.
 */
final class JournalSpace
{
    /** Bytes reserved per call to the file system when there is room. */
    static final long CHUNK = 1L << 20;
    /** Bytes reserved beyond the end of each document for what Chronicle writes after it. */
    static final long MARGIN = 256L * 1024;
    /**
     * Bytes reserved beyond what a document needs when there is room, so the {@link QueuePretoucher}, which touches
     * only reserved pages ({@link #limit}), keeps a lead of a few megabytes on an inline writer.
     */
    static final long LEAD = 3L << 20;

    private final FileBlocks blocks;
    private boolean reserving = true;
    private File file;
    private long reservedTo;
    private int fd = -1;
    private long reservedCalls;

    JournalSpace()
    {
        this(FileBlocks.system());
    }

    /**
     * @param blocks the file system's calls (a test's stand-in for one that fills up).
     */
    JournalSpace(final FileBlocks blocks)
    {
        this.blocks = blocks;
    }

    /** @return whether blocks are reserved ahead of the writer (false where the file system cannot). */
    boolean reserving()
    {
        return reserving;
    }

    /**
     * @return the file offset up to which the writer's current file is reserved, or {@link Long#MAX_VALUE} when
     *         nothing is reserved ahead (reservation off): where the {@link QueuePretoucher} may write pages without
     *         meeting a hole the file system cannot fill (a {@code SIGBUS} in its own mapping stops the JVM).
     */
    long limit()
    {
        return reserving ? reservedTo : Long.MAX_VALUE;
    }

    /** @return calls that reached the file system so far (for tests and diagnostics). */
    long reservedCalls()
    {
        return reservedCalls;
    }

    /**
     * Make sure {@code queueFile} is reserved through {@code [0, end + MARGIN)}. Writer thread.
     *
     * @param queueFile the file about to be written.
     * @param end       file offset after the document about to be written.
     * @throws JournalException when the file system has no room for it (or fails otherwise); nothing was written.
     */
    void reserve(final File queueFile, final long end)
    {
        final long need = end + MARGIN;
        if (!reserving || null == queueFile || (queueFile == file && need <= reservedTo))
        {
            return;
        }
        final int errno = extend(queueFile, need, need + LEAD);
        if (0 != errno)
        {
            throw new JournalException("cannot reserve room for the next document in " + queueFile + " up to byte " +
                need + " (" + describe(errno) + "); nothing of it was written");
        }
    }

    /**
     * Reserve all of a small file that Chronicle maps whole and writes later in places (the queue's
     * {@code metadata.cq4t}, 128 KiB of which one page is written when it is created).
     *
     * @param whole the file.
     * @throws JournalException when the file system has no room for it.
     */
    void reserveWhole(final File whole)
    {
        final long length = whole.length();
        if (!reserving || length <= 0)
        {
            return;
        }
        final int opened = blocks.open(whole.getPath());
        if (opened < 0)
        {
            off(openErrno(opened));
            return;
        }
        final int errno = allocate(opened, 0, length);
        blocks.close(opened);
        if (isFull(errno))
        {
            throw new JournalException("cannot reserve the " + length + " bytes of " + whole + " (" +
                describe(errno) + ")");
        }
        off(errno);
    }

    /** Release the descriptor. */
    void close()
    {
        closeFile();
        file = null;
        reservedTo = 0;
    }

    private int extend(final File queueFile, final long need, final long target)
    {
        if (queueFile != file)
        {
            closeFile();
            reservedTo = 0;
            final int opened = blocks.open(queueFile.getPath());
            if (opened < 0)
            {
                return off(openErrno(opened));
            }
            fd = opened;
            file = queueFile;
        }
        if (need <= reservedTo)
        {
            return 0;
        }
        final long from = reservedTo;
        final long chunkEnd = (target + CHUNK - 1) & -CHUNK;
        int errno = allocate(fd, from, chunkEnd - from);
        if (0 == errno)
        {
            reservedTo = chunkEnd;
            return 0;
        }
        if (isFull(errno) && chunkEnd > need)
        {
            errno = allocate(fd, from, need - from);
            if (0 == errno)
            {
                reservedTo = need;
                return 0;
            }
        }
        return isFull(errno) ? errno : off(errno);
    }

    /** {@link FileBlocks#allocate}, repeated while a signal interrupts it. */
    private int allocate(final int descriptor, final long offset, final long length)
    {
        int errno;
        do
        {
            reservedCalls++;
            errno = blocks.allocate(descriptor, offset, length);
        }
        while (LibC.EINTR == errno);
        return errno;
    }

    /** The errno of a failed {@link FileBlocks#open}: it answers minus the errno, or {@link FileBlocks#UNAVAILABLE}. */
    private static int openErrno(final int opened)
    {
        return FileBlocks.UNAVAILABLE == opened ? opened : -opened;
    }

    /** A failure that leaves the writer without room: any errno but those that say reservation is not possible. */
    private static boolean isFull(final int errno)
    {
        return 0 != errno && !unsupported(errno);
    }

    private static boolean unsupported(final int errno)
    {
        return FileBlocks.UNAVAILABLE == errno || LibC.EOPNOTSUPP == errno || LibC.ENOSYS == errno ||
            LibC.EINVAL == errno; // a file system that takes no KEEP_SIZE mode
    }

    private int off(final int errno)
    {
        if (unsupported(errno))
        {
            reserving = false;
            closeFile();
            return 0;
        }
        return errno;
    }

    private void closeFile()
    {
        if (fd >= 0)
        {
            blocks.close(fd);
            fd = -1;
        }
    }

    static String describe(final int errno)
    {
        switch (errno)
        {
            case LibC.ENOSPC:
                return "no space left on the device";
            case LibC.EDQUOT:
                return "disk quota exceeded";
            case LibC.EFBIG:
                return "file too large";
            case LibC.EIO:
                return "input/output error";
            default:
                return "errno " + errno;
        }
    }
}
