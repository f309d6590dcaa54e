package io.kvledger.replay.cli;

import io.kvledger.engine.store.IoReason;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Writing the files commands produce, with errors turned into one-line {@link CliException}s.
 */
final class OutputFiles
{
    private OutputFiles()
    {
    }

    /**
     * Write a text file, replacing it when it exists.
     *
     * @param file where.
     * @param text what, UTF-8.
     * @param what the file's role, for the error message ("the html report").
     * @throws CliException when the file cannot be written.
     */
    static void writeString(final Path file, final String text, final String what)
    {
        try
        {
            Files.writeString(file, text, StandardCharsets.UTF_8);
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
