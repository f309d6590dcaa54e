package io.kvledger.replay.cli;

import io.kvledger.journal.JournalReader;
import io.kvledger.journal.ReadOutcome;
import io.kvledger.replay.check.InvariantChecker;
import io.kvledger.replay.check.JournalStats;
import io.kvledger.replay.report.CheckReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

class ScratchTest
{
    @Test
    void scratch(@TempDir final Path dir)
    {
        for (final Path j : new Path[]{CliJournals.clean(dir.resolve("clean")), CliJournals.buggy(dir.resolve("buggy"))})
        {
            final InvariantChecker checker = new InvariantChecker();
            final JournalStats stats = new JournalStats();
            final ReadOutcome o = JournalReader.open(j).read(checker);
            JournalReader.open(j).read(stats);
            System.out.println(o);
            System.out.println(stats.toText());
            final String text = CheckReport.of(checker).toText();
            System.out.println(text.substring(0, Math.min(3000, text.length())));
        }
    }
}
