package io.kvledger.replay.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Locale;
import java.util.TimeZone;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deterministic mode writes the same journal for the same seed whatever the machine's default locale and time
 * zone (Turkish dotless i, Arabic digits, a zone 45 minutes off the hour): nothing a decision or a recorded value
 * depends on may come from them. The three journals, dumped under one locale, are the same text, and each replays
 * identical.
 */
class DeterministicRunLocaleTest
{
    private static final String[][] DEFAULTS = {
        {"", "UTC"}, {"tr-TR", "Asia/Kathmandu"}, {"ar-SA-u-nu-arab", "Pacific/Chatham"}};

    @Test
    void shouldWriteTheSameJournalUnderEveryDefaultLocaleAndTimeZone(@TempDir final Path dir)
    {
        final Locale locale = Locale.getDefault();
        final TimeZone zone = TimeZone.getDefault();
        final Path[] journals = new Path[DEFAULTS.length];
        try
        {
            for (int i = 0; i < DEFAULTS.length; i++)
            {
                Locale.setDefault(Locale.forLanguageTag(DEFAULTS[i][0]));
                TimeZone.setDefault(TimeZone.getTimeZone(DEFAULTS[i][1]));
                journals[i] = dir.resolve("run-" + i);
                kvledger("run", "--deterministic", "--workload", "multi-turn", "--requests", "24",
                    "--prompt-tokens", "768", "--kv-pages", "40", "--mamba-slots", "6", "--retract-rate", "0.3",
                    "--abort-rate", "0.2", "--prefetch", "timeout", "--seed", "11", "--journal", journals[i])
                    .exits(0);
            }
        }
        finally
        {
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
        }
        final String first = kvledger("dump", journals[0]).exits(0).out();
        assertTrue(first.lines().count() > 300, "documents dumped: " + first.lines().count());
        for (int i = 0; i < DEFAULTS.length; i++)
        {
            if (i > 0)
            {
                assertEquals(first, kvledger("dump", journals[i]).exits(0).out(), String.join(" ", DEFAULTS[i]));
            }
            assertTrue(kvledger("replay", journals[i]).exits(0).out().startsWith("identical: "));
        }
    }
}
