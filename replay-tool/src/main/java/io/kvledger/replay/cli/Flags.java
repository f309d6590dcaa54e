package io.kvledger.replay.cli;

import io.kvledger.engine.store.IoReason;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

/**
 * Up-front checks of command-line values, shared by every command, so a bad value is refused before anything is
 * created (no journal directory, no device memory, no store): each failure is a {@link CliException} whose one
 * line names the flag, the value, the allowed range and why, for example
 * {@code --prompt-tokens 63 is out of range: 64 to 1,048,576 tokens (each prompt must hold at least one whole
 * page of --page-size 64 tokens)}.
 */
final class Flags
{
    /** Bytes in a gibibyte, for memory messages. */
    static final long GIB = 1L << 30;

    private Flags()
    {
    }

    /**
     * Require {@code min <= value <= max}.
     *
     * @param flag  the flag as typed, e.g. {@code --requests}.
     * @param value its value.
     * @param min   smallest allowed value.
     * @param max   largest allowed value.
     * @param unit  what the value counts (plural, e.g. "requests"), or "".
     * @param why   the reason for the range, shown in parentheses, or "".
     * @return the value.
     * @throws CliException when the value is out of range.
     */
    static long range(final String flag, final long value, final long min, final long max, final String unit,
        final String why)
    {
        if (value < min || value > max)
        {
            throw new CliException(String.format(Locale.ROOT, "%s %d is out of range: %s%s%s", flag, value,
                min == max ? number(min) : number(min) + " to " + number(max), unit.isEmpty() ? "" : " " + unit,
                why.isEmpty() ? "" : " (" + why + ")"));
        }
        return value;
    }

    /**
     * Require {@code value >= min} (a flag without a useful upper bound).
     *
     * @param flag  the flag as typed.
     * @param value its value.
     * @param min   smallest allowed value.
     * @param unit  what the value counts (plural), or "".
     * @param why   the reason, shown in parentheses, or "".
     * @return the value.
     * @throws CliException when the value is smaller.
     */
    static long atLeast(final String flag, final long value, final long min, final String unit, final String why)
    {
        if (value < min)
        {
            throw new CliException(String.format(Locale.ROOT, "%s %d is out of range: %s or more%s%s", flag, value,
                number(min), unit.isEmpty() ? "" : " " + unit, why.isEmpty() ? "" : " (" + why + ")"));
        }
        return value;
    }

    /**
     * Require a probability: a number from 0 to 1 (NaN and infinities refused).
     *
     * @param flag  the flag as typed.
     * @param value its value.
     * @param what  what the probability is of, shown as the reason.
     * @return the value.
     * @throws CliException when the value is not in [0, 1].
     */
    static double rate(final String flag, final double value, final String what)
    {
        if (!(value >= 0 && value <= 1))
        {
            throw new CliException(flag + " " + value + " is out of range: 0 to 1 (" + what + ")");
        }
        return value;
    }

    /**
     * Require a positive multiple of 8 up to a cap (slot sizes: copies move whole 8-byte words).
     *
     * @param flag  the flag as typed.
     * @param value its value.
     * @param max   largest allowed value.
     * @param what  what one slot of this size holds.
     * @return the value.
     * @throws CliException when the value is out of range or not a multiple of 8.
     */
    static int slotBytes(final String flag, final int value, final int max, final String what)
    {
        range(flag, value, 8, max, "bytes", what);
        if (0 != value % 8)
        {
            throw new CliException(flag + " " + value + " is not a multiple of 8 (" + what + "; copies and digests " +
                "move whole 8-byte words)");
        }
        return value;
    }

    /**
     * Require an estimate of the memory a run needs to stay under a cap.
     *
     * @param flags  the flags that decide the amount, as typed with their values, e.g.
     *               {@code --kv-pages 4096 and --kv-page-bytes 4096}.
     * @param what   what the memory is for.
     * @param needed estimated bytes.
     * @param cap    bytes available.
     * @param where  what the cap is and how to raise it.
     * @throws CliException when {@code needed > cap}.
     */
    static void memory(final String flags, final String what, final long needed, final long cap, final String where)
    {
        if (needed > cap)
        {
            throw new CliException(flags + " need " + bytes(needed) + " for " + what + ", more than the " +
                bytes(cap) + " " + where);
        }
    }

    /**
     * The most direct (off-heap) memory this JVM lets {@link java.nio.ByteBuffer#allocateDirect} take: the
     * {@code -XX:MaxDirectMemorySize} setting, or the heap limit when it is not set (the JVM's default).
     *
     * @return bytes.
     */
    static long maxDirectMemory()
    {
        try
        {
            final com.sun.management.HotSpotDiagnosticMXBean hotspot =
                ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            final long configured = Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            if (configured > 0)
            {
                return configured;
            }
        }
        catch (final RuntimeException | LinkageError ex)
        {
            // a trimmed runtime without jdk.management: fall back to the JVM's default rule
        }
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * Require that a directory a command will create does not exist yet and can be created: its nearest existing
     * ancestor is a writable directory. Nothing is created here.
     *
     * @param flag      the flag as typed.
     * @param directory the directory to be created.
     * @param purpose   what goes there, e.g. "the journal".
     * @throws CliException naming the path and the reason.
     */
    static void newDirectory(final String flag, final Path directory, final String purpose)
    {
        requireNamed(flag, directory);
        OutputFiles.requireOutsideAnyJournal(flag, directory, purpose);
        if (Files.exists(directory))
        {
            throw new CliException(flag + " " + directory + " already exists; " + purpose + " needs a new directory");
        }
        creatable(flag, directory, purpose);
    }

    /**
     * Require that a directory a command writes into is a writable directory, or can be created.
     *
     * @param flag      the flag as typed.
     * @param directory the directory.
     * @param purpose   what goes there, e.g. "the L3 store".
     * @throws CliException naming the path and the reason.
     */
    static void writableDirectory(final String flag, final Path directory, final String purpose)
    {
        requireNamed(flag, directory);
        OutputFiles.requireOutsideAnyJournal(flag, directory, purpose);
        if (Files.exists(directory))
        {
            final String reason = reasonForExisting(directory);
            if (null != reason)
            {
                throw new CliException(flag + " " + directory + ": " + reason + "; " + purpose +
                    " cannot be written there");
            }
            return;
        }
        creatable(flag, directory, purpose);
    }

    /**
     * Why a directory cannot be used for writing, in the OS's terms, or null when it can.
     *
     * @param directory the directory (existing or not).
     * @return the reason, e.g. "not a directory", "not writable (permissions ...)", "cannot be created: /a is not a
     *     directory", or null.
     */
    private static String unwritableReason(final Path directory)
    {
        final Path absolute = directory.toAbsolutePath();
        if (Files.exists(absolute))
        {
            return reasonForExisting(absolute);
        }
        Path ancestor = absolute.getParent();
        while (null != ancestor && !Files.exists(ancestor))
        {
            ancestor = ancestor.getParent();
        }
        if (null == ancestor)
        {
            return "no existing parent directory";
        }
        final String reason = reasonForExisting(ancestor);
        return null == reason ? null : "cannot be created: " + ancestor + " is " + reason;
    }

    /**
     * Create the missing directories of a path and remove them again: permissions do not tell everything (root may
     * write anywhere by them, yet not under /proc; a read-only mount), the operating system does.
     *
     * @return why the directory cannot be created, or null when it can.
     */
    private static String probeCreate(final Path directory)
    {
        final Deque<Path> missing = new ArrayDeque<>();
        for (Path p = directory.toAbsolutePath().normalize(); null != p && !Files.exists(p); p = p.getParent())
        {
            missing.push(p);
        }
        final Deque<Path> made = new ArrayDeque<>();
        try
        {
            for (final Path p : missing)
            {
                Files.createDirectory(p);
                made.push(p);
            }
            return null;
        }
        catch (final IOException ex)
        {
            return "cannot be created: " + IoReason.of(ex);
        }
        catch (final RuntimeException ex)
        {
            return "cannot be created: " + ex.getMessage();
        }
        finally
        {
            for (final Path p : made)
            {
                try
                {
                    Files.deleteIfExists(p);
                }
                catch (final IOException ex)
                {
                    // left behind empty; nothing was written into it
                }
            }
        }
    }

    private static String reasonForExisting(final Path path)
    {
        if (!Files.isDirectory(path))
        {
            return "not a directory";
        }
        if (!Files.isWritable(path) || !Files.isExecutable(path))
        {
            return "not writable" + owner(path);
        }
        return null;
    }

    private static String owner(final Path path)
    {
        try
        {
            return " (permissions " + java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(path)) + ", owner " + Files.getOwner(path).getName() + ")";
        }
        catch (final IOException | UnsupportedOperationException | SecurityException ex)
        {
            return "";
        }
    }

    /**
     * Refuse an empty or blank directory name (it would mean the working directory).
     *
     * @param flag      the flag, for the message.
     * @param directory the directory given.
     * @throws CliException when the name is blank.
     */
    static void requireNamed(final String flag, final Path directory)
    {
        if (directory.toString().isBlank())
        {
            throw new CliException(flag + " is empty; give a directory");
        }
    }

    private static void creatable(final String flag, final Path directory, final String purpose)
    {
        String reason = unwritableReason(directory);
        if (null == reason && !Files.exists(directory))
        {
            reason = probeCreate(directory);
        }
        if (null != reason)
        {
            throw new CliException(flag + " " + directory + ": " + reason + "; " + purpose +
                " cannot be written there");
        }
    }

    /**
     * @param value a count.
     * @return it with thousands separators.
     */
    static String number(final long value)
    {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /**
     * @param bytes an amount of memory.
     * @return it in MiB or GiB, one decimal.
     */
    static String bytes(final long bytes)
    {
        return bytes >= GIB ? String.format(Locale.ROOT, "%,.1f GiB", bytes / (double)GIB) :
            String.format(Locale.ROOT, "%.1f MiB", bytes / (double)(1 << 20));
    }
}
