package io.kvledger.engine.device;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The copy kernel's PTX resource (generated from {@code engine/src/main/cuda/copy.cu} by
 * {@code scripts/gen-copy-ptx.sh}), read as text on a machine without a GPU: it loads, is plain ASCII, declares
 * the target and the entry the backend launches with the parameters it passes, moves 16-byte words, reads the
 * table past the caches, declares every register it uses, and branches only to labels it defines. (The driver
 * compiles it on the GPU machine; {@link CudaSelfCheck} and the data-path benchmark check what it copies there.)
 */
class CopyKernelTest
{
    private static final String PTX = CopyKernel.ptx();

    @Test
    void shouldLoadAsAsciiTextWithAHeaderTheDriverAccepts()
    {
        for (int i = 0; i < PTX.length(); i++)
        {
            final char c = PTX.charAt(i);
            assertTrue(c == '\n' || c == '\t' || (c >= ' ' && c < 127), "character " + (int)c + " at " + i);
        }
        final List<String> directives = new ArrayList<>();
        for (final String line : code())
        {
            if (line.startsWith(".version") || line.startsWith(".target") || line.startsWith(".address_size"))
            {
                directives.add(line.replaceAll("\\s+", " "));
            }
        }
        assertEquals(List.of(".version 7.5", ".target sm_75", ".address_size 64"), directives);
    }

    @Test
    void shouldHandTheDriverANulTerminatedImage()
    {
        final byte[] image = CopyKernel.image(CopyKernel.RESOURCE);
        assertEquals(0, image[image.length - 1]);
        assertEquals(PTX.length() + 1, image.length);
    }

    @Test
    void shouldDeclareBothEntriesWithTheOneStructTheBackendPasses()
    {
        final String code = String.join("\n", code());
        final List<String> withResident = new ArrayList<>(LAUNCHED_ENTRIES);
        withResident.add(ResidentCopier.ENTRY + " .param .align 8 .b8[" + ResidentCopier.PARAM_BYTES + "]");
        assertEquals(withResident, entries(code), "one struct parameter each: the launch header, the header with " +
            "the entries (4 KiB in all), and the resident kernel's (the launch header, then its addresses)");
        assertEquals(4096, CopyKernel.PARAM_LAUNCH_BYTES);
        assertTrue(CopyKernel.LAUNCH_BYTES <= CopyKernel.PARAM_ENTRIES_OFFSET);
        assertEquals(27, count(code, "ld.global.cg.v4.u32"), "eight 16-byte loads in flight, then one at a time, " +
            "in each of the three kernels");
        assertEquals(27, count(code, "st.global.cg.v4.u32"), "and their stores");
        assertEquals(2, count(code, "ld.global.cv.v2.u64"), "a table entry, written by the host between launches " +
            "(or batches, for the resident kernel), is read uncached, 16 bytes at once");
        final String resident = code.substring(code.indexOf(".entry " + ResidentCopier.ENTRY));
        assertEquals(3, count(resident, "membar.sys;"), "system-wide fences: after the doorbell is read, before " +
            "a block arrives at a barrier, and before the batch is published done");
        assertTrue(count(resident, "atom.add.u64") == 1 && count(resident, "nanosleep.u32") >= 3,
            "one arrival a block at each barrier; every wait sleeps between polls");
        final Matcher stride = Pattern.compile("shl\\.b64 %rd\\d+, %rd\\d+, (\\d+);").matcher(code);
        assertTrue(stride.find(), "the entry index scaled by a shift");
        assertEquals(CopyPlanner.ENTRY_BYTES, 1 << Integer.parseInt(stride.group(1)),
            "entry stride is CopyPlanner.ENTRY_BYTES");
        assertTrue(code.contains("[kvledger_copy_param_0+" + CopyKernel.LAUNCH_COUNT + "]"),
            "count and shift read at the offsets the backend writes them");
    }

    @Test
    void shouldCarryTheBulkCopyKernelsForHopperWithTheSameEntriesAndStructs()
    {
        final String bulk = CopyKernel.ptx(CopyKernel.RESOURCE_BULK);
        final List<String> directives = new ArrayList<>();
        final List<String> lines = new ArrayList<>();
        for (final String raw : bulk.split("\n"))
        {
            final String line = raw.replaceAll("//.*", "").trim();
            if (line.startsWith(".version") || line.startsWith(".target") || line.startsWith(".address_size"))
            {
                directives.add(line.replaceAll("\\s+", " "));
            }
            lines.add(line);
        }
        assertEquals(List.of(".version 8.0", ".target sm_90", ".address_size 64"), directives,
            "PTX 8.0 is the first with the bulk copies and expect_tx; sm_90 the first GPU with them");
        final String code = String.join("\n", lines);
        assertEquals(LAUNCHED_ENTRIES, entries(code), "launched as the threads' kernels");
        assertEquals(2, count(code, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"),
            "one bulk load into shared memory per kernel");
        assertEquals(2, count(code, "cp.async.bulk.global.shared::cta.bulk_group"), "and one bulk store");
        assertEquals(2, count(code, "cp.async.bulk.wait_group 0;"), "each kernel waits for its stores to complete");
        assertEquals(1, count(code, "ld.global.cv.v2.u64"), "the table kernel reads its entry past the caches");
        assertEquals(32 * 1024 + 128, CopyKernel.bulkSharedBytes(256), "128 bytes a thread after the barriers");
        assertEquals(128 * 1024 + 256, CopyKernel.bulkSharedBytes(1024));
    }

    @Test
    void shouldBalanceBracesAndDeclareEveryRegisterItUses()
    {
        final String all = String.join("\n", code());
        assertEquals(count(all, "{"), count(all, "}"));
        final String[] kernels = all.split("\\.visible \\.entry ");
        assertEquals(4, kernels.length, "the header, then three kernels");
        for (int k = 1; k < kernels.length; k++)
        {
            final String code = kernels[k];
            final Matcher declared = Pattern.compile("\\.reg \\.\\w+ %(\\w+)<(\\d+)>;").matcher(code);
            final Map<String, Integer> limits = new HashMap<>();
            while (declared.find())
            {
                limits.put(declared.group(1), Integer.parseInt(declared.group(2)));
            }
            assertEquals(Set.of("p", "r", "rd"), limits.keySet());
            final Matcher used = Pattern.compile("%(p|r|rd)(\\d+)\\b").matcher(code);
            int uses = 0;
            while (used.find())
            {
                uses++;
                final int limit = limits.get(used.group(1));
                assertTrue(Integer.parseInt(used.group(2)) < limit, "%" + used.group(1) + used.group(2) + " declared");
            }
            assertTrue(uses > 50, "registers found: " + uses);
        }
    }

    @Test
    void shouldBranchOnlyToDefinedLabels()
    {
        final Set<String> labels = new HashSet<>();
        final Set<String> targets = new HashSet<>();
        for (final String line : code())
        {
            final Matcher label = Pattern.compile("^([\\w$]+):$").matcher(line);
            if (label.find())
            {
                assertTrue(labels.add(label.group(1)), "label defined twice: " + label.group(1));
            }
            final Matcher branch = Pattern.compile("\\bbra(?:\\.uni)?\\s+([\\w$]+);").matcher(line);
            if (branch.find())
            {
                targets.add(branch.group(1));
            }
        }
        assertTrue(labels.size() >= 8, "loops in both kernels: " + labels);
        assertEquals(labels, targets);
    }

    /** Each entry the backend launches with its one parameter as PTX declares it, in the module's order. */
    private static final List<String> LAUNCHED_ENTRIES = List.of(
        CopyKernel.ENTRY + " .param .align 8 .b8[" + CopyKernel.LAUNCH_BYTES + "]",
        CopyKernel.ENTRY_PARAMS + " .param .align 16 .b8[" + CopyKernel.PARAM_LAUNCH_BYTES + "]");

    /** The entries a module declares, in order, each with its parameter list (names dropped, spaces collapsed). */
    private static List<String> entries(final String code)
    {
        final Matcher entry = Pattern.compile("\\.visible \\.entry (\\w+)\\(([^)]*)\\)").matcher(code);
        final List<String> entries = new ArrayList<>();
        while (entry.find())
        {
            entries.add(entry.group(1) + " " +
                entry.group(2).trim().replaceAll("\\s+", " ").replaceAll(" \\w+\\[", "["));
        }
        return entries;
    }

    /** The PTX without comments and blank lines, each line trimmed. */
    private static List<String> code()
    {
        final List<String> lines = new ArrayList<>();
        for (final String raw : PTX.split("\n"))
        {
            final int comment = raw.indexOf("//");
            final String line = (comment < 0 ? raw : raw.substring(0, comment)).trim();
            if (!line.isEmpty())
            {
                lines.add(line.replaceAll("\\s+", " "));
            }
        }
        return lines;
    }

    private static int count(final String text, final String part)
    {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length()))
        {
            n++;
        }
        return n;
    }
}
