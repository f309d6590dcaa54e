package io.kvledger.engine.store;

import io.kvledger.engine.device.DeviceConfig;
import io.kvledger.engine.device.HostDeviceBackend;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static io.kvledger.engine.store.RecordingStoreListener.FETCH;
import static io.kvledger.engine.store.RecordingStoreListener.QUERY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileL3StoreTest extends L3StoreContract
{
    @TempDir
    Path directory;

    L3Store newStore(final HostDeviceBackend staging)
    {
        return new FileL3Store(directory.resolve("l3"), staging);
    }

    L3Store newStoreWithLimits(final HostDeviceBackend staging, final int maxPagesPerOp, final int planCount)
    {
        return new FileL3Store(directory.resolve("l3"), staging, maxPagesPerOp, planCount);
    }

    void vanishPage(final L3Store store, final long hi, final long lo) throws Exception
    {
        Files.delete(((FileL3Store)store).pagePath(hi, lo));
    }

    void vanishMamba(final L3Store store, final long hi, final long lo) throws Exception
    {
        Files.delete(((FileL3Store)store).mambaPath(hi, lo));
    }

    @Override
    boolean corruptPage(final L3Store store, final long hi, final long lo) throws Exception
    {
        try (RandomAccessFile file = new RandomAccessFile(((FileL3Store)store).pagePath(hi, lo).toFile(), "rw"))
        {
            file.seek(FileL3Store.HEADER_LENGTH + 100);
            final int value = file.read();
            file.seek(FileL3Store.HEADER_LENGTH + 100);
            file.write(value ^ 0x40);
        }
        return true;
    }

    /**
     * A writer killed between writing an object's temporary file and renaming it leaves the temporary file behind;
     * the next store on the directory removes those of writers that no longer run, and keeps a live writer's.
     */
    @Test
    void shouldRemoveTheTemporaryFilesOfWritersThatNoLongerRun() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path folder = Files.createDirectories(directory.resolve("l3").resolve("kv").resolve("ab"));
        final String object = "ab" + "0".repeat(30) + ".page";
        final Path dead = Files.writeString(folder.resolve(object + "." + Long.toHexString(gone.pid()) + "-1f.tmp"),
            "half an object");
        final Path live = Files.writeString(folder.resolve(object + "." +
            Long.toHexString(ProcessHandle.current().pid()) + "-2e.tmp"), "being written");

        store.close();
        final FileL3Store reopened = new FileL3Store(directory.resolve("l3"), staging);
        try
        {
            assertFalse(Files.exists(dead), "a dead writer's temporary file is removed");
            assertTrue(Files.exists(live), "a live writer's is kept");
            assertEquals(0, reopened.pageCount(), "neither is an object");
        }
        finally
        {
            reopened.close();
        }
    }

    /**
     * Two stores opening one directory at once (two controllers sharing it, started together) each remove the
     * temporary files of dead writers while the other is listing them: an entry listed and gone before its
     * attributes are read is skipped. Before, the walk threw UncheckedIOException (NoSuchFileException), which the
     * constructor did not catch: the controller failed to open with a raw exception.
     */
    @Test
    void shouldOpenWhileAnotherStoreRemovesTheTemporaryFilesItLists() throws Exception
    {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final String writer = Long.toHexString(gone.pid());
        final java.util.concurrent.ExecutorService openers = java.util.concurrent.Executors.newFixedThreadPool(2);
        try
        {
            for (int round = 0; round < 2; round++)
            {
                final Path root = directory.resolve("shared-" + round);
                for (int bucket = 0; bucket < 4; bucket++)
                {
                    final Path folder = Files.createDirectories(root.resolve("kv").resolve("0" + bucket));
                    for (int i = 0; i < 2_000; i++)
                    {
                        Files.createFile(folder.resolve(String.format(java.util.Locale.ROOT, "0%d%030x.page.%s-%x.tmp",
                            bucket, i, writer, i)));
                    }
                }
                final java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
                final java.util.concurrent.Callable<Long> open = () ->
                {
                    together.await();
                    final FileL3Store opened = new FileL3Store(root, staging);
                    opened.close();
                    return opened.pageCount();
                };
                final java.util.concurrent.Future<Long> first = openers.submit(open);
                final java.util.concurrent.Future<Long> second = openers.submit(open);
                assertEquals(0, first.get());
                assertEquals(0, second.get());
                try (Stream<Path> left = Files.walk(root))
                {
                    assertEquals(0, left.filter((p) -> p.toString().endsWith(".tmp")).count(), "all removed");
                }
            }
        }
        finally
        {
            openers.shutdownNow();
        }
    }

    @Test
    void shouldSayWhyTheStoreDirectoryCannotBeOpened() throws Exception
    {
        final Path file = Files.writeString(directory.resolve("a-file"), "not a directory");

        final java.io.UncheckedIOException underAFile = org.junit.jupiter.api.Assertions.assertThrows(
            java.io.UncheckedIOException.class, () -> new FileL3Store(file.resolve("l3"), staging));
        assertEquals("cannot open L3 store at " + file.resolve("l3") + ": not a directory: " + file + " is a file",
            underAFile.getMessage());

        final Path readOnly = Files.createDirectories(directory.resolve("read-only"));
        assertTrue(readOnly.toFile().setWritable(false, false));
        try
        {
            org.junit.jupiter.api.Assumptions.assumeFalse(Files.isWritable(readOnly), "root ignores permissions");
            final java.io.UncheckedIOException denied = org.junit.jupiter.api.Assertions.assertThrows(
                java.io.UncheckedIOException.class, () -> new FileL3Store(readOnly, staging));
            assertEquals("cannot open L3 store at " + readOnly + ": permission denied: " + readOnly.resolve("kv"),
                denied.getMessage());
        }
        finally
        {
            readOnly.toFile().setWritable(true, true);
        }
    }

    @Test
    void shouldFindTheFirstRunsPagesAfterARestart()
    {
        final long[] expected = fillPages(0, 4, 77);
        staging.fill(Pool.HOST_MAMBA, 0, 78);
        final long expectedMamba = staging.digest(Pool.HOST_MAMBA, 0);
        writePages(1, new int[]{ 0, 1, 2, 3 }, 3);
        store.close();
        staging.close();

        final RecordingStoreListener restarted = new RecordingStoreListener();
        staging = new HostDeviceBackend(new DeviceConfig().hostKvPages(64).hostMambaSlots(4));
        store = new FileL3Store(directory.resolve("l3"), staging);
        store.start(restarted);
        assertEquals(4, store.pageCount());
        assertEquals(1, store.mambaCount());

        store.query(2, hi, lo, 0, PAGES);
        final RecordingStoreListener.Completion answer = restarted.next(QUERY, 2);
        assertEquals(4, answer.pages);
        assertEquals(4, answer.mambaPages);

        fetchFourPagesAndAState(restarted, expected);
        assertEquals(expectedMamba, staging.digest(Pool.HOST_MAMBA, 2));
    }

    /**
     * The store directory emptied while the store runs (a clean-up removing {@code kv/*} and {@code mamba/*}): the
     * next writes of the same buckets make their folders again. Before, the store remembered each bucket's folder
     * as made, and every later write into it failed (an I/O error, {@code ok} false) until a restart.
     */
    @Test
    void shouldWriteAgainIntoBucketsRemovedWhileItRuns() throws Exception
    {
        final long[] expected = fillPages(0, 4, 21);
        writePages(1, new int[]{ 0, 1, 2, 3 }, 3);
        final Path root = directory.resolve("l3");
        for (final String part : new String[]{ "kv", "mamba" })
        {
            try (Stream<Path> files = Files.walk(root.resolve(part)))
            {
                files.sorted(java.util.Comparator.reverseOrder()).filter((p) -> !p.equals(root.resolve(part)))
                    .forEach((p) -> p.toFile().delete());
            }
        }
        assertFalse(Files.exists(((FileL3Store)store).pagePath(hi[0], lo[0]).getParent()));

        writePages(2, new int[]{ 0, 1, 2, 3 }, 3);
        assertEquals(0, store.stats().ioErrors());

        fetchFourPagesAndAState(listener, expected);
    }

    /**
     * Fetch pages 0-3 into host slots 40-43 and page 3's Mamba state into host slot 2 (op 3): the fetch succeeds and
     * each page's digest is the one written.
     */
    private void fetchFourPagesAndAState(final RecordingStoreListener to, final long[] expected)
    {
        final FetchPlan fetch = store.claimFetch();
        for (int i = 0; i < 4; i++)
        {
            fetch.page(hi[i], lo[i], 40 + i);
        }
        store.fetch(3, fetch.mamba(hi[3], lo[3], 2));
        final RecordingStoreListener.Completion done = to.next(FETCH, 3);
        assertTrue(done.ok);
        assertEquals(4, done.pages);
        assertTrue(done.mambaRead);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(expected[i], staging.digest(Pool.HOST_KV, 40 + i));
        }
    }

    @Test
    void shouldFailAFetchOfACorruptFileAndRemoveIt() throws Exception
    {
        fillPages(0, 4, 5);
        writePages(1, new int[]{ 0, 1, 2, 3 }, -1);
        final Path victim = ((FileL3Store)store).pagePath(hi[1], lo[1]);
        try (RandomAccessFile file = new RandomAccessFile(victim.toFile(), "rw"))
        {
            file.seek(FileL3Store.HEADER_LENGTH + 100);
            final int value = file.read();
            file.seek(FileL3Store.HEADER_LENGTH + 100);
            file.write(value ^ 0x40);
        }

        final FetchPlan fetch = store.claimFetch();
        for (int i = 0; i < 4; i++)
        {
            fetch.page(hi[i], lo[i], 20 + i);
        }
        store.fetch(2, fetch);
        final RecordingStoreListener.Completion done = listener.next(FETCH, 2);
        assertFalse(done.ok);
        assertEquals(1, done.pages);
        assertEquals(1, store.stats().corrupt());
        assertFalse(Files.exists(victim));
        assertEquals(3, store.pageCount());

        store.query(3, hi, lo, 0, 4);
        assertEquals(1, listener.next(QUERY, 3).pages);
    }

    @Test
    void shouldFailAFetchOfATruncatedFile() throws Exception
    {
        fillPages(0, 2, 6);
        writePages(1, new int[]{ 0, 1 }, -1);
        try (RandomAccessFile file = new RandomAccessFile(((FileL3Store)store).pagePath(hi[0], lo[0]).toFile(), "rw"))
        {
            file.setLength(100);
        }

        store.query(2, hi, lo, 0, 2);
        assertEquals(0, listener.next(QUERY, 2).pages);

        store.fetch(3, store.claimFetch().page(hi[0], lo[0], 9).page(hi[1], lo[1], 10));
        final RecordingStoreListener.Completion done = listener.next(FETCH, 3);
        assertFalse(done.ok);
        assertEquals(0, done.pages);
    }

    @Test
    void shouldRejectAFileStoredUnderAnotherFingerprint() throws Exception
    {
        fillPages(0, 2, 7);
        writePages(1, new int[]{ 0 }, -1);
        final FileL3Store fileStore = (FileL3Store)store;
        Files.createDirectories(fileStore.pagePath(hi[1], lo[1]).getParent());
        Files.copy(fileStore.pagePath(hi[0], lo[0]), fileStore.pagePath(hi[1], lo[1]));

        store.fetch(2, store.claimFetch().page(hi[1], lo[1], 9));

        final RecordingStoreListener.Completion done = listener.next(FETCH, 2);
        assertFalse(done.ok);
        assertEquals(0, done.pages);
        assertEquals(1, store.stats().corrupt());
        assertEquals(0, store.stats().missing());
    }

    @Test
    void shouldLayOutOneFilePerObjectWithAHeaderAndNoTemporaryFiles() throws Exception
    {
        final long[] expected = fillPages(0, 3, 8);
        staging.fill(Pool.HOST_MAMBA, 0, 9);
        writePages(1, new int[]{ 0, 1, 2 }, 2);
        final FileL3Store fileStore = (FileL3Store)store;

        final Path page = fileStore.pagePath(hi[0], lo[0]);
        final String name = String.format("%016x%016x", hi[0], lo[0]);
        assertEquals(directory.resolve("l3").resolve("kv").resolve(name.substring(0, 2)).resolve(name + ".page")
            .toAbsolutePath(), page);
        assertEquals(FileL3Store.HEADER_LENGTH + staging.slotBytes(Pool.HOST_KV), Files.size(page));
        assertEquals(FileL3Store.HEADER_LENGTH + staging.slotBytes(Pool.HOST_MAMBA),
            Files.size(fileStore.mambaPath(hi[2], lo[2])));

        final ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(page)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(FileL3Store.MAGIC, header.getInt(0));
        assertEquals(hi[0], header.getLong(16));
        assertEquals(lo[0], header.getLong(24));
        assertEquals(expected[0], header.getLong(32));

        try (Stream<Path> files = Files.walk(directory))
        {
            assertEquals(0, files.filter((path) -> path.toString().endsWith(".tmp")).count());
        }
    }
}
