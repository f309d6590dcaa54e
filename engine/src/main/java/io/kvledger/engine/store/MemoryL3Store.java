package io.kvledger.engine.store;

import io.kvledger.engine.device.HostStaging;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.concurrent.ConcurrentHashMap;

/**
 * An L3 store in heap memory with the same semantics as {@link FileL3Store}, for tests: pages and Mamba states in
 * two maps keyed by fingerprint, nothing survives the process.
 * <p>
 * Thread ownership: operations as for every {@link L3Store}; the maps are concurrent so that a test may remove
 * objects from any thread ({@link #removePage(long, long)}) to simulate objects that vanish. Lookups on the I/O
 * thread reuse one probe key; each write allocates the stored copy.
 */
public final class MemoryL3Store extends AsyncL3Store
{
    private final ConcurrentHashMap<Key, byte[]> pages = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Key, byte[]> states = new ConcurrentHashMap<>();
    private final Key probe = new Key(0, 0);

    /**
     * Create a store with default limits (4096 pages per operation, 64 plans of each type).
     *
     * @param staging host staging memory the store reads from and fetches into.
     */
    public MemoryL3Store(final HostStaging staging)
    {
        this(staging, MAX_PAGES_PER_OP_DEFAULT, PLAN_COUNT_DEFAULT);
    }

    /**
     * Create a store.
     *
     * @param staging       host staging memory the store reads from and fetches into.
     * @param maxPagesPerOp most pages one operation may carry.
     * @param planCount     plans of each type (query, fetch, write): the most operations of a type in flight.
     */
    public MemoryL3Store(final HostStaging staging, final int maxPagesPerOp, final int planCount)
    {
        super(staging, maxPagesPerOp, planCount, "kvledger-l3-memory");
    }

    /**
     * {@inheritDoc}
     */
    public long pageCount()
    {
        return pages.size();
    }

    /**
     * {@inheritDoc}
     */
    public long mambaCount()
    {
        return states.size();
    }

    /**
     * Remove a page, as if it vanished from the store; any thread.
     *
     * @param hi fingerprint high bits.
     * @param lo fingerprint low bits.
     * @return true when it was stored.
     */
    public boolean removePage(final long hi, final long lo)
    {
        return null != pages.remove(new Key(hi, lo));
    }

    /**
     * Remove a Mamba state, as if it vanished from the store; any thread.
     *
     * @param hi fingerprint high bits of the page the state belongs to.
     * @param lo fingerprint low bits of that page.
     * @return true when it was stored.
     */
    public boolean removeMamba(final long hi, final long lo)
    {
        return null != states.remove(new Key(hi, lo));
    }

    /**
     * {@inheritDoc}
     */
    public String describe()
    {
        return "memory store: " + pages.size() + " pages, " + states.size() + " Mamba states";
    }

    boolean containsObject(final int kind, final long hi, final long lo)
    {
        final byte[] data = map(kind).get(probe.set(hi, lo));
        return null != data && data.length == expectedLength(kind);
    }

    int readObject(final int kind, final long hi, final long lo, final MutableDirectBuffer dst, final int length)
    {
        final byte[] data = map(kind).get(probe.set(hi, lo));
        if (null == data)
        {
            return READ_MISSING;
        }
        if (data.length != length)
        {
            return READ_CORRUPT;
        }
        dst.putBytes(0, data, 0, length);
        return READ_OK;
    }

    void writeObject(final int kind, final long hi, final long lo, final DirectBuffer src, final int length)
    {
        final byte[] data = new byte[length];
        src.getBytes(0, data, 0, length);
        map(kind).put(new Key(hi, lo), data);
    }

    private ConcurrentHashMap<Key, byte[]> map(final int kind)
    {
        return kind == PAGE ? pages : states;
    }

    private int expectedLength(final int kind)
    {
        return kind == PAGE ? kvPageBytes : mambaStateBytes;
    }

    private static final class Key
    {
        private long hi;
        private long lo;

        Key(final long hi, final long lo)
        {
            this.hi = hi;
            this.lo = lo;
        }

        Key set(final long hi, final long lo)
        {
            this.hi = hi;
            this.lo = lo;
            return this;
        }

        public boolean equals(final Object other)
        {
            if (!(other instanceof Key))
            {
                return false;
            }
            final Key that = (Key)other;
            return hi == that.hi && lo == that.lo;
        }

        public int hashCode()
        {
            return Long.hashCode(hi * 31 + lo);
        }
    }
}
