package io.kvledger.replay.check;

import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.RequestState;

/**
 * The request rules of the shadow model: an accepted ARRIVE and REQUEST_STATE (the I19 request lifecycle), and the
 * requests that start running in the document (judged for I16 at its end).
 */
final class RequestRules extends ShadowPart
{
    RequestRules(final ShadowState state)
    {
        super(state);
    }

    void arrive(final long id)
    {
        final ShadowRequest existing = requests.get(id);
        if (existing != null && !existing.terminal())
        {
            requestFinding(Invariant.I19, id, "request " + id + " arrived again while " + existing.state);
            return;
        }
        final ShadowRequest old = existing != null ? existing : retiredRequests.remove(id);
        final ShadowRequest request = new ShadowRequest(id);
        request.stateSequence = scope.sequence;
        if (old != null)
        {
            request.history = old.history;
        }
        requests.put(id, request);
    }

    void requestState(final EffectList e, final int i)
    {
        final long id = e.owner(i);
        final RequestState from = e.requestFromCode(i) == EffectList.NULL_CODE ? null : e.requestFrom(i);
        final RequestState to = e.requestToCode(i) == EffectList.NULL_CODE ? null : e.requestTo(i);
        ShadowRequest request = requests.get(id);
        if (from == null)
        {
            if (scope.input.type() == InputType.ARRIVE && scope.input.request() == id)
            {
                if (scope.arrivalStated)
                {
                    requestFinding(Invariant.I19, id, "created twice (a second REQUEST_STATE from none) by its " +
                        "ARRIVE");
                }
                scope.arrivalStated = true;
            }
            else
            {
                requestFinding(Invariant.I19, id, "created (REQUEST_STATE from none) by a " + scope.input.type() +
                    " document: a request is created only by its own ARRIVE");
            }
            // creation (from "none"): accepted for a new id, or for the request this document's ARRIVE created
            if (request != null && !request.terminal() &&
                !(request.state == RequestState.WAITING && request.stateSequence == scope.sequence))
            {
                recordRequestHistory(id, e, i);
                requestFinding(Invariant.I19, id, "created again while " + request.state + " (since #" +
                    request.stateSequence + ")");
            }
            else if (request == null || request.terminal())
            {
                arrive(id);
                request = requests.get(id);
            }
            recordRequestHistory(id, e, i);
        }
        else if (request == null)
        {
            final ShadowRequest old = retiredRequests.remove(id);
            request = new ShadowRequest(id);
            if (old != null)
            {
                request.history = old.history;
            }
            requests.put(id, request);
            recordRequestHistory(id, e, i);
            if (from != RequestState.WAITING)
            {
                requestFinding(Invariant.I19, id, "moves from " + from + " but " + (old == null ?
                    "it never arrived" : "it already ended " + old.state + " at #" + old.stateSequence));
            }
        }
        else
        {
            recordRequestHistory(id, e, i);
            if (request.state != from)
            {
                requestFinding(Invariant.I19, id, "moves from " + from + " to " + to + " but it is " + request.state +
                    " (since #" + request.stateSequence + ")");
            }
        }
        if (to == RequestState.ADMITTED)
        {
            scope.admittedStates.add(id);
            if (!scope.admittedDecisions.contains(id))
            {
                requestFinding(Invariant.I19, id, "moves from " + from + " to ADMITTED without an ADMITTED decision " +
                    "for it earlier in the document: it runs, allocates and finishes without having been admitted");
            }
        }
        if (from == RequestState.ADMITTED && to == RequestState.RUNNING)
        {
            startedRequests.add(id);
        }
        if (to != null && request != null)
        {
            request.state = to;
            request.stateSequence = scope.sequence;
            if (request.terminal())
            {
                scope.endedRequests.add(id);
            }
        }
        // the observer (kvledger timeline --slot request:ID) is shown the effect once, with the state it set
        notifyRequest(id, e, i);
    }

    /** An ADMITTED decision: the request must move to ADMITTED later in the same document. */
    void admittedDecision(final long id)
    {
        scope.admittedDecisions.add(id);
    }

    /**
     * End of a document: an accepted ARRIVE created its request (REQUEST_STATE from none), an accepted FINISH or
     * ABORT ended its request (REQUEST_STATE to FINISHED or ABORTED), and every ADMITTED decision moved its request
     * to ADMITTED (I19: the request lifecycle in order, once).
     *
     * @param resultCode the document's result code.
     */
    void endOfDocument(final int resultCode)
    {
        final long arrived = scope.input.request();
        if (scope.input.type() == InputType.ARRIVE && resultCode >= 0 && arrived != InputRecord.NULL_ID &&
            !scope.arrivalStated)
        {
            requestFinding(Invariant.I19, arrived, "accepted ARRIVE of request " + arrived + " without its " +
                "REQUEST_STATE none -> WAITING: the request never arrived in the journal's lifecycle");
        }
        final InputType type = scope.input.type();
        if ((type == InputType.FINISH || type == InputType.ABORT) && resultCode >= 0 && arrived != InputRecord.NULL_ID)
        {
            final RequestState end = type == InputType.FINISH ? RequestState.FINISHED : RequestState.ABORTED;
            final ShadowRequest request = requests.get(arrived);
            if (request == null || request.state != end || request.stateSequence != scope.sequence)
            {
                requestFinding(Invariant.I19, arrived, "accepted " + type + " of request " + arrived + " without " +
                    "its REQUEST_STATE to " + end + ": the request outlives the input that ended it");
            }
        }
        for (final long id : scope.admittedDecisions)
        {
            if (!scope.admittedStates.contains(id))
            {
                requestFinding(Invariant.I19, id, "ADMITTED decision for request " + id + " but no REQUEST_STATE " +
                    "moved it to ADMITTED in the document");
            }
        }
    }
}
