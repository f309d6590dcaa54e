package io.kvledger.engine.device;

import java.util.Locale;

/**
 * How the cuda backend moves a batch between host and device memory, like SGLang HiCache's
 * {@code --hicache-io-backend}: one copy kernel launch per batch over mapped pinned host memory, or one
 * {@code cuMemcpyAsync} per slot; or, chosen explicitly, batches posted to a copy kernel left resident on the GPU.
 */
public enum CudaCopyPath
{
    /** One launch of the PTX copy kernel per batch ({@code copy.ptx}); the default. */
    KERNEL,
    /** One {@code cuMemcpy*Async} per slot copy; the fallback, and the comparison. */
    DIRECT,
    /**
     * The copy kernel launched once per stream and left running ({@link ResidentCopier}): a batch is posted by
     * writing its descriptor and a doorbell to mapped pinned memory, and seen done by a sequence the kernel writes
     * back, with no driver call either way (copies of the kernel path's split size and more still go to the copy
     * engine beside it, one call each, after the doorbell). It keeps part of the GPU busy polling and measured no
     * faster than the kernel path, so it is not the default; where it cannot start, the backend takes the kernel
     * path.
     */
    RESIDENT;

    /**
     * The name used on the command line.
     *
     * @return "kernel", "direct" or "resident".
     */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parse a command-line name.
     *
     * @param name "kernel", "direct" or "resident", any case.
     * @return the path, or null for an unknown name.
     */
    public static CudaCopyPath parse(final String name)
    {
        if (null == name)
        {
            return null;
        }
        switch (name.toLowerCase(Locale.ROOT))
        {
            case "kernel": return KERNEL;
            case "direct": return DIRECT;
            case "resident": return RESIDENT;
            default: return null;
        }
    }
}
