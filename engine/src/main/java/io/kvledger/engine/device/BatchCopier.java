package io.kvledger.engine.device;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import jcuda.NativePointerObject;
import jcuda.driver.CUstream;

import java.lang.reflect.Field;

/**
 * A batch's copies as one {@code cuMemcpyBatchAsync} (CUDA 12.8 and later): the copy engine takes every page and
 * state of the batch from one driver call, where the per-page path makes one {@code cuMemcpyAsync} each. JCuda
 * 12.6 does not bind the call, so it is looked up in the driver library by JNA ({@code cuMemcpyBatchAsync_v2}, the
 * CUDA 13 signature without the failure index, else the 12.8 one) and called with the addresses of the slots as the
 * copy kernel sees them (host pools through their mapped pointers, one unified address space).
 * <p>
 * Measured against the copy kernel and the per-page path by {@code kvledger bench --device cuda --data-path}; not a
 * copy path of the backend. The arrays it passes are native memory it owns, written before each call; one instance
 * belongs to one thread.
 */
final class BatchCopier
{
    /** {@code CU_MEMCPY_SRC_ACCESS_ORDER_STREAM}: the sources are read in stream order. */
    private static final int SRC_ACCESS_ORDER_STREAM = 1;
    private static final int LOCATION_DEVICE = 1;
    private static final int LOCATION_HOST = 2;
    /** {@code CUmemcpyAttributes}: srcAccessOrder, srcLocHint {type, id}, dstLocHint {type, id}, flags. */
    private static final int ATTRIBUTE_BYTES = 24;
    /** JCuda keeps a handle's native pointer in a private field of its base class. */
    private static final Field NATIVE_POINTER = nativePointerField();

    private final Function batchAsync;
    private final boolean withFailIndex;
    private final String why;
    private final Memory dsts;
    private final Memory srcs;
    private final Memory sizes;
    private final Memory attributes;
    private final Memory attributeIndexes;
    private final Memory failIndex;
    private final int capacity;

    private BatchCopier(final Function batchAsync, final boolean withFailIndex, final String why, final int capacity)
    {
        this.batchAsync = batchAsync;
        this.withFailIndex = withFailIndex;
        this.why = why;
        this.capacity = capacity;
        if (null == batchAsync)
        {
            dsts = srcs = sizes = attributes = attributeIndexes = failIndex = null;
            return;
        }
        dsts = new Memory(8L * capacity);
        srcs = new Memory(8L * capacity);
        sizes = new Memory(8L * capacity);
        attributes = new Memory(ATTRIBUTE_BYTES);
        attributeIndexes = new Memory(8);
        failIndex = new Memory(8);
        attributeIndexes.setLong(0, 0);
    }

    /**
     * Look the call up in the driver library.
     *
     * @param capacity the most copies one call takes.
     * @return a copier; {@link #available()} says whether the driver has the call.
     */
    static BatchCopier load(final int capacity)
    {
        try
        {
            NativeLibrary library;
            try
            {
                library = NativeLibrary.getInstance("cuda");
            }
            catch (final UnsatisfiedLinkError unversionedMissing)
            {
                // a driver-only machine may have libcuda.so.1 without the development link
                library = NativeLibrary.getInstance("libcuda.so.1");
            }
            final NativeLibrary cuda = library;
            try
            {
                return new BatchCopier(cuda.getFunction("cuMemcpyBatchAsync_v2"), false, "", capacity);
            }
            catch (final UnsatisfiedLinkError v2Missing)
            {
                return new BatchCopier(cuda.getFunction("cuMemcpyBatchAsync"), true, "", capacity);
            }
        }
        catch (final UnsatisfiedLinkError | RuntimeException ex)
        {
            return new BatchCopier(null, false, "the driver has no cuMemcpyBatchAsync: " + ex.getMessage(), capacity);
        }
    }

    /** @return whether the driver has the call. */
    boolean available()
    {
        return null != batchAsync;
    }

    /** @return why the call is not available, or the empty string. */
    String whyNot()
    {
        return why;
    }

    /** @return which entry point is used, in words. */
    String describe()
    {
        return null == batchAsync ? "no cuMemcpyBatchAsync" :
            withFailIndex ? "cuMemcpyBatchAsync (CUDA 12.8 signature)" : "cuMemcpyBatchAsync_v2 (CUDA 13 signature)";
    }

    /**
     * Enqueue copies as one call on a stream: copy {@code i} moves {@code bytes[i]} from {@code src[i]} to
     * {@code dst[i]} (unified addresses).
     *
     * @param count    copies, at most the capacity.
     * @param toDevice host to device (the location hints), or device to host.
     * @return the CUresult.
     */
    int enqueue(final long[] dst, final long[] src, final long[] bytes, final int count, final boolean toDevice,
        final CUstream stream)
    {
        if (count > capacity)
        {
            throw new IllegalArgumentException(count + " copies, more than the " + capacity + " a call takes");
        }
        for (int i = 0; i < count; i++)
        {
            dsts.setLong(8L * i, dst[i]);
            srcs.setLong(8L * i, src[i]);
            sizes.setLong(8L * i, bytes[i]);
        }
        attributes.setInt(0, SRC_ACCESS_ORDER_STREAM);
        attributes.setInt(4, toDevice ? LOCATION_HOST : LOCATION_DEVICE);
        attributes.setInt(8, 0);
        attributes.setInt(12, toDevice ? LOCATION_DEVICE : LOCATION_HOST);
        attributes.setInt(16, 0);
        attributes.setInt(20, 0);
        final Pointer handle = new Pointer(nativePointer(stream));
        return withFailIndex ?
            batchAsync.invokeInt(new Object[]{dsts, srcs, sizes, (long)count, attributes, attributeIndexes, 1L,
                failIndex, handle}) :
            batchAsync.invokeInt(new Object[]{dsts, srcs, sizes, (long)count, attributes, attributeIndexes, 1L,
                handle});
    }

    private static long nativePointer(final NativePointerObject object)
    {
        try
        {
            return (long)NATIVE_POINTER.get(object);
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException("cannot read a JCuda handle", ex);
        }
    }

    private static Field nativePointerField()
    {
        try
        {
            final Field field = NativePointerObject.class.getDeclaredField("nativePointer");
            field.setAccessible(true);
            return field;
        }
        catch (final NoSuchFieldException ex)
        {
            throw new IllegalStateException("JCuda's handle class has changed", ex);
        }
    }
}
