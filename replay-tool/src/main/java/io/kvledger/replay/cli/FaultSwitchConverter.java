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
            throw new TypeConversionException("unknown fault '" + value + "' (kvledger faults lists them)");
        }
        return fault;
    }
}
