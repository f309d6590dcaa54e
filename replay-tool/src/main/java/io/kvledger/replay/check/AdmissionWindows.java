package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.Reason;
import io.kvledger.journal.codec.SlotState;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * I18, admission reserves less than its load allocates (upstream bug 1). A window opens at a request's RESERVED
 * and closes at its next ADMITTED, DEFERRED or HOLD_DROPPED (or REJECTED) in the same document; device Mamba
 * transitions out of FREE in between (to REQUEST of that request, or to a NODE or an OP, which the admission
 * allocates for the load's node slot) are counted against the reservation's {@code value1}.
 * <p>
 * Violations: the count exceeds the reservation (reported at the allocation that exceeds it); the request is
 * DEFERRED inside the window (every gate passed, so only an allocation can have failed); its hold is dropped inside
 * the window, except FETCH_ABANDONED and DEVICE_COVERED, which drop an unfinished or redundant fetch while the
 * admission goes on; a request ADMITTED with no RESERVED before it in the document (the engine journals one after
 * every gate passed, before any allocation). A REJECTED closes the window silently; windows close at the end of
 * the document.
 */
final class AdmissionWindows
{
    private final Findings findings;
    private final Map<Long, Reservation> open = new LinkedHashMap<>();
    private Reservation latest;

    AdmissionWindows(final Findings findings)
    {
        this.findings = findings;
    }

    void begin()
    {
        open.clear();
        latest = null;
    }

    void reserved(final long sequence, final EffectList e, final int i)
    {
        final long request = e.owner(i);
        final Reservation reservation = new Reservation(request, e.value1(i), sequence);
        reservation.entries.add(new HistoryEntry(sequence, EffectText.describe(e, i)));
        open.remove(request);
        open.put(request, reservation);
        latest = reservation;
    }

    /**
     * A device Mamba slot left FREE.
     */
    void allocated(final long sequence, final ShadowSlot slot, final SlotState to, final long owner,
        final EffectList e, final int i)
    {
        final Reservation reservation = to == SlotState.REQUEST ? open.get(owner) : latest;
        if (reservation == null)
        {
            return;
        }
        reservation.allocated++;
        reservation.entries.add(new HistoryEntry(sequence, EffectText.describe(e, i)));
        if (reservation.allocated > reservation.reserved && !reservation.reported)
        {
            reservation.reported = true;
            findings.add(new Findings.Finding(Invariant.I18, Findings.Kind.SLOT, slot.pool.name(), slot.id,
                "admission of request " + reservation.request + " reserved " + slots(reservation.reserved) +
                ", the load needed at least " + reservation.allocated + " (this allocation exceeds the reservation)",
                List.copyOf(reservation.entries)));
        }
    }

    /**
     * ADMITTED, DEFERRED, HOLD_DROPPED or REJECTED of a request.
     */
    void outcome(final long sequence, final EffectList e, final int i, final EffectType type)
    {
        final long request = e.owner(i);
        final Reason reason = e.reasonCode(i) == EffectList.NULL_CODE ? Reason.NONE : e.reason(i);
        if (type == EffectType.HOLD_DROPPED && (reason == Reason.FETCH_ABANDONED || reason == Reason.DEVICE_COVERED))
        {
            return;
        }
        final Reservation reservation = open.remove(request);
        if (reservation == null)
        {
            if (type == EffectType.ADMITTED)
            {
                // The engine journals RESERVED after every gate passed and before any allocation; an admission
                // without one took its slots with no reservation to cover them.
                findings.add(new Findings.Finding(Invariant.I18, Findings.Kind.REQUEST, Violation.REQUEST, request,
                    "admitted without a RESERVED in its admission: nothing reserved the slots it allocated",
                    List.of(new HistoryEntry(sequence, EffectText.describe(e, i)))));
            }
            return;
        }
        if (latest == reservation)
        {
            latest = null;
            for (final Reservation other : open.values())
            {
                latest = other;
            }
        }
        if ((type == EffectType.DEFERRED || type == EffectType.HOLD_DROPPED) && !reservation.reported)
        {
            reservation.entries.add(new HistoryEntry(sequence, EffectText.describe(e, i)));
            findings.add(new Findings.Finding(Invariant.I18, Findings.Kind.REQUEST, Violation.REQUEST, request,
                "admission reserved " + slots(reservation.reserved) + " and allocated " + reservation.allocated +
                ", then the request was " + (type == EffectType.DEFERRED ? "DEFERRED " + reason :
                "dropped (HOLD_DROPPED " + reason + ")") + ": the reservation did not cover what the load needed",
                List.copyOf(reservation.entries)));
        }
    }

    private static String slots(final long n)
    {
        return n + (n == 1 ? " Mamba slot" : " Mamba slots");
    }
}
