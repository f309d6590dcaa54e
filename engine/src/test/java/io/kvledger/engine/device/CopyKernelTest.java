package io.kvledger.engine.device;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
        final byte[] image = CopyKernel.image();
        assertEquals(0, image[image.length - 1]);
        assertEquals(PTX.length() + 1, image.length);
    }

    @Test
    void shouldDeclareBothEntriesWithTheOneStructTheBackendPasses()
    {
        final String code = String.join("\n", code());
        final Matcher entry = Pattern.compile("\\.visible \\.entry (\\w+)\\(([^)]*)\\)").matcher(code);
        final List<String> entries = new ArrayList<>();
        final List<String> params = new ArrayList<>();
        while (entry.find())
        {
            entries.add(entry.group(1));
            params.add(entry.group(2).trim().replaceAll("\\s+", " ").replaceAll(" \\w+\\[", "["));
        }
        assertEquals(List.of(CopyKernel.ENTRY, CopyKernel.ENTRY_PARAMS), entries);
        assertEquals(List.of(".param .align 8 .b8[" + CopyKernel.LAUNCH_BYTES + "]",
            ".param .align 16 .b8[" + CopyKernel.PARAM_LAUNCH_BYTES + "]"), params,
            "one struct parameter each: the launch header, and the header with the entries (4 KiB in all)");
        assertEquals(4096, CopyKernel.PARAM_LAUNCH_BYTES);
        assertTrue(CopyKernel.LAUNCH_BYTES <= CopyKernel.PARAM_ENTRIES_OFFSET);
        assertEquals(18, count(code, "ld.global.cg.v4.u32"), "eight 16-byte loads in flight, then one at a time, " +
            "in each of the two kernels");
        assertEquals(18, count(code, "st.global.cg.v4.u32"), "and their stores");
        assertTrue(code.contains("ld.global.cv.v2.u64") && code.contains("ld.global.cv.v4.u32"),
            "the table, written by the host between launches, is read uncached");
        final Matcher stride = Pattern.compile("shl\\.b64 %rd\\d+, %rd\\d+, (\\d+);").matcher(code);
        assertTrue(stride.find(), "the entry index scaled by a shift");
        assertEquals(CopyPlanner.ENTRY_BYTES, 1 << Integer.parseInt(stride.group(1)),
            "entry stride is CopyPlanner.ENTRY_BYTES");
        assertTrue(code.contains("[kvledger_copy_param_0+" + CopyKernel.LAUNCH_COUNT + "]"),
            "count and shift read at the offsets the backend writes them");
    }

    @Test
    void shouldPackAParameterEntryAsTheKernelUnpacksIt()
    {
        final UnsafeBuffer table = new UnsafeBuffer(ByteBuffer.allocateDirect(2 * CopyPlanner.ENTRY_BYTES));
        table.putLong(32, 0x1234_5678_9ABCL, ByteOrder.LITTLE_ENDIAN);
        table.putLong(40, 0xFEDC_BA98_7650L, ByteOrder.LITTLE_ENDIAN);
        table.putInt(48, 2, ByteOrder.LITTLE_ENDIAN);
        table.putInt(52, 1, ByteOrder.LITTLE_ENDIAN);
        table.putInt(56, 1 << 20, ByteOrder.LITTLE_ENDIAN);
        final UnsafeBuffer params = new UnsafeBuffer(ByteBuffer.allocateDirect(CopyKernel.PARAM_LAUNCH_BYTES));

        CopyKernel.packParamEntry(table, 1, params, 3);

        final long x = params.getLong(CopyKernel.PARAM_ENTRIES_OFFSET + 48, ByteOrder.LITTLE_ENDIAN);
        final long y = params.getLong(CopyKernel.PARAM_ENTRIES_OFFSET + 56, ByteOrder.LITTLE_ENDIAN);
        final long offsetMask = (1L << 48) - 1;
        assertEquals(0x1234_5678_9ABCL, x & offsetMask, "source offset");
        assertEquals(2, x >>> 48 & 3, "source pool");
        assertEquals(1, x >>> 50 & 3, "destination pool");
        assertEquals(0xFEDC_BA98_7650L, y & offsetMask, "destination offset");
        assertEquals(1 << 20, ((y >>> 48) + 1) * 16, "bytes: words minus one in the top 16 bits");
    }

    @Test
    void shouldBalanceBracesAndDeclareEveryRegisterItUses()
    {
        final String all = String.join("\n", code());
        assertEquals(count(all, "{"), count(all, "}"));
        final String[] kernels = all.split("\\.visible \\.entry ");
        assertEquals(3, kernels.length, "the header, then two kernels");
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
