package io.kvledger.replay.check;

import java.util.ArrayList;
import java.util.List;

/**
 * An open admission window for I18: from a request's RESERVED to its next ADMITTED, DEFERRED or HOLD_DROPPED in
 * the same document, counting the device Mamba slots the admission allocates.
 */
final class Reservation
{
    final long request;
    final long reserved;
    final long sequence;
    final List<HistoryEntry> entries = new ArrayList<>();
    int allocated;
    boolean reported;

    Reservation(final long request, final long reserved, final long sequence)
    {
        this.request = request;
        this.reserved = reserved;
        this.sequence = sequence;
    }
}
