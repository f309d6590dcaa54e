package io.kvledger.journal;

import com.sun.jna.LastErrorException;

import java.util.Locale;

/**
 * Allocates a file's blocks on its file system without writing or resizing it: Linux's
 * {@code fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length)}, through JNA. {@link JournalSpace} uses it to reserve the
 * blocks of the memory-mapped queue file ahead of the writer, so that a full file system is reported by a call that
 * returns {@code ENOSPC} rather than by a {@code SIGBUS} on the first write to a hole of the mapping.
 * <p>
 * Each method answers an errno rather than throwing, so a test can stand in for the file system
 * ({@link JournalSpace#JournalSpace(FileBlocks)}). Not thread-safe; one instance per {@link JournalSpace}.
 */
interface FileBlocks
{
    /** Not an errno nor a descriptor: the native call is not available on this system at all. */
    int UNAVAILABLE = Integer.MIN_VALUE;

    /**
     * Open a file for writing.
     *
     * @param path the file.
     * @return a file descriptor (zero or more), minus an errno, or {@link #UNAVAILABLE}.
     */
    int open(String path);

    /**
     * Allocate {@code [offset, offset + length)} of an open file, keeping its size.
     *
     * @return 0, or the errno of the failure ({@link #UNAVAILABLE} where the call is missing).
     */
    int allocate(int fd, long offset, long length);

    /** Close a descriptor from {@link #open}. */
    void close(int fd);

    /**
     * @return the C library's calls on Linux; elsewhere an implementation that answers {@link #UNAVAILABLE}.
     */
    static FileBlocks system()
    {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux") ||
            Boolean.getBoolean("kvledger.journal.noReserve"))
        {
            return Unavailable.INSTANCE;
        }
        return new Native64();
    }

    /** The answer everywhere the call is missing. */
    final class Unavailable implements FileBlocks
    {
        static final Unavailable INSTANCE = new Unavailable();

        public int open(final String path)
        {
            return UNAVAILABLE;
        }

        public int allocate(final int fd, final long offset, final long length)
        {
            return UNAVAILABLE;
        }

        public void close(final int fd)
        {
        }
    }

    /** The C library's {@code open}, {@code fallocate} and {@code close}, 64-bit offsets (every 64-bit Linux). */
    final class Native64 implements FileBlocks
    {
        private static final int O_WRONLY = 1;
        private static final int O_CLOEXEC = 0x80000;
        private static final int FALLOC_FL_KEEP_SIZE = 1;

        private boolean unavailable;

        private LibC libc()
        {
            return unavailable ? null : LibC.instance();
        }

        public int open(final String path)
        {
            final LibC c = libc();
            if (null == c)
            {
                return UNAVAILABLE;
            }
            try
            {
                return c.open(path, O_WRONLY | O_CLOEXEC);
            }
            catch (final LastErrorException ex)
            {
                return -ex.getErrorCode();
            }
        }

        public int allocate(final int fd, final long offset, final long length)
        {
            final LibC c = libc();
            if (null == c)
            {
                return UNAVAILABLE;
            }
            try
            {
                c.fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length);
                return 0;
            }
            catch (final LastErrorException ex)
            {
                return ex.getErrorCode();
            }
            catch (final LinkageError | RuntimeException ex)
            {
                unavailable = true;
                return UNAVAILABLE;
            }
        }

        public void close(final int fd)
        {
            final LibC c = libc();
            if (null != c && fd >= 0)
            {
                try
                {
                    c.close(fd);
                }
                catch (final LastErrorException ignore)
                {
                    // a descriptor used for fallocate only: nothing buffered to lose
                }
            }
        }
    }
}
