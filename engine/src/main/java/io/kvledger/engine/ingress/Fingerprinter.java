package io.kvledger.engine.ingress;

import io.kvledger.journal.InputRecord;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Cuts token ids into pages and gives each full page a 128-bit chained fingerprint, so the engine, the journal and
 * the L3 keys never see prompt content.
 * <p>
 * {@code fp[i]} is the first 128 bits of {@code SHA-256(namespace as 8 bytes little-endian || fp[i-1] as 16 bytes
 * || the page's tokens as 4-byte little-endian ints)}, with {@code fp[-1]} = 16 zero bytes. {@code hi} holds digest
 * bytes 0..7 and {@code lo} bytes 8..15, each read big-endian, and {@code fp[i-1]} is fed back as exactly those 16
 * bytes. A tail of fewer than {@code pageSize} tokens is not fingerprinted; its length is returned.
 * <p>
 * Thread ownership: an instance holds one {@link MessageDigest} and scratch buffers, so it belongs to one caller
 * thread (an ingress thread of the embedding server) and must never be shared; create one per thread. Every
 * {@code fingerprint} call is allocation-free after construction.
 */
public final class Fingerprinter
{
    /** Bytes of one fingerprint: 128 bits. */
    public static final int FINGERPRINT_BYTES = 16;

    private static final int SHA256_BYTES = 32;
    private static final int NAMESPACE_BYTES = 8;

    private final int pageSize;
    private final MessageDigest sha256;
    private final byte[] namespaceBytes = new byte[NAMESPACE_BYTES];
    private final byte[] parentBytes = new byte[FINGERPRINT_BYTES];
    private final byte[] pageBytes;
    private final byte[] digestBytes = new byte[SHA256_BYTES];
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
        this.pageBytes = new byte[pageSize * Integer.BYTES];
        this.sha256 = newSha256();
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
            digestPage(namespace, parentHi, parentLo, tokens, page * pageSize);
            parentHi = readLongBigEndian(digestBytes, 0);
            parentLo = readLongBigEndian(digestBytes, 8);
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
            digestPage(namespace, prevHi, prevLo, tokens, offset + page * pageSize);
            prevHi = readLongBigEndian(digestBytes, 0);
            prevLo = readLongBigEndian(digestBytes, 8);
            hi[outOffset + page] = prevHi;
            lo[outOffset + page] = prevLo;
        }
        tailTokens = count - pages * pageSize;

        return pages;
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

    private void digestPage(
        final long namespace, final long parentHi, final long parentLo, final int[] tokens, final int start)
    {
        writeLongLittleEndian(namespaceBytes, 0, namespace);
        writeLongBigEndian(parentBytes, 0, parentHi);
        writeLongBigEndian(parentBytes, 8, parentLo);

        final byte[] page = pageBytes;
        for (int i = 0, j = 0; i < pageSize; i++, j += Integer.BYTES)
        {
            final int token = tokens[start + i];
            page[j] = (byte)token;
            page[j + 1] = (byte)(token >>> 8);
            page[j + 2] = (byte)(token >>> 16);
            page[j + 3] = (byte)(token >>> 24);
        }

        final MessageDigest md = sha256;
        md.update(namespaceBytes, 0, NAMESPACE_BYTES);
        md.update(parentBytes, 0, FINGERPRINT_BYTES);
        md.update(page, 0, page.length);
        try
        {
            md.digest(digestBytes, 0, SHA256_BYTES);
        }
        catch (final DigestException ex)
        {
            throw new IllegalStateException("SHA-256 digest failed", ex);
        }
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

    private static long readLongBigEndian(final byte[] bytes, final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = (value << 8) | (bytes[offset + i] & 0xFFL);
        }

        return value;
    }

    private static void writeLongBigEndian(final byte[] bytes, final int offset, final long value)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(value >>> (56 - 8 * i));
        }
    }

    private static void writeLongLittleEndian(final byte[] bytes, final int offset, final long value)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(value >>> (8 * i));
        }
    }
}
