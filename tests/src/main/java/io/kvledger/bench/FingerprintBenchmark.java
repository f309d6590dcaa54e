package io.kvledger.bench;

import io.kvledger.engine.ingress.Fingerprinter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Cost of fingerprinting a 4,096-token prompt (64 pages of 64 tokens): the XXH3-128 chain, the continuation of a
 * previous chain by one 512-token turn (8 pages), and, for comparison, the SHA-256 chain the fingerprinter used
 * before (same input layout, first 128 bits of the digest).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"})
public class FingerprintBenchmark
{
    private static final int PAGE_SIZE = 64;
    private static final int PROMPT_TOKENS = 4096;
    private static final int TURN_TOKENS = 512;
    private static final long NAMESPACE = 0x5EED_0000_0000_0001L;

    private final Fingerprinter fingerprinter = new Fingerprinter(PAGE_SIZE);
    private final int[] tokens = new int[PROMPT_TOKENS + TURN_TOKENS];
    private final long[] hi = new long[(PROMPT_TOKENS + TURN_TOKENS) / PAGE_SIZE];
    private final long[] lo = new long[(PROMPT_TOKENS + TURN_TOKENS) / PAGE_SIZE];
    private final byte[] shaInput = new byte[8 + 16 + 4 * PAGE_SIZE];
    private final byte[] shaOutput = new byte[32];
    private MessageDigest sha256;
    private long historyHi;
    private long historyLo;

    /**
     * Draw the prompt and turn tokens from a fixed seed and fingerprint the prompt once, to have the chain that the
     * turn continues.
     *
     * @throws NoSuchAlgorithmException when the JVM has no SHA-256.
     */
    @Setup
    public void setUp() throws NoSuchAlgorithmException
    {
        final SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < tokens.length; i++)
        {
            tokens[i] = (int)Long.remainderUnsigned(random.nextLong(), 150_000);
        }
        sha256 = MessageDigest.getInstance("SHA-256");
        final int pages = fingerprinter.fingerprint(NAMESPACE, tokens, PROMPT_TOKENS, hi, lo);
        historyHi = hi[pages - 1];
        historyLo = lo[pages - 1];
    }

    /** @return a fingerprint, so the work is not dead code. */
    @Benchmark
    public long xxh3Prompt4096()
    {
        fingerprinter.fingerprint(NAMESPACE, tokens, PROMPT_TOKENS, hi, lo);
        return hi[PROMPT_TOKENS / PAGE_SIZE - 1];
    }

    /** @return a fingerprint, so the work is not dead code. */
    @Benchmark
    public long xxh3ExtendTurn512()
    {
        fingerprinter.extend(NAMESPACE, historyHi, historyLo, PROMPT_TOKENS / PAGE_SIZE, tokens, tokens.length, hi, lo);
        return hi[hi.length - 1];
    }

    /** @return a fingerprint, so the work is not dead code. */
    @Benchmark
    public long sha256Prompt4096() throws DigestException
    {
        long parentHi = 0;
        long parentLo = 0;
        for (int page = 0; page < PROMPT_TOKENS / PAGE_SIZE; page++)
        {
            putLong(shaInput, 0, NAMESPACE);
            putLong(shaInput, 8, parentHi);
            putLong(shaInput, 16, parentLo);
            for (int i = 0, j = 24; i < PAGE_SIZE; i++, j += 4)
            {
                final int token = tokens[page * PAGE_SIZE + i];
                shaInput[j] = (byte)token;
                shaInput[j + 1] = (byte)(token >>> 8);
                shaInput[j + 2] = (byte)(token >>> 16);
                shaInput[j + 3] = (byte)(token >>> 24);
            }
            sha256.update(shaInput, 0, shaInput.length);
            sha256.digest(shaOutput, 0, shaOutput.length);
            parentHi = getLong(shaOutput, 0);
            parentLo = getLong(shaOutput, 8);
        }
        return parentHi ^ parentLo;
    }

    private static void putLong(final byte[] bytes, final int offset, final long value)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(value >>> (8 * i));
        }
    }

    private static long getLong(final byte[] bytes, final int offset)
    {
        long value = 0;
        for (int i = 0; i < 8; i++)
        {
            value = (value << 8) | (bytes[offset + i] & 0xFFL);
        }
        return value;
    }
}
