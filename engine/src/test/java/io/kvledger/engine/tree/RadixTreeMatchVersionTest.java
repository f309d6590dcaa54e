package io.kvledger.engine.tree;

import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.SlotState;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * {@link RadixTree#matchVersion} moves on every change a match can see (a new leaf, a split, a deleted node, a
 * loading mark set or cleared, a Mamba state attached or dropped) and stays put on what a match does not read
 * (locks, access sequences, matches).
 */
class RadixTreeMatchVersionTest
{
    private final TreeFixture f = new TreeFixture(64, 8, 32, 32);

    private long version()
    {
        return f.tree.matchVersion();
    }

    @Test
    void shouldMoveOnEveryChangeAMatchCanSee()
    {
        long v = version();
        final int abc = f.node(1, 0, 1, 2, 3);
        assertNotEquals(v, v = version(), "a new leaf");

        final int upper = f.tree.split(abc, 2);
        assertNotEquals(v, v = version(), "a split");

        f.tree.markLoading(abc, 77);
        assertNotEquals(v, v = version(), "a loading mark");
        f.tree.markLoading(abc, RadixTree.NO_OP);
        assertNotEquals(v, v = version(), "a loading mark cleared");

        final int slot = f.mambaPool.allocate(SlotState.REQUEST, TreeFixture.REQUEST);
        assertEquals(ResultCode.OK, f.tree.attachMamba(upper, slot));
        assertNotEquals(v, v = version(), "a Mamba state attached");
        assertEquals(1, f.tree.evictMamba(1, false), "the inner node's state goes, the node stays");
        assertNotEquals(v, v = version(), "a Mamba state dropped");

        assertEquals(ResultCode.OK, f.tree.deleteLeaf(abc));
        assertNotEquals(v, v = version(), "a deleted leaf");
        assertEquals(2, f.tree.evictPages(8, false));
        assertNotEquals(v, version(), "an evicted leaf");
    }

    @Test
    void shouldStayOnWhatAMatchDoesNotRead()
    {
        final int node = f.node(1, 0, 1, 2, 3);
        final long v = version();
        final long receipt = f.tree.lock(node, Component.FULL, SlotState.REQUEST, 5);
        f.tree.touch(node, 2);
        f.match(false, 0, 1, 2, 3);
        f.match(true, 0, 1);
        assertEquals(ResultCode.OK, f.tree.unlock(receipt));
        assertEquals(0, f.tree.evictMamba(1, false), "no state to drop");
        assertEquals(v, version());
        f.node(3, 0, 1, 2, 3);
        assertEquals(v, version(), "inserting pages the tree holds changes no node");
    }
}
