package io.kvledger.journal;

import io.kvledger.journal.codec.InputType;

/**
 * The one place that says what the five values of an {@link InputRecord} mean for each {@link InputType}: a typed
 * encoder per input kind and a named accessor per value. The journal schema's descriptions say the same for people
 * reading the schema; code reads and writes inputs only through this class.
 * <p>
 * An encoder sets the type, {@code ok}, the request and op ids and all five values (those the kind does not use to
 * zero, ids it does not use to {@link InputRecord#NULL_ID}); it leaves the sequence, the timestamp and the
 * fingerprints as they are, so start from {@link InputRecord#reset()} for a fresh record. An accessor reads one
 * value of one kind and does not check the type. Static, allocation-free, no state.
 * <p>
 * Values per kind:
 * <ul>
 * <li>ARRIVE: request; fingerprints = its full pages; value1 = tail tokens (past the last full page), value2 = max
 * new tokens, value3 = namespace id.</li>
 * <li>STORAGE_HIT: op = the L3 query; value3 = 1 when the query failed; value1 = consecutive pages present,
 * value2 = deepest page (count) whose Mamba
 * state is present.</li>
 * <li>FETCH_DONE: op = the fetch, ok; value1 = pages read into host staging, value2 = 1 when the Mamba state was
 * read.</li>
 * <li>PASS_BEGIN: value1 = max running requests, value2 = token budget, value3 = input token budget, value4 = chunk
 * token budget.</li>
 * <li>ADMIT, RETRACT: request only. PASS_END: nothing. ACK: op, ok.</li>
 * <li>ABORT: request; value1..value3 = ReplaySSM cursors last seen (write_pos, cache_base, is_flush).</li>
 * <li>CHUNK, FINISH: request; value1 = pages computed, value2 = tracked pages (checkpoint depth), value3..value5 =
 * cursors (write_pos, cache_base, is_flush).</li>
 * <li>TICK: value1 = device pages to evict when positive (Long.MAX_VALUE: flush).</li>
 * </ul>
 */
public final class Inputs
{
    private static final String[] ARRIVE_NAMES = { "tail", "maxNew", "ns", "value4", "value5" };
    private static final String[] STORAGE_NAMES = { "pages", "mamba", "value3", "value4", "value5" };
    private static final String[] PASS_NAMES = { "maxRunning", "tokens", "inputTokens", "chunkTokens", "value5" };
    private static final String[] ABORT_NAMES = { "writePos", "cacheBase", "isFlush", "value4", "value5" };
    private static final String[] PROGRESS_NAMES = { "pages", "tracked", "writePos", "cacheBase", "isFlush" };
    private static final String[] PLAIN_NAMES = { "value1", "value2", "value3", "value4", "value5" };

    private Inputs()
    {
    }

    // ------------------------------------------------------------------------------------------------ encoders

    /**
     * A request arrives; add its page fingerprints to the record before or after.
     *
     * @param in           record to fill.
     * @param request      request id.
     * @param tailTokens   tokens past the last full page.
     * @param maxNewTokens decode budget.
     * @param namespace    tenant / cache salt id.
     * @return {@code in}.
     */
    public static InputRecord arrive(
        final InputRecord in, final long request, final long tailTokens, final long maxNewTokens, final long namespace)
    {
        return fill(
            in, InputType.ARRIVE, true, request, InputRecord.NULL_ID, tailTokens, maxNewTokens, namespace, 0, 0);
    }

    /**
     * The answer to an L3 existence query.
     *
     * @param in           record to fill.
     * @param op           the query op.
     * @param presentPages consecutive pages present in L3.
     * @param mambaPages   deepest page (count) whose Mamba state is present.
     * @return {@code in}.
     */
    public static InputRecord storageHit(final InputRecord in, final long op, final long presentPages,
        final long mambaPages)
    {
        return fill(in, InputType.STORAGE_HIT, true, InputRecord.NULL_ID, op, presentPages, mambaPages, 0, 0, 0);
    }

    /**
     * An L3 to host staging fetch finished.
     *
     * @param in        record to fill.
     * @param op        the fetch op.
     * @param ok        whether it succeeded.
     * @param pagesRead pages read.
     * @param mambaRead whether the Mamba state was read.
     * @return {@code in}.
     */
    public static InputRecord fetchDone(final InputRecord in, final long op, final boolean ok, final long pagesRead,
        final boolean mambaRead)
    {
        return fill(in, InputType.FETCH_DONE, ok, InputRecord.NULL_ID, op, pagesRead, mambaRead ? 1 : 0, 0, 0, 0);
    }

    /**
     * A scheduling pass starts with its budgets.
     *
     * @param in               record to fill.
     * @param maxRunning       most requests running at once.
     * @param tokenBudget      total tokens (extend plus max new) the pass may admit.
     * @param inputTokenBudget input tokens the pass may admit past its first request.
     * @param chunkTokenBudget chunked-prefill tokens the pass may admit.
     * @return {@code in}.
     */
    public static InputRecord passBegin(final InputRecord in, final long maxRunning, final long tokenBudget,
        final long inputTokenBudget, final long chunkTokenBudget)
    {
        return fill(in, InputType.PASS_BEGIN, true, InputRecord.NULL_ID, InputRecord.NULL_ID, maxRunning, tokenBudget,
            inputTokenBudget, chunkTokenBudget, 0);
    }

    /**
     * The scheduler asks to admit a request in the open pass.
     *
     * @param in      record to fill.
     * @param request request id.
     * @return {@code in}.
     */
    public static InputRecord admit(final InputRecord in, final long request)
    {
        return fill(in, InputType.ADMIT, true, request, InputRecord.NULL_ID, 0, 0, 0, 0, 0);
    }

    /**
     * The scheduler drops an admitted request before its batch runs.
     *
     * @param in      record to fill.
     * @param request request id.
     * @return {@code in}.
     */
    public static InputRecord retract(final InputRecord in, final long request)
    {
        return fill(in, InputType.RETRACT, true, request, InputRecord.NULL_ID, 0, 0, 0, 0, 0);
    }

    /**
     * The scheduling pass ends: queued loads and copies launch.
     *
     * @param in record to fill.
     * @return {@code in}.
     */
    public static InputRecord passEnd(final InputRecord in)
    {
        return fill(in, InputType.PASS_END, true, InputRecord.NULL_ID, InputRecord.NULL_ID, 0, 0, 0, 0, 0);
    }

    /**
     * A request is aborted, with the ReplaySSM cursors last seen for its working state.
     *
     * @param in        record to fill.
     * @param request   request id.
     * @param writePos  write_pos cursor.
     * @param cacheBase cache_base cursor.
     * @param isFlush   is_flush cursor.
     * @return {@code in}.
     */
    public static InputRecord abort(final InputRecord in, final long request, final long writePos,
        final long cacheBase, final long isFlush)
    {
        return fill(in, InputType.ABORT, true, request, InputRecord.NULL_ID, writePos, cacheBase, isFlush, 0, 0);
    }

    /**
     * An operation (load, copy-on-write, backup or store) finished.
     *
     * @param in record to fill.
     * @param op the op.
     * @param ok whether it succeeded.
     * @return {@code in}.
     */
    public static InputRecord ack(final InputRecord in, final long op, final boolean ok)
    {
        return fill(in, InputType.ACK, ok, InputRecord.NULL_ID, op, 0, 0, 0, 0, 0);
    }

    /**
     * Chunked-prefill progress of a request.
     *
     * @param in            record to fill.
     * @param request       request id.
     * @param computedPages pages computed so far.
     * @param trackedPages  tracked pages (checkpoint depth).
     * @param writePos      write_pos cursor.
     * @param cacheBase     cache_base cursor.
     * @param isFlush       is_flush cursor.
     * @return {@code in}.
     */
    public static InputRecord chunk(final InputRecord in, final long request, final long computedPages,
        final long trackedPages, final long writePos, final long cacheBase, final long isFlush)
    {
        return fill(in, InputType.CHUNK, true, request, InputRecord.NULL_ID, computedPages, trackedPages, writePos,
            cacheBase, isFlush);
    }

    /**
     * A request is done.
     *
     * @param in            record to fill.
     * @param request       request id.
     * @param computedPages pages computed.
     * @param trackedPages  tracked pages (checkpoint depth).
     * @param writePos      write_pos cursor.
     * @param cacheBase     cache_base cursor.
     * @param isFlush       is_flush cursor.
     * @return {@code in}.
     */
    public static InputRecord finish(final InputRecord in, final long request, final long computedPages,
        final long trackedPages, final long writePos, final long cacheBase, final long isFlush)
    {
        return fill(in, InputType.FINISH, true, request, InputRecord.NULL_ID, computedPages, trackedPages, writePos,
            cacheBase, isFlush);
    }

    /**
     * Time passes.
     *
     * @param in         record to fill.
     * @param evictPages device pages to evict when positive (Long.MAX_VALUE: flush), else 0.
     * @return {@code in}.
     */
    public static InputRecord tick(final InputRecord in, final long evictPages)
    {
        return fill(in, InputType.TICK, true, InputRecord.NULL_ID, InputRecord.NULL_ID, evictPages, 0, 0, 0, 0);
    }

    private static InputRecord fill(final InputRecord in, final InputType type, final boolean ok, final long request,
        final long op, final long value1, final long value2, final long value3, final long value4, final long value5)
    {
        return in.type(type).ok(ok).request(request).op(op)
            .value1(value1).value2(value2).value3(value3).value4(value4).value5(value5);
    }

    // ------------------------------------------------------------------------------------------------ ARRIVE

    /**
     * @param in an ARRIVE.
     * @return tokens past the last full page.
     */
    public static long tailTokens(final InputRecord in)
    {
        return in.value1();
    }

    /**
     * @param in an ARRIVE.
     * @return the decode budget.
     */
    public static long maxNewTokens(final InputRecord in)
    {
        return in.value2();
    }

    /**
     * @param in an ARRIVE.
     * @return the namespace id (tenant / cache salt).
     */
    public static long namespace(final InputRecord in)
    {
        return in.value3();
    }

    // ------------------------------------------------------------------------------------------------ STORAGE_HIT

    /**
     * @param in a STORAGE_HIT.
     * @return consecutive pages present in L3.
     */
    public static long presentPages(final InputRecord in)
    {
        return in.value1();
    }

    /**
     * @param in a STORAGE_HIT.
     * @return deepest page (count) whose Mamba state is present in L3.
     */
    public static long mambaPages(final InputRecord in)
    {
        return in.value2();
    }

    /**
     * @param in a STORAGE_HIT.
     * @return whether the query itself failed (a timeout, a lost connection): value3 = 1. Journals written before
     * this flag have value3 = 0 on every STORAGE_HIT, so they read as answered.
     */
    public static boolean queryFailed(final InputRecord in)
    {
        return in.value3() != 0;
    }

    /**
     * A failed L3 existence query: nothing is known to be present.
     *
     * @param in record to fill (reset here).
     * @param op the L3 query.
     * @return {@code in}.
     */
    public static InputRecord storageQueryFailed(final InputRecord in, final long op)
    {
        return fill(in, InputType.STORAGE_HIT, true, InputRecord.NULL_ID, op, 0, 0, 1, 0, 0);
    }

    // ------------------------------------------------------------------------------------------------ FETCH_DONE

    /**
     * @param in a FETCH_DONE.
     * @return pages read into host staging.
     */
    public static long pagesRead(final InputRecord in)
    {
        return in.value1();
    }

    /**
     * @param in a FETCH_DONE.
     * @return whether the Mamba state was read.
     */
    public static boolean mambaRead(final InputRecord in)
    {
        return in.value2() != 0;
    }

    // ------------------------------------------------------------------------------------------------ PASS_BEGIN

    /**
     * @param in a PASS_BEGIN.
     * @return most requests running at once.
     */
    public static long maxRunning(final InputRecord in)
    {
        return in.value1();
    }

    /**
     * @param in a PASS_BEGIN.
     * @return total tokens (extend plus max new) the pass may admit.
     */
    public static long tokenBudget(final InputRecord in)
    {
        return in.value2();
    }

    /**
     * @param in a PASS_BEGIN.
     * @return input tokens the pass may admit past its first request.
     */
    public static long inputTokenBudget(final InputRecord in)
    {
        return in.value3();
    }

    /**
     * @param in a PASS_BEGIN.
     * @return chunked-prefill tokens the pass may admit.
     */
    public static long chunkTokenBudget(final InputRecord in)
    {
        return in.value4();
    }

    // ------------------------------------------------------------------------------------------------ CHUNK, FINISH

    /**
     * @param in a CHUNK or FINISH.
     * @return pages computed.
     */
    public static long computedPages(final InputRecord in)
    {
        return in.value1();
    }

    /**
     * @param in a CHUNK or FINISH.
     * @return tracked pages (checkpoint depth).
     */
    public static long trackedPages(final InputRecord in)
    {
        return in.value2();
    }

    // ------------------------------------------------------------------------------------------------ cursors

    /**
     * @param in an ABORT, CHUNK or FINISH.
     * @return the ReplaySSM write_pos cursor (value1 of an ABORT, value3 of a CHUNK or FINISH).
     */
    public static long writePos(final InputRecord in)
    {
        return InputType.ABORT == in.type() ? in.value1() : in.value3();
    }

    /**
     * @param in an ABORT, CHUNK or FINISH.
     * @return the ReplaySSM cache_base cursor (value2 of an ABORT, value4 of a CHUNK or FINISH).
     */
    public static long cacheBase(final InputRecord in)
    {
        return InputType.ABORT == in.type() ? in.value2() : in.value4();
    }

    /**
     * @param in an ABORT, CHUNK or FINISH.
     * @return the ReplaySSM is_flush cursor (value3 of an ABORT, value5 of a CHUNK or FINISH).
     */
    public static long isFlush(final InputRecord in)
    {
        return InputType.ABORT == in.type() ? in.value3() : in.value5();
    }

    // ------------------------------------------------------------------------------------------------ TICK

    /**
     * @param in a TICK.
     * @return device pages to evict when positive (Long.MAX_VALUE: flush).
     */
    public static long evictPages(final InputRecord in)
    {
        return in.value1();
    }

    // ------------------------------------------------------------------------------------------------ names

    /**
     * The short name the journal printer gives one value of an input kind.
     *
     * @param type  input kind.
     * @param index value index, 1 to 5.
     * @return the name, {@code value<index>} when the kind gives that value no name.
     */
    public static String valueName(final InputType type, final int index)
    {
        return names(type)[index - 1];
    }

    private static String[] names(final InputType type)
    {
        switch (type)
        {
            case ARRIVE:
                return ARRIVE_NAMES;
            case STORAGE_HIT:
            case FETCH_DONE:
                return STORAGE_NAMES;
            case PASS_BEGIN:
                return PASS_NAMES;
            case ABORT:
                return ABORT_NAMES;
            case CHUNK:
            case FINISH:
                return PROGRESS_NAMES;
            default:
                return PLAIN_NAMES;
        }
    }
}
