package io.kvledger.engine.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Why a file operation failed, in the operating system's terms and naming the path, for one-line messages: "permission
 * denied: /a/b", "not a directory: /a is a file", "no such file or directory: /a/b" (instead of an exception's class
 * name and a bare path).
 */
public final class IoReason
{
    private IoReason()
    {
    }

    /**
     * @param ex the failure.
     * @return the reason, one line.
     */
    public static String of(final IOException ex)
    {
        if (ex instanceof FileSystemException fs && null != fs.getFile())
        {
            final Path path = Path.of(fs.getFile());
            final Path blocking = existingNonDirectory(path);
            if (null != blocking && !blocking.equals(path))
            {
                return "not a directory: " + blocking + " is a file";
            }
            if (ex instanceof AccessDeniedException)
            {
                return "permission denied: " + path;
            }
            if (ex instanceof NoSuchFileException)
            {
                return "no such file or directory: " + path;
            }
            if (null != blocking && ex instanceof java.nio.file.FileAlreadyExistsException)
            {
                return "not a directory: " + path + " is a file";
            }
            return (null == fs.getReason() ? "failed" : fs.getReason().toLowerCase(Locale.ROOT)) + ": " + path;
        }
        return String.valueOf(ex.getMessage());
    }

    /** The path itself or its nearest existing ancestor when that is not a directory, else null. */
    private static Path existingNonDirectory(final Path path)
    {
        for (Path p = path; null != p; p = p.getParent())
        {
            if (Files.exists(p))
            {
                return Files.isDirectory(p) ? null : p;
            }
        }
        return null;
    }
}
