package io.kvledger.engine.device;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The copy kernel's PTX text, carried as the resource {@code io/kvledger/engine/device/copy.ptx} and handed to
 * the driver by {@link CudaDeviceBackend} ({@code cuModuleLoadData}), which compiles it for the GPU present: no
 * CUDA toolkit is needed at run time.
 * <p>
 * The kernel {@value #ENTRY} copies one entry of a {@link CopyPlanner} table per thread block. Free of JCuda, so
 * it can be read and checked on a machine without a GPU. Any thread.
 */
public final class CopyKernel
{
    /** Resource name, next to this class. */
    public static final String RESOURCE = "copy.ptx";
    /** Name of the kernel's entry point. */
    public static final String ENTRY = "kvledger_copy";

    private CopyKernel()
    {
    }

    /**
     * The PTX text.
     *
     * @return the whole resource as ASCII text.
     * @throws IllegalStateException when the resource is missing or unreadable.
     */
    public static String ptx()
    {
        try (InputStream in = CopyKernel.class.getResourceAsStream(RESOURCE))
        {
            if (null == in)
            {
                throw new IllegalStateException("cuda: copy kernel resource " + RESOURCE + " not found");
            }
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.US_ASCII);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cuda: copy kernel resource " + RESOURCE + " unreadable: " + ex, ex);
        }
    }

    /**
     * The PTX as the NUL-terminated image {@code cuModuleLoadData} takes.
     *
     * @return ASCII bytes followed by one zero byte.
     */
    static byte[] image()
    {
        final byte[] text = ptx().getBytes(StandardCharsets.US_ASCII);
        final byte[] image = new byte[text.length + 1];
        System.arraycopy(text, 0, image, 0, text.length);
        return image;
    }
}
