package io.kvledger.replay.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * The two journals most command tests read, written once per test class: {@link #clean} ({@link CliJournals#clean})
 * and {@link #buggy} ({@link CliJournals#buggy}, with violations), in the class's temporary directory {@link #dir}.
 * A subclass's own {@code @BeforeAll} runs after this one's.
 */
abstract class CleanAndBuggyJournals
{
    @TempDir
    static Path dir;
    static Path clean;
    static Path buggy;

    @BeforeAll
    static void writeCleanAndBuggyJournals()
    {
        clean = CliJournals.clean(dir.resolve("clean"));
        buggy = CliJournals.buggy(dir.resolve("buggy"));
    }
}
