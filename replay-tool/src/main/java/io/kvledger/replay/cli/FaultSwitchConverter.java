package io.kvledger.replay.cli;

import io.kvledger.engine.FaultSwitch;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a fault switch name on the command line (case-insensitive, '-' for '_'); an unknown name is a usage
 * error (one line, exit 2). For {@code faults} and for the commands that switch faults on ({@code run},
 * {@code demo}).
 */
public final class FaultSwitchConverter implements ITypeConverter<FaultSwitch>
{
    @Override
    public FaultSwitch convert(final String value)
    {
        final FaultSwitch fault = FaultSwitch.parse(value);
        if (null == fault)
        {
            throw new TypeConversionException(unknown(value));
        }
        return fault;
    }

    /**
     * Parse a fault switch name outside picocli's option parsing.
     *
     * @param value the name.
     * @return the switch.
     * @throws CliException when no switch has that name.
     */
    public static FaultSwitch parse(final String value)
    {
        final FaultSwitch fault = FaultSwitch.parse(value);
        if (null == fault)
        {
            throw new CliException(unknown(value));
        }
        return fault;
    }

    private static String unknown(final String value)
    {
        return "unknown fault '" + value + "' (kvledger faults lists them)";
    }
}
