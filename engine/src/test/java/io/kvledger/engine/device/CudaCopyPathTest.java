package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The copy-path settings and, without a GPU, the clean fallback of the kernel path and of the data-path
 * benchmark.
 */
class CudaCopyPathTest
{
    @Test
    void shouldParseTheCommandLineNames()
    {
        assertEquals(CudaCopyPath.KERNEL, CudaCopyPath.parse("kernel"));
        assertEquals(CudaCopyPath.DIRECT, CudaCopyPath.parse("DIRECT"));
        assertEquals(CudaCopyPath.RESIDENT, CudaCopyPath.parse("resident"));
        assertEquals("resident", CudaCopyPath.RESIDENT.cliName());
        assertNull(CudaCopyPath.parse("layer_first"));
        assertNull(CudaCopyPath.parse(null));
        assertEquals("direct", CudaCopyPath.DIRECT.cliName());
    }

    @Test
    void shouldDefaultToTheKernelAndValidateItsShape()
    {
        final DeviceConfig config = new DeviceConfig();
        assertEquals(CudaCopyPath.KERNEL, config.cudaCopyPath());
        assertEquals(DeviceConfig.KERNEL_THREADS_DEFAULT, config.kernelThreads());
        assertEquals(DeviceConfig.KERNEL_CHUNK_BYTES_DEFAULT, config.kernelChunkBytes());
        config.validate();

        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelThreads(100).validate());
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelThreads(2048).validate());
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelChunkBytes(1000).validate());
        assertEquals(0, config.kernelGroupThreads(), "threads per entry chosen by entry size");
        assertTrue(config.kernelParamTable() && !config.kernelMappedTable() && !config.kernelSortByHost());
        new DeviceConfig().kernelGroupThreads(64).validate();
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelGroupThreads(48).validate());
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelGroupThreads(16).validate());
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().kernelGroupThreads(512).validate());
        assertThrows(IllegalArgumentException.class,
            () -> new DeviceConfig().kernelThreads(96).kernelGroupThreads(64).validate());
        assertThrows(IllegalArgumentException.class, () -> new DeviceConfig().cudaCopyPath(null).validate());
        assertTrue(new DeviceConfig().cudaCopyPath(CudaCopyPath.DIRECT).toString().contains("cudaCopyPath=DIRECT"));
    }

    @Test
    void shouldFallBackToHostMemoryFromEitherCopyPathWithoutAGpu()
    {
        final StringBuilder whyNot = new StringBuilder();
        assumeFalse(CudaDeviceBackend.available(whyNot), "a usable GPU is present");
        for (final CudaCopyPath path : CudaCopyPath.values())
        {
            final StringBuilder message = new StringBuilder();
            final DeviceConfig config = new DeviceConfig().cudaCopyPath(path).cudaRegisteredHost(true);
            try (DeviceBackend backend = DeviceBackends.create(DeviceKind.CUDA, config, message))
            {
                assertInstanceOf(HostDeviceBackend.class, backend);
                assertEquals(whyNot + "; using host memory instead", message.toString());
            }
        }
    }

    @Test
    void shouldRefuseTheDataPathBenchmarkWithoutAGpu()
    {
        final StringBuilder whyNot = new StringBuilder();
        assumeFalse(CudaDeviceBackend.available(whyNot), "a usable GPU is present");
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();

        final int code = CudaDataPathBench.run(new PrintWriter(out), new PrintWriter(err), 1, 1);

        assertEquals(2, code);
        assertEquals("", out.toString());
        assertEquals("bench --data-path needs an NVIDIA GPU: " + whyNot + System.lineSeparator(), err.toString());
    }

    @Test
    void shouldMeasureBatchesOfAQuarterGibibyteAtMost()
    {
        assertEquals(8192, CudaDataPathBench.pagesFor(4 << 10));
        assertEquals(8192, CudaDataPathBench.pagesFor(16 << 10));
        assertEquals(4096, CudaDataPathBench.pagesFor(64 << 10));
        assertEquals(256, CudaDataPathBench.pagesFor(1 << 20));
    }
}
