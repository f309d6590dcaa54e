package io.kvledger.engine.device;

/**
 * Formats byte counts for log lines ("4 KiB", "1.5 MiB"). Lifecycle code only: allocates.
 */
final class Sizes
{
    private static final String[] UNITS = { "B", "KiB", "MiB", "GiB", "TiB" };

    private Sizes()
    {
    }

    static String bytes(final long bytes)
    {
        int unit = 0;
        double value = bytes;
        while (value >= 1024 && unit < UNITS.length - 1)
        {
            value /= 1024;
            unit++;
        }
        if (unit == 0 || value == Math.rint(value))
        {
            return (long)value + " " + UNITS[unit];
        }
        return String.format("%.1f %s", value, UNITS[unit]);
    }

    static String pool(final String name, final int count, final int slotBytes)
    {
        return name + " " + count + " x " + bytes(slotBytes) + " (" + bytes((long)count * slotBytes) + ")";
    }
}
