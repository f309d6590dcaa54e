package io.kvledger.engine.device;

import java.util.Locale;

/**
 * How the cuda backend moves a batch between host and device memory, like SGLang HiCache's
 * {@code --hicache-io-backend}: one copy kernel launch per batch over mapped pinned host memory, or one
 * {@code cuMemcpyAsync} per slot.
 */
public enum CudaCopyPath
{
    /** One launch of the PTX copy kernel per batch ({@code copy.ptx}); the default. */
    KERNEL,
    /** One {@code cuMemcpy*Async} per slot copy; the fallback, and the comparison. */
    DIRECT;

    /**
     * The name used on the command line.
     *
     * @return "kernel" or "direct".
     */
    public String cliName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parse a command-line name.
     *
     * @param name "kernel" or "direct", any case.
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
            default: return null;
        }
    }
}
