package io.kvledger.replay.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

class ScratchTest
{
    @Test
    void scratch()
    {
        CliJournals.clean(Path.of("/tmp/kvj/clean"));
        CliJournals.buggy(Path.of("/tmp/kvj/buggy"));
    }
}
