package io.kvledger.engine.ingress;

import io.kvledger.journal.InputRecord;

import net.openhft.hashing.LongTupleHashFunction;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Cuts token ids into pages and gives each full page a 128-bit chained fingerprint, so the engine, the journal and
 * the L3 keys never see prompt content.
 * <p>
 * {@code fp[i]} is XXH3-128 (XXH128, seed 0) of {@code namespace as 8 bytes little-endian || fp[i-1].hi as 8 bytes
 * little-endian || fp[i-1].lo as 8 bytes little-endian || the page's tokens as 4-byte little-endian ints}, with
 * {@code fp[-1]} = (0, 0); {@code hi} is the high 64 bits of the XXH128 value and {@code lo} the low 64 bits. A
 * tail of fewer than {@code pageSize} tokens is not fingerprinted; its length is returned. (Until scheme 2 the
 * page hash was the first 128 bits of SHA-256 of a similar input, about six times slower; journals store the
 * fingerprints themselves and nothing recomputes them from a journal, so journals written under the old scheme
 * stay readable and replayable. An L3 store written under the old scheme simply misses: its keys are old
 * fingerprints.) {@link #SCHEME} names the scheme.
 * <p>
 * A multi-turn request need not hash its history again: {@link #extend} takes the previous chain's last
 * fingerprint and page count and hashes only the pages after them.
 * <p>
 * The page's tokens are copied behind a six-int header (namespace, parent) and hashed as one int array, so no bytes
 * are encoded: by {@link Xxh3Page} for pages of 55 to 250 tokens (the specification's long-input path computed
 * straight from the ints, about twice as fast), otherwise by OpenHFT's zero-allocation-hashing XXH128, which
 * hashes the array in place; both give the same value. On a big-endian JVM the ints are byte-swapped first, so
 * every platform gives the same fingerprints.
 * <p>
 * Thread ownership: an instance holds scratch buffers, so it belongs to one caller thread (an ingress thread of the
 * embedding server) and must never be shared; create one per thread. Every {@code fingerprint} and {@code extend}
 * call is allocation-free after construction.
 */
public final class Fingerprinter
{
    /** Bytes of one fingerprint: 128 bits. */
    public static final int FINGERPRINT_BYTES = 16;
    /** The page-hash scheme: 2 = XXH3-128 chain (1 was the SHA-256 chain). */
    public static final int SCHEME = 2;

    private static final LongTupleHashFunction XXH128 = LongTupleHashFunction.xx128();
    private static final boolean BIG_ENDIAN = ByteOrder.BIG_ENDIAN == ByteOrder.nativeOrder();
    private static final int HEADER_INTS = 6;

    private final int pageSize;
    private final int[] input;
    /** Pages of 55 to 250 tokens are hashed by {@link Xxh3Page}, others by OpenHFT's XXH128: the same function. */
    private final boolean direct;
    private final long[] hash = new long[2];
    private int tailTokens;

    /**
     * Create a fingerprinter for one caller thread.
     *
     * @param pageSize tokens per page, at least 1.
     */
    public Fingerprinter(final int pageSize)
    {
        if (pageSize < 1)
        {
            throw new IllegalArgumentException("pageSize must be >= 1: " + pageSize);
        }
        this.pageSize = pageSize;
        this.input = new int[HEADER_INTS + pageSize];
        this.direct = Xxh3Page.fits(HEADER_INTS + pageSize);
    }

    /**
     * Tokens per page.
     *
     * @return the page size in tokens.
     */
    public int pageSize()
    {
        return pageSize;
    }

    /**
     * Tokens left over by the last {@code fingerprint} call (the tail, fewer than {@link #pageSize()}).
     *
     * @return the tail's token count of the last call.
     */
    public int tailTokens()
    {
        return tailTokens;
    }

    /**
     * Full pages in a token count.
     *
     * @param tokenCount number of tokens.
     * @return the number of full pages they make.
     */
    public int pageCount(final int tokenCount)
    {
        return tokenCount / pageSize;
    }

    /**
     * Fingerprint the full pages of {@code tokens[0 .. count)} and append them to an input record.
     *
     * @param namespace tenant / cache salt, see {@link #namespaceId(String)}.
     * @param tokens    token ids.
     * @param count     number of tokens of {@code tokens} to use.
     * @param into      record to append the fingerprints to with {@link InputRecord#addFingerprint(long, long)}.
     * @return the tail's token count (also kept for {@link #tailTokens()}).
     * @throws IllegalArgumentException when the record cannot hold every page; nothing is appended then.
     */
    public int fingerprint(final long namespace, final int[] tokens, final int count, final InputRecord into)
    {
        checkTokens(tokens, 0, count);
        final int pages = count / pageSize;
        if (into.fingerprintCount() + pages > into.fingerprintCapacity())
        {
            throw new IllegalArgumentException("record holds " + into.fingerprintCount() + " of " +
                into.fingerprintCapacity() + " fingerprints, cannot add " + pages);
        }

        long parentHi = 0;
        long parentLo = 0;
        for (int page = 0; page < pages; page++)
        {
            hashPage(namespace, parentHi, parentLo, tokens, page * pageSize);
            parentHi = hash[1];
            parentLo = hash[0];
            into.addFingerprint(parentHi, parentLo);
        }
        tailTokens = count - pages * pageSize;

        return tailTokens;
    }

    /**
     * Fingerprint the full pages of {@code tokens[0 .. count)} into two arrays; the tail is in {@link #tailTokens()}.
     *
     * @param namespace tenant / cache salt, see {@link #namespaceId(String)}.
     * @param tokens    token ids.
     * @param count     number of tokens of {@code tokens} to use.
     * @param hi        receives the high 64 bits of page {@code i} at index {@code i}.
     * @param lo        receives the low 64 bits of page {@code i} at index {@code i}.
     * @return the number of pages written.
     */
    public int fingerprint(final long namespace, final int[] tokens, final int count, final long[] hi, final long[] lo)
    {
        return fingerprint(namespace, 0, 0, tokens, 0, count, hi, lo, 0);
    }

    /**
     * Continue a chain: fingerprint the full pages of {@code tokens[offset .. offset + count)} as the pages that
     * follow the page whose fingerprint is {@code (parentHi, parentLo)}; a parent of (0, 0) starts a new chain.
     * <p>
     * Used for pages a request computes after its prompt (chunked prefill, decode): the result equals what
     * fingerprinting the whole token sequence at once would give for those pages.
     *
     * @param namespace tenant / cache salt.
     * @param parentHi  high 64 bits of the fingerprint of the page before {@code tokens[offset]}, or 0.
     * @param parentLo  low 64 bits of that fingerprint, or 0.
     * @param tokens    token ids.
     * @param offset    index of the first token of the first page.
     * @param count     number of tokens to use from {@code offset}.
     * @param hi        receives the high 64 bits, from {@code outOffset}.
     * @param lo        receives the low 64 bits, from {@code outOffset}.
     * @param outOffset index in {@code hi} and {@code lo} of the first page written.
     * @return the number of pages written; the tail's token count is in {@link #tailTokens()}.
     */
    public int fingerprint(
        final long namespace,
        final long parentHi,
        final long parentLo,
        final int[] tokens,
        final int offset,
        final int count,
        final long[] hi,
        final long[] lo,
        final int outOffset)
    {
        checkTokens(tokens, offset, count);
        final int pages = count / pageSize;
        if (outOffset < 0 || outOffset + pages > hi.length || outOffset + pages > lo.length)
        {
            throw new IllegalArgumentException("output arrays (" + hi.length + ", " + lo.length +
                ") cannot hold " + pages + " pages from index " + outOffset);
        }

        long prevHi = parentHi;
        long prevLo = parentLo;
        for (int page = 0; page < pages; page++)
        {
            hashPage(namespace, prevHi, prevLo, tokens, offset + page * pageSize);
            prevHi = hash[1];
            prevLo = hash[0];
            hi[outOffset + page] = prevHi;
            lo[outOffset + page] = prevLo;
        }
        tailTokens = count - pages * pageSize;

        return pages;
    }

    /**
     * Extend a previous request's chain: {@code tokens[0 .. count)} is the whole sequence (history and new turn),
     * its first {@code pagesDone} full pages were fingerprinted before and the last of them is
     * {@code (lastHi, lastLo)}. Only pages {@code pagesDone ..} are hashed; they are written at the same indices
     * of {@code hi} and {@code lo} (so arrays that held the previous chain now hold the whole one). The result
     * equals {@link #fingerprint(long, int[], int, long[], long[])} of the whole sequence.
     *
     * @param namespace tenant / cache salt; the one the previous chain used.
     * @param lastHi    high 64 bits of the previous chain's last fingerprint (ignored when {@code pagesDone} is 0).
     * @param lastLo    low 64 bits of that fingerprint (ignored when {@code pagesDone} is 0).
     * @param pagesDone pages of the previous chain, 0 .. {@code count / pageSize}.
     * @param tokens    token ids of the whole sequence.
     * @param count     number of tokens of {@code tokens} to use.
     * @param hi        receives the high 64 bits of page {@code i} at index {@code i}, for the new pages.
     * @param lo        receives the low 64 bits of page {@code i} at index {@code i}, for the new pages.
     * @return the number of full pages of the whole sequence; the tail's token count is in {@link #tailTokens()}.
     * @throws IllegalArgumentException when {@code pagesDone} is out of range or the arrays are too short.
     */
    public int extend(
        final long namespace,
        final long lastHi,
        final long lastLo,
        final int pagesDone,
        final int[] tokens,
        final int count,
        final long[] hi,
        final long[] lo)
    {
        final int start = checkPagesDone(pagesDone, tokens, count);
        final boolean fresh = 0 == pagesDone;
        return pagesDone + fingerprint(namespace, fresh ? 0 : lastHi, fresh ? 0 : lastLo, tokens, start, count - start,
            hi, lo, pagesDone);
    }

    /**
     * {@link #extend(long, long, long, int, int[], int, long[], long[])} into an input record: appends the
     * fingerprints of the new pages only (the caller appends the previous chain's fingerprints first when the
     * record must hold every page).
     *
     * @param namespace tenant / cache salt; the one the previous chain used.
     * @param lastHi    high 64 bits of the previous chain's last fingerprint (ignored when {@code pagesDone} is 0).
     * @param lastLo    low 64 bits of that fingerprint (ignored when {@code pagesDone} is 0).
     * @param pagesDone pages of the previous chain, 0 .. {@code count / pageSize}.
     * @param tokens    token ids of the whole sequence.
     * @param count     number of tokens of {@code tokens} to use.
     * @param into      record to append the new pages' fingerprints to.
     * @return the tail's token count (also kept for {@link #tailTokens()}).
     * @throws IllegalArgumentException when {@code pagesDone} is out of range or the record cannot hold every new
     * page; nothing is appended then.
     */
    public int extend(
        final long namespace,
        final long lastHi,
        final long lastLo,
        final int pagesDone,
        final int[] tokens,
        final int count,
        final InputRecord into)
    {
        checkPagesDone(pagesDone, tokens, count);
        final int pages = count / pageSize;
        if (into.fingerprintCount() + pages - pagesDone > into.fingerprintCapacity())
        {
            throw new IllegalArgumentException("record holds " + into.fingerprintCount() + " of " +
                into.fingerprintCapacity() + " fingerprints, cannot add " + (pages - pagesDone));
        }
        long parentHi = 0 == pagesDone ? 0 : lastHi;
        long parentLo = 0 == pagesDone ? 0 : lastLo;
        for (int page = pagesDone; page < pages; page++)
        {
            hashPage(namespace, parentHi, parentLo, tokens, page * pageSize);
            parentHi = hash[1];
            parentLo = hash[0];
            into.addFingerprint(parentHi, parentLo);
        }
        tailTokens = count - pages * pageSize;

        return tailTokens;
    }

    private int checkPagesDone(final int pagesDone, final int[] tokens, final int count)
    {
        checkTokens(tokens, 0, count);
        if (pagesDone < 0 || pagesDone > count / pageSize)
        {
            throw new IllegalArgumentException("pagesDone " + pagesDone + " out of range for " + count +
                " tokens of " + pageSize + " per page");
        }
        return pagesDone * pageSize;
    }

    /**
     * A stable 64-bit namespace id for a name: the first 8 bytes of SHA-256 of its UTF-8 bytes, little-endian.
     * <p>
     * Allocates; call it once per tenant, not per request. Any thread.
     *
     * @param name tenant or cache-salt name.
     * @return the namespace id, the same in every process and release.
     */
    public static long namespaceId(final String name)
    {
        final byte[] digest = newSha256().digest(name.getBytes(StandardCharsets.UTF_8));
        long value = 0;
        for (int i = 7; i >= 0; i--)
        {
            value = (value << 8) | (digest[i] & 0xFFL);
        }

        return value;
    }

    private void hashPage(
        final long namespace, final long parentHi, final long parentLo, final int[] tokens, final int start)
    {
        if (direct)
        {
            // Hashed from the tokens in place: the header longs are the input's first three lanes.
            Xxh3Page.hash(namespace, parentHi, parentLo, tokens, start, pageSize, hash);
            return;
        }
        final int[] in = input;
        in[0] = (int)namespace;
        in[1] = (int)(namespace >>> 32);
        in[2] = (int)parentHi;
        in[3] = (int)(parentHi >>> 32);
        in[4] = (int)parentLo;
        in[5] = (int)(parentLo >>> 32);
        System.arraycopy(tokens, start, in, HEADER_INTS, pageSize);
        if (BIG_ENDIAN)
        {
            for (int i = 0; i < in.length; i++)
            {
                in[i] = Integer.reverseBytes(in[i]);
            }
        }
        XXH128.hashInts(in, 0, in.length, hash);
    }

    private static void checkTokens(final int[] tokens, final int offset, final int count)
    {
        if (offset < 0 || count < 0 || offset + count > tokens.length)
        {
            throw new IllegalArgumentException("tokens [" + offset + ", " + (offset + count) +
                ") out of bounds for length " + tokens.length);
        }
    }

    private static MessageDigest newSha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
        }
    }
}
