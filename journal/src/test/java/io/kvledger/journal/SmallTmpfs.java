package io.kvledger.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A small tmpfs that a test fills up: a real file system that runs out of space, for the journal's disk-full tests
 * (here and in replay-tool). Mounting needs root on Linux; elsewhere the calling test is skipped, not failed.
 * Close it (try-with-resources or an {@code @AfterEach}) to unmount.
 */
public final class SmallTmpfs implements AutoCloseable
{
    private final Path mount;

    private SmallTmpfs(final Path mount)
    {
        this.mount = mount;
    }

    /**
     * Mount a tmpfs of {@code size} (as mount's {@code size=} option, e.g. {@code 2m}) on a new directory, or skip the
     * calling test where that is not possible.
     *
     * @param parent where the mount point is made (a test's temporary directory).
     * @param size   the file system's size.
     * @return the mounted file system.
     * @throws Exception when the mount point cannot be made.
     */
    public static SmallTmpfs mountOrSkip(final Path parent, final String size) throws Exception
    {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "tmpfs is Linux's");
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        final Path mount = Files.createDirectories(parent.resolve("tmpfs"));
        assumeTrue(0 == run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", mount.toString()),
            "cannot mount a tmpfs here");
        return new SmallTmpfs(mount);
    }

    /** @return the mount point. */
    public Path path()
    {
        return mount;
    }

    /** Unmount (lazily: files a failed test left open do not keep it mounted). */
    @Override
    public void close() throws IOException
    {
        try
        {
            run("umount", "-l", mount.toString());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static int run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(20, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
