package io.kvledger.replay.check;

import java.util.List;

/**
 * The owners of one implicated slot over sequence numbers, for the report's timeline picture.
 *
 * @param pool       pool name.
 * @param id         slot id.
 * @param points     owner after each recorded effect, oldest first.
 * @param violations sequences at which violations were reported on the slot.
 */
public record SlotLane(String pool, int id, List<Point> points, List<Long> violations)
{
    /**
     * The owner a slot had from a sequence on.
     *
     * @param sequence document sequence.
     * @param owner    owner label, for example {@code REQUEST 7} or {@code FREE}.
     */
    public record Point(long sequence, String owner)
    {
    }

    /**
     * Defensive copies.
     */
    public SlotLane
    {
        points = List.copyOf(points);
        violations = List.copyOf(violations);
    }
}
