package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.kvledger.engine.FaultSwitch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code kvledger faults [NAME...] [--json]}: the engine's fault switches (known bugs kept as real code paths)
 * with their descriptions.
 */
@Command(
    name = "faults",
    mixinStandardHelpOptions = true,
    description = "List the fault switches (known bugs kept as alternative code paths) with their descriptions.",
    footer = {"", "Exit codes: 0 done, 2 unknown fault name or bad usage."})
final class FaultsCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", arity = "0..*",
        description = "Only these switches (case-insensitive, '-' for '_').")
    List<String> names;

    @Option(names = "--json", description = "Print the switches as a JSON array.")
    boolean json;

    @Override
    public Integer call()
    {
        final List<FaultSwitch> switches = new ArrayList<>();
        if (null == names || names.isEmpty())
        {
            switches.addAll(Arrays.asList(FaultSwitch.all()));
        }
        else
        {
            for (final String name : names)
            {
                switches.add(FaultSwitchConverter.parse(name));
            }
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (json)
        {
            final ArrayNode array = Json.array();
            for (final FaultSwitch fault : switches)
            {
                array.addObject().put("name", fault.name()).put("bit", fault.bit())
                    .put("description", fault.description());
            }
            out.println(Json.write(array));
        }
        else
        {
            int width = 0;
            for (final FaultSwitch fault : switches)
            {
                width = Math.max(width, fault.name().length());
            }
            for (final FaultSwitch fault : switches)
            {
                out.println(String.format("%-" + width + "s  %s", fault.name(), fault.description()));
            }
        }
        out.flush();
        return KvledgerMain.EXIT_CLEAN;
    }
}
