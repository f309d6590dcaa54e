package io.kvledger.replay.cli;

import io.kvledger.engine.CacheStateMachine;
import io.kvledger.engine.EngineConfig;
import io.kvledger.engine.FaultSwitch;
import io.kvledger.engine.sim.ServingLoop;
import io.kvledger.engine.sim.SimulatedPort;
import io.kvledger.engine.sim.Workload;
import io.kvledger.engine.sim.WorkloadKind;
import io.kvledger.engine.sim.WorkloadOptions;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalReader;
import io.kvledger.journal.JournalWriter;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.journal.ReadStatus;
import io.kvledger.journal.codec.PrefetchPolicy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Real journals for the command-line tests, written by the deterministic simulation through a
 * {@link JournalWriter}: a clean run and the same run with the retract bug switched on.
 */
final class CliJournals
{
    static final long SEED = 7;

    private CliJournals()
    {
    }

    static EngineConfig config(final FaultSwitch... faults)
    {
        final EngineConfig.Builder builder = EngineConfig.builder().pageSize(16).deviceKvPages(512)
            .deviceMambaSlots(64).hostKvPages(2048).hostMambaSlots(128).maxRequests(256).maxRequestPages(64)
            .maxOps(512).prefetchPolicy(PrefetchPolicy.WAIT_COMPLETE).seed(SEED);
        for (final FaultSwitch fault : faults)
        {
            builder.fault(fault);
        }
        return builder.build();
    }

    static WorkloadOptions workload(final double retractRate)
    {
        final WorkloadOptions options = new WorkloadOptions();
        options.kind = WorkloadKind.PR_BENCH;
        options.requests = 12;
        options.promptTokens = 256;
        options.extendTokens = 64;
        options.seed = SEED;
        options.retractRate = retractRate;
        return options;
    }

    /**
     * Serve a workload and journal every document.
     *
     * @param directory for the new journal.
     * @param label     header label.
     * @param config    engine configuration (fault switches included).
     * @param options   workload.
     * @return the directory.
     */
    static Path write(final Path directory, final String label, final EngineConfig config,
        final WorkloadOptions options)
    {
        final JournalHeader header = config.toHeader(new JournalHeader()).label(label).createdNs(1_000_000L);
        try (JournalWriter writer = JournalWriter.open(directory, header, false))
        {
            final CacheStateMachine engine = new CacheStateMachine(config);
            final SimulatedPort port = new SimulatedPort(engine, (input, result, effects) ->
                writer.append(input, result, effects), SEED, options.failureRate, null);
            new ServingLoop(port, config, Workload.build(options)).run();
        }
        return directory;
    }

    static Path clean(final Path directory)
    {
        return write(directory, "clean", config(), workload(0));
    }

    static Path buggy(final Path directory)
    {
        return write(directory, "retract-bug", config(FaultSwitch.FREE_ON_RETRACT_WITH_QUEUED_LOAD), workload(0.5));
    }

    /** Changes one document while a journal is copied. */
    interface DocumentEdit
    {
        /**
         * @param input      the input (may be changed in place).
         * @param resultCode its recorded result.
         * @param effects    its recorded effects (a private copy, may be changed).
         * @return the result code to write.
         */
        int edit(InputRecord input, int resultCode, EffectList effects);
    }

    /**
     * Copy a journal document by document through a new writer, changing the header and one document.
     *
     * @param from     journal to copy.
     * @param to       new journal directory.
     * @param header   edits the header copy.
     * @param sequence document to edit (0 for none).
     * @param edit     the edit.
     * @return the new journal.
     */
    static Path rewrite(final Path from, final Path to, final UnaryOperator<JournalHeader> header, final long sequence,
        final DocumentEdit edit)
    {
        return rewriteEvery(from, to, header, (input, resultCode, effects) ->
            input.sequence() == sequence ? edit.edit(input, resultCode, effects) : resultCode, Long.MAX_VALUE);
    }

    /**
     * Copy a journal's first documents through a new writer, changing the header and any document.
     *
     * @param from   journal to copy.
     * @param to     new journal directory.
     * @param header edits the header copy.
     * @param edit   sees every document copied.
     * @param upTo   last document copied.
     * @return the new journal.
     */
    static Path rewriteEvery(final Path from, final Path to, final UnaryOperator<JournalHeader> header,
        final DocumentEdit edit, final long upTo)
    {
        final JournalWriter[] writer = new JournalWriter[1];
        final EffectList copy = new EffectList(64);
        try
        {
            final ReadOutcome outcome = JournalReader.open(from).read(new JournalListener()
            {
                @Override
                public void onHeader(final JournalHeader original, final JournalPosition position)
                {
                    writer[0] = JournalWriter.open(to, header.apply(new JournalHeader().copyFrom(original)), false);
                }

                @Override
                public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                    final JournalPosition position)
                {
                    copy.clear();
                    for (int i = 0; i < effects.size(); i++)
                    {
                        copy.addCopy(effects, i);
                    }
                    if (input.sequence() <= upTo)
                    {
                        writer[0].append(input, edit.edit(input, resultCode, copy), copy);
                    }
                }
            });
            if (ReadStatus.CLEAN != outcome.status())
            {
                throw new IllegalStateException(outcome.message());
            }
        }
        finally
        {
            if (null != writer[0])
            {
                writer[0].close();
            }
        }
        return to;
    }

    /**
     * Copy a journal directory file by file.
     *
     * @param from journal.
     * @param to   new directory.
     * @return the queue file of the copy.
     */
    static Path copy(final Path from, final Path to)
    {
        try
        {
            Files.createDirectories(to);
            Path queueFile = null;
            try (Stream<Path> files = Files.list(from))
            {
                for (final Path file : (Iterable<Path>)files::iterator)
                {
                    final Path target = to.resolve(file.getFileName());
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                    if (target.getFileName().toString().endsWith(".cq4"))
                    {
                        queueFile = target;
                    }
                }
            }
            return queueFile;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Copy a journal and leave a half-written document after its last one, as a writer killed mid-append does.
     *
     * @param from journal.
     * @param to   new directory.
     * @return the torn copy.
     */
    static Path tornCopy(final Path from, final Path to)
    {
        copy(from, to);
        final ReadOutcome clean = JournalReader.open(to).read(new JournalListener()
        {
            @Override
            public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
                final JournalPosition position)
            {
            }
        });
        try (RandomAccessFile file = new RandomAccessFile(to.resolve(clean.stopFile()).toFile(), "rw"))
        {
            file.seek(clean.stopOffset());
            file.writeInt(Integer.reverseBytes(0x8000_0000));
            file.writeInt(Integer.reverseBytes(0x1234));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return to;
    }

    /**
     * Flip bytes of a file in place.
     *
     * @param file   to damage.
     * @param offset first byte.
     * @param count  bytes flipped.
     */
    static void flip(final Path file, final long offset, final int count)
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            for (int i = 0; i < count; i++)
            {
                raf.seek(offset + i);
                final int b = raf.read();
                raf.seek(offset + i);
                raf.write(b ^ 0xFF);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
