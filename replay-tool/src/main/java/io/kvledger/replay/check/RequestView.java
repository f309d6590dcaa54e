package io.kvledger.replay.check;

import java.util.List;

/**
 * A request as the shadow model holds it.
 *
 * @param id            request id.
 * @param state         lifecycle state.
 * @param sinceSequence document of its last state change.
 * @param slots         slots it owns, for example {@code DEVICE_MAMBA:3}.
 */
public record RequestView(long id, String state, long sinceSequence, List<String> slots)
{
    /**
     * Defensive copy.
     */
    public RequestView
    {
        slots = List.copyOf(slots);
    }
}
