package io.kvledger.tests;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The package structure the architecture promises, read from the main sources of every module: no package cycles,
 * and the production runtime never depends on the simulator.
 */
class PackageDependencyTest
{
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern IMPORT =
        Pattern.compile("^import (?:static )?(io\\.kvledger[\\w.]*?)\\.[A-Z]\\w*(?:\\.\\w+)*;", Pattern.MULTILINE);
    private static final String[] MODULES = {"journal", "engine", "store-redis", "replay-tool", "tests"};

    private static Map<String, Set<String>> dependencies() throws IOException
    {
        final Map<String, Set<String>> deps = new TreeMap<>();
        final Path root = Path.of("..").toAbsolutePath().normalize();
        for (final String module : MODULES)
        {
            final Path sources = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources))
            {
                continue;
            }
            try (Stream<Path> files = Files.walk(sources))
            {
                for (final Path file : (Iterable<Path>)files.filter(f -> f.toString().endsWith(".java"))::iterator)
                {
                    final String text = Files.readString(file);
                    final Matcher p = PACKAGE.matcher(text);
                    if (!p.find())
                    {
                        continue;
                    }
                    final Set<String> out = deps.computeIfAbsent(p.group(1), k -> new TreeSet<>());
                    final Matcher i = IMPORT.matcher(text);
                    while (i.find())
                    {
                        if (!i.group(1).equals(p.group(1)))
                        {
                            out.add(i.group(1));
                        }
                    }
                }
            }
        }
        return deps;
    }

    @Test
    void shouldHaveNoPackageCycles() throws IOException
    {
        final Map<String, Set<String>> deps = dependencies();
        assertTrue(deps.size() > 10, "found the sources: " + deps.keySet());
        final List<String> cycles = new ArrayList<>();
        for (final String start : deps.keySet())
        {
            final Deque<String> queue = new ArrayDeque<>(deps.get(start));
            final Set<String> seen = new HashSet<>();
            final Map<String, String> via = new HashMap<>();
            deps.get(start).forEach(d -> via.put(d, start));
            while (!queue.isEmpty())
            {
                final String p = queue.poll();
                if (p.equals(start))
                {
                    cycles.add(start + " reaches itself through " + via.get(start));
                    break;
                }
                if (seen.add(p))
                {
                    for (final String next : deps.getOrDefault(p, Set.of()))
                    {
                        via.putIfAbsent(next, p);
                        queue.add(next);
                    }
                }
            }
        }
        assertEquals(List.of(), cycles);
    }

    @Test
    void shouldKeepTheRuntimeApartFromTheSimulator() throws IOException
    {
        final Map<String, Set<String>> deps = dependencies();
        for (final String production : new String[]{"io.kvledger.engine.runtime", "io.kvledger.engine.device",
            "io.kvledger.engine.store", "io.kvledger.engine.counters", "io.kvledger.engine.api"})
        {
            assertTrue(!deps.getOrDefault(production, Set.of()).contains("io.kvledger.engine.sim"),
                production + " depends on the simulator: " + deps.get(production));
        }
    }
}
