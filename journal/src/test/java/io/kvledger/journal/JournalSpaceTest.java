package io.kvledger.journal;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reservation ahead of the writer, against a stand-in file system with a fixed amount of room per file.
 */
class JournalSpaceTest
{
    private static final long MIB = 1L << 20;

    @Test
    void shouldReserveWholeMegabytesALeadAheadAndStayAheadOfEveryDocumentByTheMargin()
    {
        final FakeBlocks blocks = new FakeBlocks(Long.MAX_VALUE);
        final JournalSpace space = new JournalSpace(blocks);
        final File file = new File("a.cq4");
        for (long end = 1_000; end < 16 * MIB; end += 1_000)
        {
            space.reserve(file, end);
            assertTrue(blocks.allocatedTo >= end + JournalSpace.MARGIN, "reserved to " + blocks.allocatedTo +
                " for a document ending at " + end);
            assertEquals(blocks.allocatedTo, space.limit(), "the pretoucher's limit is what is reserved");
            assertEquals(0, blocks.allocatedTo % JournalSpace.CHUNK, "whole chunks");
        }
        assertTrue(space.reservedCalls() <= 16 * MIB / JournalSpace.LEAD + 1, "one call per lead: " + blocks.calls);
        assertTrue(space.reservedCalls() >= 16 * MIB / (JournalSpace.LEAD + JournalSpace.CHUNK),
            blocks.calls::toString);
        assertEquals(List.of("open a.cq4"), blocks.opened);
    }

    @Test
    void shouldReserveExactlyWhatTheDocumentNeedsWhenAChunkNoLongerFitsThenRefuse()
    {
        final long room = MIB + 300 * 1024;
        final FakeBlocks blocks = new FakeBlocks(room);
        final JournalSpace space = new JournalSpace(blocks);
        final File file = new File("a.cq4");
        space.reserve(file, 100);
        assertEquals(100 + JournalSpace.MARGIN, blocks.allocatedTo, "the lead does not fit: exactly the need");
        final long fits = room - JournalSpace.MARGIN;
        space.reserve(file, fits);
        assertEquals(room, blocks.allocatedTo, "the last bytes are used, not left for want of a whole chunk");

        final JournalException ex = assertThrows(JournalException.class, () -> space.reserve(file, fits + 1));
        assertTrue(ex.getMessage().contains("no space left on the device"), ex.getMessage());
        assertTrue(ex.getMessage().contains("a.cq4"), ex.getMessage());
        assertTrue(space.reserving(), "a full file system does not turn reservation off");

        blocks.room = room + MIB;
        space.reserve(file, fits + 1);
        assertTrue(blocks.allocatedTo >= fits + 1 + JournalSpace.MARGIN, "room made again is used");
    }

    @Test
    void shouldStartOverOnANewQueueFile()
    {
        final FakeBlocks blocks = new FakeBlocks(Long.MAX_VALUE);
        final JournalSpace space = new JournalSpace(blocks);
        space.reserve(new File("a.cq4"), 3 * MIB);
        final File next = new File("b.cq4");
        space.reserve(next, 10);
        assertEquals(List.of("open a.cq4", "open b.cq4"), blocks.opened);
        assertEquals(List.of(0), blocks.closed, "the first file's descriptor is closed");
        final long lead = (10 + JournalSpace.MARGIN + JournalSpace.LEAD + MIB - 1) / MIB * MIB;
        assertEquals("allocate 1 0+" + lead, blocks.calls.get(blocks.calls.size() - 1));
        space.close();
        assertEquals(List.of(0, 1), blocks.closed);
    }

    @Test
    void shouldTurnItselfOffWhereTheFileSystemCannotAllocateAhead()
    {
        final FakeBlocks blocks = new FakeBlocks(Long.MAX_VALUE);
        blocks.answer = LibC.EOPNOTSUPP;
        final JournalSpace space = new JournalSpace(blocks);
        space.reserve(new File("a.cq4"), 10);
        assertFalse(space.reserving());
        assertEquals(Long.MAX_VALUE, space.limit(), "nothing reserved: the pretoucher is not held back");
        space.reserve(new File("a.cq4"), 10 * MIB);
        assertEquals(1, blocks.calls.size(), "no call once off: " + blocks.calls);

        final JournalSpace nowhere = new JournalSpace(FileBlocks.Unavailable.INSTANCE);
        nowhere.reserve(new File("a.cq4"), 10);
        assertFalse(nowhere.reserving());
    }

    @Test
    void shouldReportAFailureToOpenTheFileAsOneLine()
    {
        final FakeBlocks blocks = new FakeBlocks(Long.MAX_VALUE);
        blocks.openAnswer = -5;
        final JournalSpace space = new JournalSpace(blocks);
        final JournalException ex = assertThrows(JournalException.class, () -> space.reserve(new File("a.cq4"), 10));
        assertTrue(ex.getMessage().contains("input/output error"), ex.getMessage());
        assertFalse(ex.getMessage().contains("\n"));
    }

    @Test
    void shouldReserveAWholeSmallFileOrRefuse()
    {
        final FakeBlocks blocks = new FakeBlocks(64 * 1024);
        final JournalSpace space = new JournalSpace(blocks);
        final File table = new File("pom.xml");
        assertTrue(table.length() > 0 && table.length() < 64 * 1024, "the module's pom as a small file");
        space.reserveWhole(table);
        assertEquals(List.of("allocate 0 0+" + table.length()), blocks.calls);
        assertEquals(List.of(0), blocks.closed);

        blocks.room = 10;
        assertThrows(JournalException.class, () -> space.reserveWhole(table));
    }

    /** A file system with {@link #room} bytes for every file; allocations below it succeed. */
    static final class FakeBlocks implements FileBlocks
    {
        final List<String> opened = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        final List<Integer> closed = new ArrayList<>();
        long room;
        long allocatedTo;
        int answer;
        int openAnswer;

        FakeBlocks(final long room)
        {
            this.room = room;
        }

        public int open(final String path)
        {
            if (0 != openAnswer)
            {
                return openAnswer;
            }
            opened.add("open " + path);
            allocatedTo = 0;
            return opened.size() - 1;
        }

        public int allocate(final int fd, final long offset, final long length)
        {
            calls.add("allocate " + fd + " " + offset + "+" + length);
            if (0 != answer)
            {
                return answer;
            }
            if (offset + length > room)
            {
                return LibC.ENOSPC;
            }
            allocatedTo = Math.max(allocatedTo, offset + length);
            return 0;
        }

        public void close(final int fd)
        {
            closed.add(fd);
        }
    }
}
