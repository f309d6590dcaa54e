package io.kvledger.replay.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Damages a journal one way at a time (a byte flipped, zeroed or set to 0xFF; a file truncated) and runs every
 * command that reads a journal on each damaged copy, in this JVM, holding each run to the bad-input contract: exit 0
 * (the damage is invisible: stdout as on the intact journal, or a single warning line) or exit 2 with exactly one
 * line on stderr, never another exit code, an exception name or stack frame, or a run longer than the time limit.
 * The permanent test ({@code JournalFuzzTest}) runs a fixed sample; {@code scripts/fuzz-journal.sh} runs
 * {@link #main} over every offset.
 */
final class JournalFuzzer
{
    /** How one damaged copy is made. */
    enum Damage
    {
        FLIP, ZERO, ONES, TRUNCATE
    }

    /** One damaged copy: which file, where, how. */
    record Mutation(String file, long offset, Damage damage)
    {
        @Override
        public String toString()
        {
            return damage + " " + file + "@0x" + Long.toHexString(offset);
        }
    }

    /** A run that broke the contract. */
    record Finding(Mutation mutation, String command, String kind, int exitCode, String out, String err)
    {
        @Override
        public String toString()
        {
            return kind + " rc=" + exitCode + " [" + command + "] " + mutation + "\n    stderr: " +
                abbreviate(err) + "\n    stdout: " + abbreviate(out);
        }
    }

    private static final String PLACEHOLDER = "<J>";
    /**
     * The commands run on damage before the first document (check, replay, stats, dump --json): Chronicle's header
     * and index are read the same way by every command, so the rest add time but no coverage.
     */
    private static final java.util.Set<Integer> CORE = java.util.Set.of(0, 2, 3, 9);

    private final Path source;
    private final Path work;
    private final long timeoutMs;
    private final Map<String, byte[]> files = new LinkedHashMap<>();
    private final Map<String, Long> lengths = new LinkedHashMap<>();
    private final List<String> baseline = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();
    private final List<Finding> warnings = new ArrayList<>();
    private final Map<String, Integer> tally = new LinkedHashMap<>();
    private ExecutorService executor = newExecutor();
    private java.util.Set<Integer> selected;
    private boolean captureSystemStreams = true;
    private long slowMs = Long.MAX_VALUE;
    private final boolean leakCheck = Boolean.getBoolean("fuzz.leaks");
    private int cases;

    /**
     * @param source    an intact journal directory.
     * @param work      scratch directory for the damaged copies.
     * @param timeoutMs longest a command may run.
     */
    JournalFuzzer(final Path source, final Path work, final long timeoutMs)
    {
        this.source = source;
        this.work = work;
        this.timeoutMs = timeoutMs;
        try (Stream<Path> list = Files.list(source))
        {
            for (final Path file : (Iterable<Path>)list.sorted()::iterator)
            {
                final String name = file.getFileName().toString();
                if (name.endsWith(".cq4") || name.endsWith(".cq4t"))
                {
                    final byte[] bytes = Files.readAllBytes(file);
                    lengths.put(name, (long)bytes.length);
                    files.put(name, java.util.Arrays.copyOf(bytes, dataEnd(bytes)));
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * The commands run on each copy, with the copy's directory and an output directory of its own.
     *
     * @param journal the damaged copy.
     * @param out     a directory that does not exist yet.
     * @return command lines, each with {@code --verbose} absent.
     */
    static List<String[]> commands(final Path journal, final Path out)
    {
        final String j = journal.toString();
        return List.of(
            new String[] {"check", j},
            new String[] {"check", "--json", j},
            new String[] {"replay", j},
            new String[] {"stats", "--json", j},
            new String[] {"inspect", j},
            new String[] {"inspect", "--at", "5", "--json", j},
            new String[] {"timeline", "--slot", "mamba:1", j},
            new String[] {"timeline", "--slot", "node:1", "--json", j},
            new String[] {"dump", j},
            new String[] {"dump", "--json", "--from", "3", "--limit", "40", j},
            new String[] {"shrink", "--max-seconds", "5", "--out", out.toString(), j});
    }

    /**
     * Run only some of {@link #commands} (by index) on each damaged copy.
     *
     * @param indexes the commands kept.
     * @return this.
     */
    JournalFuzzer only(final java.util.Set<Integer> indexes)
    {
        selected = indexes;
        return this;
    }

    /**
     * Leave System.out and System.err alone: a JVM whose logging is already set up (a test run, at level warn) would
     * put a library's warnings into the judged output, which the command line switches off ({@code --verbose} aside).
     *
     * @return this.
     */
    JournalFuzzer libraryOutputNotJudged()
    {
        captureSystemStreams = false;
        return this;
    }

    /**
     * Report a run that took longer than this (and did not time out) as a finding of its own.
     *
     * @param millis the limit.
     * @return this.
     */
    JournalFuzzer slowAfter(final long millis)
    {
        slowMs = millis;
        return this;
    }

    /** @return the files of the journal by name, with the length of their non-zero prefix. */
    Map<String, Integer> dataLengths()
    {
        final Map<String, Integer> result = new LinkedHashMap<>();
        files.forEach((name, bytes) -> result.put(name, bytes.length));
        return result;
    }

    /** @return the file offsets where each journal frame starts (its "KVLG" magic 8 bytes in), in the queue file. */
    List<Long> frameStarts(final String file)
    {
        final byte[] bytes = files.get(file);
        final List<Long> starts = new ArrayList<>();
        for (int i = 8; i + 4 <= bytes.length; i += 4)
        {
            if (bytes[i] == 0x47 && bytes[i + 1] == 0x4C && bytes[i + 2] == 0x56 && bytes[i + 3] == 0x4B)
            {
                starts.add((long)i - 8);
            }
        }
        return starts;
    }

    /**
     * @param file a file of the journal.
     * @return where its document region starts: 64 bytes into the first frame of a queue file, 4 KiB into another.
     */
    long headerEnd(final String file)
    {
        final List<Long> frames = file.endsWith(".cq4") ? frameStarts(file) : List.of();
        return Math.min(files.get(file).length, frames.isEmpty() ? 4096 : frames.get(0) + 64);
    }

    /** Run the commands on the intact journal: what exit 0 on a damaged copy must print. */
    void baseline()
    {
        final Path copy = work.resolve("baseline");
        make(copy, null);
        final List<String[]> commands = commands(copy, work.resolve("baseline-out"));
        for (final String[] command : commands)
        {
            final CliRun run = runBounded(command);
            if (null == run || run.exitCode() != 0 || !run.err().isEmpty())
            {
                throw new IllegalStateException("the intact journal fails " + String.join(" ", command) + ": " +
                    (null == run ? "timeout" : run.err()));
            }
            baseline.add(normalise(run.out(), copy));
        }
        delete(copy);
    }

    /**
     * Damage a copy one way and run every command on it.
     *
     * @param mutation the damage.
     * @return false when the damage would change nothing (the byte already holds that value).
     */
    boolean fuzz(final Mutation mutation)
    {
        final byte[] bytes = files.get(mutation.file());
        if (mutation.damage() != Damage.TRUNCATE && mutation.offset() < bytes.length)
        {
            final int before = bytes[(int)mutation.offset()] & 0xFF;
            if (before == damaged(before, mutation))
            {
                return false;
            }
        }
        cases++;
        final long mappedBefore = deletedMappings();
        final Path copy = work.resolve("case");
        final Path out = work.resolve("case-out");
        final List<String[]> commands = commands(copy, out);
        final boolean before = mutation.damage() != Damage.TRUNCATE && mutation.offset() < headerEnd(mutation.file());
        for (int i = 0; i < commands.size(); i++)
        {
            if ((before && !CORE.contains(i)) || (null != selected && !selected.contains(i)))
            {
                continue;
            }
            delete(copy);
            delete(out);
            make(copy, mutation);
            final long started = System.nanoTime();
            final CliRun run = runBounded(commands.get(i));
            final long millis = (System.nanoTime() - started) / 1_000_000;
            judge(mutation, i, commands.get(i), run, copy);
            if (null != run && millis > slowMs)
            {
                record(new Finding(mutation, String.join(" ", commands.get(i)).replace(copy.toString(), PLACEHOLDER),
                    "SLOW-" + millis + "ms", run.exitCode(), run.out(), run.err()));
            }
            if (null != run && !unchanged(copy, mutation))
            {
                record(new Finding(mutation, String.join(" ", commands.get(i)).replace(copy.toString(), PLACEHOLDER),
                    "JOURNAL-CHANGED", run.exitCode(), run.out(), run.err()));
            }
        }
        delete(copy);
        delete(out);
        final long leaked = deletedMappings() - mappedBefore;
        if (leakCheck && leaked > 0)
        {
            record(new Finding(mutation, "(all)", "MAPPING-LEAK", 0, "", leaked + " mappings of deleted files left"));
        }
        return true;
    }

    /** Mappings of deleted files in this JVM (/proc/self/maps): a reader that does not unmap what it mapped. */
    private long deletedMappings()
    {
        if (!leakCheck)
        {
            return 0;
        }
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps")))
        {
            return lines.filter(line -> line.endsWith("(deleted)") && line.contains(work.toString())).count();
        }
        catch (final IOException | UncheckedIOException ex)
        {
            return 0;
        }
    }

    /**
     * Run commands on a journal this fuzzer did not make (an empty directory, a foreign file) and judge them as
     * damage: exit 0 is accepted only with the intact journal's output.
     *
     * @param label    names the case in findings.
     * @param journal  the journal directory (or file).
     */
    void fuzzForeign(final String label, final Path journal)
    {
        cases++;
        final Mutation mutation = new Mutation(label, 0, Damage.TRUNCATE);
        final Path out = work.resolve("foreign-out");
        final List<String[]> commands = commands(journal, out);
        for (int i = 0; i < commands.size(); i++)
        {
            if (null != selected && !selected.contains(i))
            {
                continue;
            }
            delete(out);
            judge(mutation, i, commands.get(i), runBounded(commands.get(i)), journal);
        }
        delete(out);
    }

    private void judge(final Mutation mutation, final int index, final String[] command, final CliRun run,
        final Path copy)
    {
        final String line = String.join(" ", command).replace(copy.toString(), PLACEHOLDER);
        if (null == run)
        {
            record(new Finding(mutation, line, "HANG", -1, "", "no exit within " + timeoutMs + " ms"));
            return;
        }
        final String all = run.out() + run.err();
        final String[] errLines = run.err().isEmpty() ? new String[0] : run.err().split("\n");
        final String kind;
        if (all.contains("Exception") || all.contains("at io.") || all.contains("\tat ") ||
            all.contains("Error:") || all.contains("kvledger: java."))
        {
            kind = "STACK";
        }
        else if (run.exitCode() == 2)
        {
            kind = errLines.length == 1 && !errLines[0].isBlank() ? "ok-2" : "ERR-LINES";
        }
        else if (run.exitCode() == 0)
        {
            final String expected = baseline.get(index);
            final boolean same = normalise(run.out(), copy).equals(expected);
            if (errLines.length == 0)
            {
                kind = same ? "ok-0" : "SILENT-CHANGE";
            }
            else if (errLines.length == 1 && errLines[0].startsWith("warning: "))
            {
                // A torn tail is what a writer that stopped leaves: damage with complete documents after it is not,
                // unless every document was read all the same (a damaged write position in Chronicle's header).
                kind = !same && damagedBeforeLastDocument(mutation) ? "TORN-MID" : "ok-0-warn";
            }
            else
            {
                kind = "ERR-LINES";
            }
        }
        else
        {
            kind = "EXIT-" + run.exitCode();
        }
        tally.merge(kind, 1, Integer::sum);
        if ("ok-0-warn".equals(kind))
        {
            warnings.add(new Finding(mutation, line, kind, run.exitCode(), "", run.err()));
        }
        if (!kind.startsWith("ok"))
        {
            record(new Finding(mutation, line, kind, run.exitCode(), run.out(), run.err()));
        }
    }

    /** Whether the damage (not a cut) lies before the last document's Chronicle header, complete ones after it. */
    private boolean damagedBeforeLastDocument(final Mutation mutation)
    {
        if (mutation.damage() == Damage.TRUNCATE || !mutation.file().endsWith(".cq4") ||
            !files.containsKey(mutation.file()))
        {
            return false;
        }
        final List<Long> frames = frameStarts(mutation.file());
        return !frames.isEmpty() && mutation.offset() < frames.get(frames.size() - 1) - 4;
    }

    private void record(final Finding finding)
    {
        tally.merge(finding.kind(), 0, Integer::sum);
        findings.add(finding);
    }

    /** @return the runs that broke the contract so far. */
    List<Finding> findings()
    {
        return findings;
    }

    /** @return the runs that exited 0 with a warning (a torn tail): the documents before it were read. */
    List<Finding> warnings()
    {
        return warnings;
    }

    /** @return runs per outcome (ok-0, ok-0-warn, ok-2 and each kind of finding). */
    Map<String, Integer> tally()
    {
        return tally;
    }

    /** @return damaged copies run so far. */
    int cases()
    {
        return cases;
    }

    /** Stop the worker thread (a hung run's thread is abandoned). */
    void close()
    {
        executor.shutdownNow();
    }

    private CliRun runBounded(final String[] command)
    {
        final Future<CliRun> future = executor.submit(() -> run(command, captureSystemStreams));
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            future.cancel(true);
            executor.shutdownNow();
            executor = newExecutor();
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            final java.io.StringWriter trace = new java.io.StringWriter();
            ex.getCause().printStackTrace(new java.io.PrintWriter(trace));
            return new CliRun(99, "", "escaped execute: " + trace);
        }
    }

    /** One in-process run, capturing System.out and System.err as well (a library printing on its own) if asked. */
    private static CliRun run(final String[] command, final boolean captureSystemStreams)
    {
        if (!captureSystemStreams)
        {
            return CliRun.kvledger((Object[])command);
        }
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream savedOut = System.out;
        final PrintStream savedErr = System.err;
        final int exitCode;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            System.setOut(outStream);
            System.setErr(errStream);
            try
            {
                exitCode = KvledgerMain.execute(outStream, errStream, command);
            }
            finally
            {
                System.setOut(savedOut);
                System.setErr(savedErr);
            }
        }
        return new CliRun(exitCode, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static ExecutorService newExecutor()
    {
        return Executors.newSingleThreadExecutor(task ->
        {
            final Thread thread = new Thread(task, "fuzz-run");
            thread.setDaemon(true);
            return thread;
        });
    }

    private void make(final Path copy, final Mutation mutation)
    {
        try
        {
            Files.createDirectories(copy);
            for (final Map.Entry<String, byte[]> entry : files.entrySet())
            {
                final String name = entry.getKey();
                final byte[] bytes = entry.getValue().clone();
                long length = lengths.get(name);
                int written = bytes.length;
                if (null != mutation && mutation.file().equals(name))
                {
                    if (mutation.damage() == Damage.TRUNCATE)
                    {
                        length = mutation.offset();
                        written = (int)Math.min(written, length);
                    }
                    else if (mutation.offset() < bytes.length)
                    {
                        bytes[(int)mutation.offset()] = (byte)damaged(bytes[(int)mutation.offset()] & 0xFF, mutation);
                    }
                }
                try (RandomAccessFile file = new RandomAccessFile(copy.resolve(name).toFile(), "rw"))
                {
                    file.write(bytes, 0, written);
                    if (null != mutation && mutation.file().equals(name) && mutation.damage() != Damage.TRUNCATE &&
                        mutation.offset() >= bytes.length)
                    {
                        file.seek(mutation.offset());
                        file.write(damaged(0, mutation));
                    }
                    file.setLength(length);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** The part of a file that holds data: the documents and the page after them (the rest is sparse zeros). */
    private byte[] prefix(final Path file) throws IOException
    {
        final byte[] data = files.get(file.getFileName().toString());
        final int length = (int)Math.min(Files.size(file), (null == data ? 0 : data.length) + 65_536L);
        final byte[] bytes = new byte[length];
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r"))
        {
            raf.readFully(bytes);
        }
        return bytes;
    }

    /**
     * Whether a command left the damaged copy as it was made (same files, same lengths, same data and the page
     * after it): reading never writes to a journal.
     */
    private boolean unchanged(final Path copy, final Mutation mutation)
    {
        final Path expected = work.resolve("expected");
        delete(expected);
        make(expected, mutation);
        try (Stream<Path> list = Files.list(copy))
        {
            final List<Path> present = list.sorted().toList();
            if (present.size() != files.size())
            {
                return false;
            }
            for (final Path file : present)
            {
                final Path twin = expected.resolve(file.getFileName());
                if (!Files.exists(twin) || Files.size(twin) != Files.size(file) ||
                    !java.util.Arrays.equals(prefix(twin), prefix(file)))
                {
                    return false;
                }
            }
            return true;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        finally
        {
            delete(expected);
        }
    }

    private static int damaged(final int value, final Mutation mutation)
    {
        switch (mutation.damage())
        {
            case FLIP:
                return value ^ (1 << (int)(mutation.offset() % 8));
            case ZERO:
                return 0;
            case ONES:
                return 0xFF;
            default:
                return value;
        }
    }

    private static int dataEnd(final byte[] bytes)
    {
        int end = bytes.length;
        while (end > 0 && 0 == bytes[end - 1])
        {
            end--;
        }
        return end;
    }

    private static String normalise(final String text, final Path copy)
    {
        return text.replace(copy.toString(), PLACEHOLDER);
    }

    static void delete(final Path path)
    {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS))
        {
            return;
        }
        try (Stream<Path> walk = Files.walk(path))
        {
            for (final Path p : (Iterable<Path>)walk.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String abbreviate(final String text)
    {
        final String flat = text.replace("\n", "\\n");
        return flat.length() > 400 ? flat.substring(0, 400) + "..." : flat;
    }

    /**
     * Fuzz one journal: {@code JOURNAL WORKDIR [random-offsets] [seed] [documents]}, the mutations of
     * {@link #plan} (with {@code documents}, none of the damage before the first document); findings print as they
     * come, a tally every 200 mutations, and at the end the warnings of the runs that exited 0 with one.
     *
     * @param args see above.
     */
    public static void main(final String[] args)
    {
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.announcer.disable", "true");
        System.setProperty("background.releaser", "false");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
        final Path journal = Path.of(args[0]);
        final Path work = Path.of(args[1]);
        final int randomOffsets = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        final long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        final JournalFuzzer fuzzer = new JournalFuzzer(journal, work, 20_000)
            .slowAfter(Long.getLong("fuzz.slowMs", 5_000));
        fuzzer.baseline();
        final boolean documentsOnly = args.length > 4 && "documents".equals(args[4]);
        final List<Mutation> mutations = new ArrayList<>(plan(fuzzer, randomOffsets, seed));
        if (documentsOnly)
        {
            mutations.removeIf(m -> m.damage() != Damage.TRUNCATE && m.offset() < fuzzer.headerEnd(m.file()));
        }
        final long below = Long.getLong("fuzz.below", Long.MAX_VALUE);
        mutations.removeIf(m -> m.offset() >= below);
        final String onlyFile = System.getProperty("fuzz.file");
        if (null != onlyFile)
        {
            mutations.removeIf(m -> !m.file().endsWith(onlyFile));
        }
        System.out.println("fuzzing " + journal + ": " + mutations.size() + " mutations, files " +
            fuzzer.dataLengths());
        int reported = 0;
        final long started = System.nanoTime();
        for (int i = 0; i < mutations.size(); i++)
        {
            fuzzer.fuzz(mutations.get(i));
            while (reported < fuzzer.findings().size())
            {
                System.out.println(fuzzer.findings().get(reported++));
            }
            if (i % 200 == 199)
            {
                System.out.println("  " + (i + 1) + "/" + mutations.size() + " in " +
                    (System.nanoTime() - started) / 1_000_000_000 + " s: " + fuzzer.tally());
            }
        }
        final Map<String, List<String>> warned = new java.util.TreeMap<>();
        for (final Finding warning : fuzzer.warnings())
        {
            warned.computeIfAbsent(warning.err().trim().replaceAll("\\d+", "N"), k -> new ArrayList<>())
                .add(warning.mutation() + " [" + warning.command() + "]");
        }
        warned.forEach((message, where) -> System.out.println("exit 0 with " + where.size() + "x " + message +
            "\n    e.g. " + where.get(0)));
        System.out.println("done: " + fuzzer.cases() + " damaged copies, " + fuzzer.tally());
        fuzzer.close();
    }

    /**
     * The mutations of a fuzz run: the bytes Chronicle keeps before the first document (its store header, the first
     * 1 KiB of each index page, the index before the first frame and 64 bytes into it) damaged three ways, every
     * 61st byte of the rest of that region and {@code randomOffsets} random bytes after it one way each, and cuts
     * at the start of the file, at each page, at the first frames' boundaries and around them, and at each later
     * frame's start and one byte into it.
     *
     * @param fuzzer        knows the files.
     * @param randomOffsets random offsets in the document region of each file.
     * @param seed          of the random offsets and damage.
     * @return the mutations in a fixed order.
     */
    static List<Mutation> plan(final JournalFuzzer fuzzer, final int randomOffsets, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Damage[] damages = {Damage.FLIP, Damage.ZERO, Damage.ONES};
        final List<Mutation> mutations = new ArrayList<>();
        for (final Map.Entry<String, Integer> file : fuzzer.dataLengths().entrySet())
        {
            final String name = file.getKey();
            final int length = file.getValue();
            final List<Long> frames = name.endsWith(".cq4") ? fuzzer.frameStarts(name) : List.of();
            final long headerEnd = fuzzer.headerEnd(name);
            final long lastIndex = frames.isEmpty() ? 0 : frames.get(0) & ~0xFFFL;
            for (long offset = 0; offset < headerEnd; offset++)
            {
                final long inPage = offset & 0x7FFF;
                if (inPage < 1024 || offset >= lastIndex)
                {
                    for (final Damage damage : damages)
                    {
                        mutations.add(new Mutation(name, offset, damage));
                    }
                }
                else if (offset % 61 == 0)
                {
                    mutations.add(new Mutation(name, offset, damages[random.nextInt(3)]));
                }
            }
            for (int i = 0; i < randomOffsets && length > headerEnd; i++)
            {
                mutations.add(new Mutation(name, headerEnd + random.nextLong(length - headerEnd),
                    damages[random.nextInt(3)]));
            }
            final java.util.TreeSet<Long> cuts = new java.util.TreeSet<>();
            for (long offset = 0; offset < Math.min(length, 512); offset += 5)
            {
                cuts.add(offset);
            }
            for (long page = 4096; page <= length; page += 4096)
            {
                cuts.add(page);
            }
            for (int f = 0; f < frames.size(); f++)
            {
                final long[] deltas = f < 4 ? new long[] {-4, -1, 0, 1, 4, 8, 12, 13, 40} : new long[] {0, 1};
                for (final long delta : deltas)
                {
                    cuts.add(frames.get(f) + delta);
                }
            }
            cuts.add((long)length);
            for (final long cut : cuts)
            {
                mutations.add(new Mutation(name, cut, Damage.TRUNCATE));
            }
        }
        return mutations;
    }
}
