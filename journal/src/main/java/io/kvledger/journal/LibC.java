package io.kvledger.journal;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The few C library calls the journal makes on Linux, through JNA, bound once per process on first use:
 * {@code madvise} for the {@link PagePopulator}, {@code open}, {@code fallocate} and {@code close} for
 * {@link FileBlocks}. Each throws {@link LastErrorException} with the errno when the call fails.
 */
interface LibC extends Library
{
    /** errno: interrupted by a signal; the call may be repeated. */
    int EINTR = 4;
    /** errno: input/output error. */
    int EIO = 5;
    /** errno: invalid argument (also: a mode or advice this kernel or file system does not know). */
    int EINVAL = 22;
    /** errno: file too large. */
    int EFBIG = 27;
    /** errno: no space left on the device. */
    int ENOSPC = 28;
    /** errno: no such system call. */
    int ENOSYS = 38;
    /** errno: operation not supported (a file system that does not allocate ahead). */
    int EOPNOTSUPP = 95;
    /** errno: disk quota exceeded. */
    int EDQUOT = 122;

    int madvise(Pointer address, long length, int advice) throws LastErrorException;

    int open(String path, int flags) throws LastErrorException;

    int fallocate(int fd, int mode, long offset, long length) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    /**
     * @return the binding, or null where JNA cannot bind the C library (no native library, not a C system).
     */
    static LibC instance()
    {
        return Binding.LIBC;
    }

    /** The binding, made when first asked for. */
    final class Binding
    {
        static final LibC LIBC = bind();

        private Binding()
        {
        }

        private static LibC bind()
        {
            try
            {
                return Native.load("c", LibC.class);
            }
            catch (final LinkageError | RuntimeException ex)
            {
                return null;
            }
        }
    }
}
