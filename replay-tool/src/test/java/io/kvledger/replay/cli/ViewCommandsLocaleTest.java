package io.kvledger.replay.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.kvledger.replay.cli.CliRun.kvledger;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The offline tools print the same text for the same journal whatever the machine's default locale: a locale whose
 * numbering system has digits of its own (Thai, Arabic) must not turn the counts of {@code stats} or the pool
 * table of {@code inspect} into other digits, nor change any other view.
 */
class ViewCommandsLocaleTest extends CleanAndBuggyJournals
{
    @ParameterizedTest
    @ValueSource(strings = {"th-TH-u-nu-thai", "ar-SA-u-nu-arab", "tr-TR", "de-DE"})
    void shouldPrintTheSameTextUnderEveryDefaultLocale(final String tag)
    {
        final List<Object[]> commands = List.of(
            new Object[] {"stats", buggy},
            new Object[] {"stats", buggy, "--json"},
            new Object[] {"inspect", buggy},
            new Object[] {"inspect", buggy, "--at", "40"},
            new Object[] {"check", buggy},
            new Object[] {"dump", buggy, "--limit", "50"},
            new Object[] {"replay", buggy},
            new Object[] {"compare", clean, buggy},
            new Object[] {"timeline", buggy, "--slot", "mamba:1"},
            new Object[] {"check", "--invariants"});
        final List<String> expected = new ArrayList<>();
        for (final Object[] command : commands)
        {
            expected.add(kvledger(command).out());
        }
        final Locale locale = Locale.getDefault();
        final List<String> actual = new ArrayList<>();
        try
        {
            Locale.setDefault(Locale.forLanguageTag(tag));
            for (final Object[] command : commands)
            {
                actual.add(kvledger(command).out());
            }
        }
        finally
        {
            Locale.setDefault(locale);
        }
        for (int i = 0; i < commands.size(); i++)
        {
            assertEquals(expected.get(i), actual.get(i), tag + ": " + commands.get(i)[0]);
        }
    }
}
