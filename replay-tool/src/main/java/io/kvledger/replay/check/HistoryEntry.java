package io.kvledger.replay.check;

/**
 * One effect that touched a slot, node, operation or request, as it appears in a violation's history.
 *
 * @param sequence document sequence of the effect.
 * @param text     readable description of the effect.
 */
public record HistoryEntry(long sequence, String text)
{
}
