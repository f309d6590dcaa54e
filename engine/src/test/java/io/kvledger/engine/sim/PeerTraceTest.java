package io.kvledger.engine.sim;

import io.kvledger.engine.DocumentSink;
import io.kvledger.engine.ingress.Fingerprinter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The peer traces are generated exactly as {@code shared/peer-traces.md} describes them (its test vectors and
 * digests), and the attention-only lifecycle on them reproduces the published cross-check values.
 */
class PeerTraceTest
{
    @Test
    void shouldMatchTheTestVectors()
    {
        final SplittableRandom rnd = new SplittableRandom(1);
        assertEquals("10451216379200822465", Long.toUnsignedString(rnd.nextLong()));
        assertEquals("13757245211066428519", Long.toUnsignedString(rnd.nextLong()));
        assertEquals("17911839290282890590", Long.toUnsignedString(rnd.nextLong()));

        final PeerTrace pr = PeerTrace.generate(PeerTrace.Kind.PR_BENCH);
        final int[] first = new int[5];
        System.arraycopy(pr.request(0), 0, first, 0, 5);
        assertArrayEquals(new int[]{122465, 28519, 40590, 130235, 118761}, first);
    }

    @ParameterizedTest
    @EnumSource(PeerTrace.Kind.class)
    void shouldReproduceThePublishedDigests(final PeerTrace.Kind kind)
    {
        final PeerTrace trace = PeerTrace.generate(kind);
        assertEquals(kind.requests, trace.requestCount());
        assertEquals(kind.tokens, trace.tokenCount());
        assertEquals(kind.sha256, trace.sha256());
        trace.verifyDigest();
        assertEquals("all", trace.phases().get(trace.phases().size() - 1).name);
    }

    @ParameterizedTest
    @EnumSource(PeerTrace.Kind.class)
    void shouldReproduceTheCrossCheckValues(final PeerTrace.Kind kind)
    {
        final PeerTrace trace = PeerTrace.generate(kind);
        final PeerLifecycle lifecycle = new PeerLifecycle(PeerLifecycle.config(kind), DocumentSink.NONE);
        final Fingerprinter fingerprinter = new Fingerprinter(PeerTrace.PAGE_SIZE);
        final long[] hi = new long[128];
        final long[] lo = new long[128];
        for (int r = 0; r < trace.requestCount(); r++)
        {
            final int[] tokens = trace.request(r);
            final int pages = fingerprinter.fingerprint(0, tokens, tokens.length, hi, lo);
            lifecycle.serveMeasured(r + 1, hi, lo, pages, tokens.length - pages * PeerTrace.PAGE_SIZE);
        }
        lifecycle.engine().verify();
        assertEquals(kind.expectedHitTokens, lifecycle.hitPages() * PeerTrace.PAGE_SIZE, "hit tokens");
        assertEquals(kind.expectedEvictedTokens, lifecycle.evictedPages() * PeerTrace.PAGE_SIZE, "evicted tokens");
        assertEquals(kind.expectedTokensInTree, lifecycle.treePages() * PeerTrace.PAGE_SIZE, "tokens in tree");
    }
}
