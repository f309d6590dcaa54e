package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The cuda backend's probe and the fallback to host memory; the GPU path itself is checked by
 * {@link CudaSelfCheck} on a machine with a GPU.
 */
class CudaDeviceBackendTest
{
    @Test
    void shouldReportCudaUnavailableWithAOneLineReason()
    {
        final StringBuilder whyNot = new StringBuilder();
        final boolean available = CudaDeviceBackend.available(whyNot);
        assumeFalse(available, "a usable GPU is present: " + CudaDeviceBackend.probeDescription());

        final String reason = whyNot.toString();
        assertTrue(reason.startsWith("cuda: "), reason);
        assertFalse(reason.contains("\n"), reason);
        assertEquals(reason, CudaDeviceBackend.probeDescription());
        if (!libcudaPresent())
        {
            assertEquals("cuda: no NVIDIA driver found (libcuda.so.1 missing)", reason);
        }
    }

    @Test
    void shouldCacheTheProbe()
    {
        final StringBuilder first = new StringBuilder();
        final StringBuilder second = new StringBuilder();

        assertEquals(CudaDeviceBackend.available(first), CudaDeviceBackend.available(second));
        assertEquals(first.toString(), second.toString());
    }

    @Test
    void shouldFallBackToHostMemoryWithTheReason()
    {
        final StringBuilder whyNot = new StringBuilder();
        assumeFalse(CudaDeviceBackend.available(whyNot), "a usable GPU is present");
        final StringBuilder message = new StringBuilder();

        try (DeviceBackend backend = DeviceBackends.create(DeviceKind.CUDA, new DeviceConfig(), message))
        {
            assertInstanceOf(HostDeviceBackend.class, backend);
            assertEquals(DeviceKind.HOST, backend.kind());
            assertEquals(whyNot + "; using host memory instead", message.toString());
        }
    }

    @Test
    void shouldRefuseToConstructWithoutAGpu()
    {
        assumeFalse(CudaDeviceBackend.available(null), "a usable GPU is present");

        final IllegalStateException ex =
            assertThrows(IllegalStateException.class, () -> new CudaDeviceBackend(new DeviceConfig()));
        assertEquals(CudaDeviceBackend.probeDescription(), ex.getMessage());
    }

    @Test
    void shouldCreateTheHostBackendWithoutAMessage()
    {
        final StringBuilder message = new StringBuilder();

        try (DeviceBackend backend = DeviceBackends.create(DeviceKind.HOST, new DeviceConfig(), message))
        {
            assertInstanceOf(HostDeviceBackend.class, backend);
            assertEquals(0, message.length());
            assertEquals(DeviceConfig.KV_PAGE_BYTES_DEFAULT, backend.slotBytes(Pool.HOST_KV));
        }
    }

    @Test
    void shouldRejectAKindWithoutADataPlane()
    {
        assertThrows(IllegalArgumentException.class,
            () -> DeviceBackends.create(DeviceKind.SIMULATED, new DeviceConfig(), new StringBuilder()));
    }

    @Test
    void shouldNotLoadJCudaWhenTheHostBackendIsChosen() throws Exception
    {
        try (IsolatedLoader loader = new IsolatedLoader(classPath()))
        {
            final Class<?> kindClass = loader.loadClass(DeviceKind.class.getName());
            final Class<?> configClass = loader.loadClass(DeviceConfig.class.getName());
            final Class<?> backends = loader.loadClass(DeviceBackends.class.getName());
            final Method create = backends.getMethod("create", kindClass, configClass, StringBuilder.class);
            final Object host = kindClass.getField("HOST").get(null);

            final AutoCloseable backend = (AutoCloseable)create.invoke(
                null, host, configClass.getConstructor().newInstance(), new StringBuilder());
            backend.close();

            assertTrue(loader.loaded(HostDeviceBackend.class.getName()));
            assertFalse(loader.loaded("jcuda.driver.JCudaDriver"), "JCuda's driver class was loaded");
            assertFalse(loader.loaded("jcuda.Pointer"), "JCuda was loaded");
        }
    }

    private static boolean libcudaPresent()
    {
        for (final String dir : new String[]{ "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib",
            "/usr/local/nvidia/lib64", "/usr/local/cuda/compat", "/usr/lib/wsl/lib" })
        {
            if (new File(dir, "libcuda.so.1").exists())
            {
                return true;
            }
        }
        return false;
    }

    private static URL[] classPath() throws MalformedURLException
    {
        final List<URL> urls = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (!entry.isEmpty())
            {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static final class IsolatedLoader extends URLClassLoader
    {
        IsolatedLoader(final URL[] urls)
        {
            super(urls, ClassLoader.getPlatformClassLoader());
        }

        boolean loaded(final String name)
        {
            return null != findLoadedClass(name);
        }
    }
}
