package io.kvledger.replay.check;

/**
 * The invariants of the domain reference (hicache-domain.md section 6), as DESIGN.md states them for kvledger.
 * Each {@link Violation} names one; the description is a one-line reminder for reports.
 */
public enum Invariant
{
    I1("Tree structure: a node is inserted under a live parent, once, with a non-empty run of pages and a consistent " +
        "depth; a deleted node has no children"),
    I2("A node's page count equals the device KV pages it owns"),
    I3("Match soundness: matched device pages form an unbroken root path"),
    I4("A node without FULL device data holds no Mamba device data either"),
    I5("Lock counts never go negative; every unlock replays exactly one held receipt; released owners hold no locks"),
    I6("Evictable plus protected size per component equals the total of present values"),
    I7("Nodes under an in-flight load, copy-on-write or backup are locked and never evicted or deleted until ack or " +
        "cancel (loads hold their own lock)"),
    I8("No node ever owns host staging (buffer-only mode)"),
    I9("Every host staging slot has one owner and is freed exactly once, at that owner's terminal event (no leak)"),
    I10("Staging occupancy counters equal the sum of fetches, holds and in-flight loads"),
    I11("A staged hold is spliced page-aligned and the tree slice equals the load's destinations"),
    I12("Every slot is in exactly one state (FREE, one request, one node, one op, PENDING_FREE); no double free, no " +
        "owner confusion, no leak"),
    I13("A slot written by a queued or launched load, fetch, backup or copy-on-write (or read by a launched op) is " +
        "neither freed nor handed to another owner until ack or cancel"),
    I14("A Mamba state lives only on a checkpoint node, at most one per node, never on a split parent; no " +
        "copy-on-write from a checkpoint whose load is in flight"),
    I15("A redundant node slot of a load is released exactly once, at the load's ack"),
    I16("A request in a launched batch has a Mamba slot with defined content"),
    I17("ReplaySSM cursors are zero whenever a device Mamba slot changes owner or is filled by a load or " +
        "copy-on-write"),
    I18("Admission reserves every Mamba slot its allocation then takes; pools are conserved " +
        "(free + owned + pending = capacity)"),
    I19("Every operation moves QUEUED -> LAUNCHED -> ACKED|FAILED or QUEUED -> CANCELLED exactly once; requests " +
        "follow their lifecycle"),
    I20("The event log is identical across tensor-parallel ranks");

    private final String description;

    Invariant(final String description)
    {
        this.description = description;
    }

    /**
     * @return one-line description of the invariant.
     */
    public String description()
    {
        return description;
    }
}
