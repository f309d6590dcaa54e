package io.kvledger.replay.cli;

import io.kvledger.engine.store.IoReason;
import io.kvledger.journal.JournalReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writing the files commands produce, with errors turned into one-line {@link CliException}s, and the up-front checks
 * of where they go: never inside the journal being read (an output there would overwrite the journal's own files),
 * never over an existing file (kvledger does not overwrite what it did not create).
 */
final class OutputFiles
{
    private OutputFiles()
    {
    }

    /**
     * Require, before any work, that a new output file can be written: it is named, lies outside the journal being
     * read, does not exist yet, and its directory exists and is writable. Nothing is created here.
     *
     * @param flag    the flag as typed, e.g. {@code --html}.
     * @param file    the output file.
     * @param journal the journal directory the command reads.
     * @param what    the file's role, for the error message ("the html report").
     * @throws CliException naming the path and the reason.
     */
    static void requireNewFile(final String flag, final Path file, final Path journal, final String what)
    {
        if (file.toString().isBlank())
        {
            throw new CliException(flag + " is empty; give a file");
        }
        requireOutsideJournal(flag, file, journal, what);
        if (Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS))
        {
            throw new CliException(flag + " " + file + " already exists; give a new file (" + what +
                " does not overwrite one)");
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (null == parent || !Files.isDirectory(parent))
        {
            Path blocking = parent;
            while (null != blocking && !Files.exists(blocking))
            {
                blocking = blocking.getParent();
            }
            throw new CliException("cannot write " + what + " " + file + ": " + (null == blocking ||
                Files.isDirectory(blocking) ? "no such directory" : "not a directory: " + blocking + " is a file"));
        }
        if (!Files.isWritable(parent) || !Files.isExecutable(parent))
        {
            throw new CliException("cannot write " + what + " " + file + ": permission denied: " + parent);
        }
    }

    /**
     * Require that an output (file or directory, existing or not) does not lie inside the journal directory being
     * read, symbolic links resolved, so writing it cannot overwrite or add to the journal.
     *
     * @param flag    the flag as typed.
     * @param output  the output path.
     * @param journal the journal directory the command reads.
     * @param what    the output's role, for the error message.
     * @throws CliException when the output lies inside the journal.
     */
    static void requireOutsideJournal(final String flag, final Path output, final Path journal, final String what)
    {
        if (journal.toString().isBlank())
        {
            return;
        }
        final Path journalPath = real(journal);
        if (real(output).startsWith(journalPath))
        {
            throw new CliException(flag + " " + output + " is inside the journal " + journal + " being read; " +
                what + " must be written outside it");
        }
    }

    /**
     * Require that a directory a command writes is not inside an existing journal directory (one holding Chronicle's
     * {@code metadata.cq4t}), symbolic links resolved: a journal directory holds its journal alone and is handed
     * whole to check, replay and compare, so nothing else may be written into it.
     *
     * @param flag   the flag as typed.
     * @param output the directory written.
     * @param what   the output's role, for the error message.
     * @throws CliException naming the journal directory.
     */
    static void requireOutsideAnyJournal(final String flag, final Path output, final String what)
    {
        for (Path dir = real(output); null != dir; dir = dir.getParent())
        {
            if (Files.isRegularFile(dir.resolve(JournalReader.METADATA_FILE)))
            {
                throw new CliException(flag + " " + output + " is inside the journal directory " + dir + ": give " +
                    what + " a directory of its own");
            }
        }
    }

    /** The path with symbolic links resolved as far as it exists, the rest appended, normalized. */
    private static Path real(final Path path)
    {
        final Path absolute = path.toAbsolutePath().normalize();
        Path existing = absolute;
        while (null != existing && !Files.exists(existing))
        {
            existing = existing.getParent();
        }
        if (null == existing)
        {
            return absolute;
        }
        try
        {
            return existing.toRealPath().resolve(existing.relativize(absolute)).normalize();
        }
        catch (final IOException | SecurityException ex)
        {
            return absolute;
        }
    }

    /**
     * Write a new text file; an existing file is not replaced.
     *
     * @param file where.
     * @param text what, UTF-8.
     * @param what the file's role, for the error message ("the html report").
     * @throws CliException when the file exists or cannot be written.
     */
    static void writeString(final Path file, final String text, final String what)
    {
        try
        {
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new CliException("cannot write " + what + " " + file + ": it already exists", ex);
        }
        catch (final NoSuchFileException ex)
        {
            throw new CliException("cannot write " + what + " " + file + ": no such directory", ex);
        }
        catch (final IOException ex)
        {
            throw new CliException("cannot write " + what + " " + file + ": " + IoReason.of(ex), ex);
        }
        catch (final RuntimeException ex)
        {
            throw new CliException("cannot write " + what + " " + file + ": " + ex, ex);
        }
    }
}
