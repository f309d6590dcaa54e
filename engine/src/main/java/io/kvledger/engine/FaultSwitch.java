package io.kvledger.engine;

import io.kvledger.journal.JournalPrinter;

import java.util.Locale;

/**
 * Fault switches: known bugs kept as real alternative code paths, off by default and recorded in the journal
 * header, so the checker is proven against real failure modes. The bit of each switch is its position in the
 * journal schema's FaultSet.
 */
public enum FaultSwitch
{
    /** Upstream bug 1. */
    RESERVE_REQUEST_SLOT_ONLY(0,
        "admission counts the request's Mamba slots but not the node slot its staged load needs; " +
        "the load then fails to allocate under pressure and a valid L3 hit is lost (breaks I18)"),
    /** Upstream bug 2. */
    FREE_ON_RETRACT_WITH_QUEUED_LOAD(1,
        "a retracted request's slots go straight back to the free list while its queued load still targets " +
        "them; another request gets a slot and the launched copy overwrites it (breaks I13)"),
    /** Upstream bug 3. */
    SKIP_CURSOR_RESET_ON_STAGED_LOAD(2,
        "a staged load writes the request and node Mamba slots without resetting their ReplaySSM cursors; " +
        "the first decode replays the previous tenant's ring entries (breaks I17)"),
    /** Double free. */
    DOUBLE_FREE_ON_ABORT(3,
        "abort of a running request frees its working Mamba slot twice, so the free list hands it out twice " +
        "(breaks I12)"),
    /** Leak. */
    LEAK_STAGING_ON_DROP(4,
        "dropping a staged hold forgets its last host staging page, which stays owned by a dead hold (breaks I9)"),
    /** Lock underflow. */
    UNLOCK_TWICE_ON_FINISH(5,
        "finish releases the request's node lock twice, stealing a lock count from another holder (breaks I5)"),
    /** Evicting a node under an in-flight load. */
    EVICT_NODE_WITH_INFLIGHT_LOAD(6,
        "eviction ignores the locks in-flight operations hold (a backup's on the node it reads, a load's) and " +
        "deletes a node under the copy; a node still marked loading is never a victim (breaks I7)"),
    /** Early free of the redundant node slot. */
    FREE_REDUNDANT_SLOT_AT_QUEUE(7,
        "when the loaded tail already has a Mamba state (or another in-flight state-only load attaches one to it " +
        "first), the redundant node slot is freed as the load is queued instead of at its ack, while the copy " +
        "still targets it (breaks I13, I15)"),
    /** Copy-on-write from a checkpoint whose own load is still in flight. */
    COW_FROM_LOADING_CHECKPOINT(8,
        "matching sees nodes whose load is still in flight, so copy-on-write can read a checkpoint before the " +
        "load has written it (breaks I14)"),
    /** Issue 9's first bug, restored: the parked-hit FIFO loses a live entry. */
    PARKED_HIT_NEVER_SERVED(9,
        "a hit that parks behind another is dropped from the staging FIFO (as a full ring overwrote it), so its " +
        "fetch never starts even when staging frees up: under wait_complete the request waits for ever (liveness)"),
    /** Issue 9's second bug, restored: pages the tree already held are backed up again. */
    BACKUP_CACHED_PAGES(10,
        "finish backs up from the request's own cached count, not what the tree already held, so pages another " +
        "request computed and stored are copied to host and written to L3 again (wasted staging and bandwidth)"),
    /** Issue 9's third bug, restored: an oversize backup blocks the backlog. */
    OVERSIZE_BACKUP_BLOCKS(11,
        "a backup that needs more host staging than writes may ever use stays at the head of the backlog for " +
        "ever, and no later backup starts (liveness)");

    private static final FaultSwitch[] SWITCHES = values();

    static
    {
        // The journal schema's FaultSet is the one source of switch names and bits; the enum must agree with it.
        for (final FaultSwitch f : SWITCHES)
        {
            if (!f.name().equals(JournalPrinter.faultName(f.bit)))
            {
                throw new IllegalStateException("fault switch " + f + " is bit " + f.bit + " but the journal schema " +
                    "calls that bit " + JournalPrinter.faultName(f.bit));
            }
        }
    }

    private final int bit;
    private final String description;

    FaultSwitch(final int bit, final String description)
    {
        if (bit != ordinal())
        {
            throw new IllegalStateException("bit must equal ordinal for " + name());
        }
        this.bit = bit;
        this.description = description;
    }

    /** @return position in the journal schema's FaultSet. */
    public int bit()
    {
        return bit;
    }

    /** @return one-line description of the bug it reproduces. */
    public String description()
    {
        return description;
    }

    /**
     * @param mask fault bit mask.
     * @return whether this switch is on in the mask.
     */
    public boolean isOn(final long mask)
    {
        return (mask & (1L << bit)) != 0;
    }

    /** @return the switches in bit order (a cached array; do not modify). */
    public static FaultSwitch[] all()
    {
        return SWITCHES;
    }

    /**
     * Parse a switch name, case-insensitive, with '-' accepted for '_'.
     *
     * @param name switch name.
     * @return the switch, or null when unknown.
     */
    public static FaultSwitch parse(final String name)
    {
        final String normal = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final FaultSwitch s : SWITCHES)
        {
            if (s.name().equals(normal))
            {
                return s;
            }
        }
        return null;
    }

    /**
     * @param mask fault bit mask.
     * @return names of the switches on, comma separated, or "none".
     */
    public static String describeMask(final long mask)
    {
        final StringBuilder sb = new StringBuilder();
        for (final FaultSwitch s : SWITCHES)
        {
            if (s.isOn(mask))
            {
                if (sb.length() > 0)
                {
                    sb.append(',');
                }
                sb.append(s.name());
            }
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
