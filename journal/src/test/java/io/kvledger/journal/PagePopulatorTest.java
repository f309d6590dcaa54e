package io.kvledger.journal;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Populating a mapping changes no byte of it, and a range that is not mapped is harmless.
 */
class PagePopulatorTest
{
    private static final int PAGES = 64;

    @Test
    void shouldPopulateAFileMappingWithoutChangingItsContent(@TempDir final Path dir) throws Exception
    {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "madvise is Linux's");
        final Path file = dir.resolve("mapped");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(PAGES * 4096L);
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file.toFile(), FileChannel.MapMode.READ_WRITE, "test");
        try
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(mapped);
            for (int page = 0; page < PAGES; page += 3)
            {
                buffer.putLong(page * 4096 + 8, 1000L + page);
            }
            final PagePopulator populator = new PagePopulator();
            assertTrue(populator.populate(buffer.addressOffset(), PAGES * 4096L));
            assertTrue(populator.available());
            for (int page = 0; page < PAGES; page++)
            {
                assertEquals(page % 3 == 0 ? 1000L + page : 0L, buffer.getLong(page * 4096 + 8), "page " + page);
                assertEquals(0L, buffer.getLong(page * 4096), "page " + page);
            }
        }
        finally
        {
            IoUtil.unmap(mapped);
        }
    }

    @Test
    void shouldIgnoreARangeThatIsNotMapped()
    {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "madvise is Linux's");
        final PagePopulator populator = new PagePopulator();
        // The first page of the address space is never mapped: the call fails with ENOMEM, and nothing happens.
        assertTrue(populator.populate(4096, 4096));
        assertTrue(populator.available());
    }
}
