package io.kvledger.engine.sim;

import io.kvledger.engine.util.Hashing;

/**
 * Content identities used by the serving loop: a KV page's content is a function of its fingerprint, a recurrent
 * state's content a function of the fingerprint of the page it was computed at. So bytes loaded back from L3 can
 * be checked against what the prefix must contain.
 */
public final class ContentSeeds
{
    /** Content of a cleared recurrent state (a request starting from scratch). */
    public static final long CLEARED_STATE = 0x5EED_C1EA_0000_0001L;

    private ContentSeeds()
    {
    }

    /**
     * @param hi page fingerprint high word.
     * @param lo page fingerprint low word.
     * @return content seed of that KV page.
     */
    public static long kvPage(final long hi, final long lo)
    {
        return Hashing.mixGamma(hi ^ Long.rotateLeft(lo, 17));
    }

    /**
     * @param hi fingerprint of the page the state was computed at.
     * @param lo same.
     * @return content seed of the recurrent state there.
     */
    public static long state(final long hi, final long lo)
    {
        return Hashing.mixGamma(lo ^ Long.rotateLeft(hi, 29) ^ 0x51A7E_0000L);
    }
}
