package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostDeviceBackendTest
{
    private final RecordingCopyListener listener = new RecordingCopyListener();
    private HostDeviceBackend backend;

    @AfterEach
    void close()
    {
        if (null != backend)
        {
            backend.close();
        }
    }

    @Test
    void shouldCopyRealBytesAsynchronously()
    {
        backend = start(new DeviceConfig());
        final long[] expected = new long[10];
        for (int i = 0; i < 10; i++)
        {
            backend.fill(Pool.HOST_KV, i, 100 + i);
            expected[i] = backend.digest(Pool.HOST_KV, i);
            assertNotEquals(expected[i], backend.digest(Pool.DEVICE_KV, 20 + i), "destination starts different");
        }

        final CopyBatch load = backend.claimBatch();
        for (int i = 0; i < 10; i++)
        {
            load.add(Pool.HOST_KV, i, Pool.DEVICE_KV, 20 + i);
        }
        backend.submit(1, load);
        assertTrue(listener.awaitOk(1));

        final CopyBatch backup = backend.claimBatch();
        for (int i = 0; i < 10; i++)
        {
            backup.add(Pool.DEVICE_KV, 20 + i, Pool.HOST_KV, 100 + i);
        }
        backend.submit(2, backup);
        assertTrue(listener.awaitOk(2));

        for (int i = 0; i < 10; i++)
        {
            assertEquals(expected[i], backend.digest(Pool.DEVICE_KV, 20 + i));
            assertEquals(expected[i], backend.digest(Pool.HOST_KV, 100 + i));
        }
        assertEquals(2, backend.completedBatches());
        assertEquals(20L * backend.slotBytes(Pool.HOST_KV), backend.copiedBytes());
    }

    @Test
    void shouldCopyMambaStatesIncludingDeviceToDevice()
    {
        backend = start(new DeviceConfig());
        backend.fill(Pool.HOST_MAMBA, 0, 7);
        final long expected = backend.digest(Pool.HOST_MAMBA, 0);

        final CopyBatch batch = backend.claimBatch()
            .add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 3)
            .add(Pool.DEVICE_MAMBA, 3, Pool.DEVICE_MAMBA, 4)
            .add(Pool.DEVICE_MAMBA, 4, Pool.HOST_MAMBA, 5);
        backend.submit(9, batch);

        assertTrue(listener.awaitOk(9));
        assertEquals(expected, backend.digest(Pool.DEVICE_MAMBA, 3));
        assertEquals(expected, backend.digest(Pool.DEVICE_MAMBA, 4));
        assertEquals(expected, backend.digest(Pool.HOST_MAMBA, 5));
    }

    @Test
    void shouldCompleteManyConcurrentBatchesInSubmissionOrder()
    {
        backend = start(new DeviceConfig().batchCount(8).copyDelayNs(0, 20_000).seed(3));
        for (int i = 0; i < 64; i++)
        {
            backend.fill(Pool.HOST_KV, i, 1_000 + i);
        }

        final int batches = 500;
        for (int b = 0; b < batches; b++)
        {
            final int page = b % 64;
            final CopyBatch batch = backend.claimBatch();
            batch.add(Pool.HOST_KV, page, Pool.DEVICE_KV, page);
            batch.add(Pool.DEVICE_KV, page, Pool.HOST_KV, 128 + page);
            backend.submit(10_000 + b, batch);
        }
        listener.awaitCount(batches);

        final List<Long> ops = listener.ops();
        for (int b = 0; b < batches; b++)
        {
            assertEquals(10_000L + b, ops.get(b));
        }
        assertFalse(listener.oks().contains(Boolean.FALSE));
        for (int i = 0; i < 64; i++)
        {
            assertEquals(backend.digest(Pool.HOST_KV, i), backend.digest(Pool.HOST_KV, 128 + i));
        }
        assertEquals(batches, backend.completedBatches());
    }

    @Test
    void shouldInjectFailuresReproduciblyWithAFixedSeed()
    {
        final List<Boolean> first = runWithFailures(42);
        final List<Boolean> second = runWithFailures(42);

        assertTrue(first.contains(Boolean.FALSE), "some batches fail");
        assertTrue(first.contains(Boolean.TRUE), "some batches succeed");
        assertEquals(first, second);
    }

    @Test
    void shouldLeaveTheDestinationUnwrittenWhenASingleCopyFails()
    {
        backend = start(new DeviceConfig().failureProbability(1.0).seed(1));
        backend.fill(Pool.HOST_KV, 0, 5);
        final long before = backend.digest(Pool.DEVICE_KV, 0);

        backend.submit(1, backend.claimBatch().add(Pool.HOST_KV, 0, Pool.DEVICE_KV, 0));

        assertFalse(listener.awaitOk(1));
        assertEquals(before, backend.digest(Pool.DEVICE_KV, 0));
        assertEquals(1, backend.failedBatches());
    }

    @Test
    void shouldCompleteAnEmptyBatch()
    {
        backend = start(new DeviceConfig());

        backend.submit(77, backend.claimBatch());

        assertTrue(listener.awaitOk(77));
    }

    @Test
    void shouldReturnBatchesToThePoolAfterCompletion()
    {
        backend = start(new DeviceConfig().batchCount(2));
        final CopyBatch a = backend.claimBatch();
        final CopyBatch b = backend.claimBatch();
        assertNull(backend.tryClaimBatch());

        backend.submit(1, a);
        backend.submit(2, b);
        listener.awaitCount(2);

        final CopyBatch again = backend.claimBatch();
        assertEquals(0, again.count());
    }

    @Test
    void shouldRejectCopiesBetweenKvAndMambaPools()
    {
        backend = start(new DeviceConfig());
        final CopyBatch batch = backend.claimBatch();

        assertThrows(IllegalArgumentException.class, () -> batch.add(Pool.HOST_KV, 0, Pool.DEVICE_MAMBA, 0));
        assertThrows(IllegalArgumentException.class, () -> batch.add(Pool.HOST_KV, -1, Pool.DEVICE_KV, 0));
        assertThrows(IllegalArgumentException.class, () -> batch.add(Pool.HOST_KV, 0, Pool.DEVICE_KV, 256));
        assertEquals(0, batch.count());
    }

    @Test
    void shouldRejectABatchSubmittedTwiceOrFromAnotherBackend()
    {
        backend = start(new DeviceConfig());
        final CopyBatch batch = backend.claimBatch();
        backend.submit(1, batch);
        assertThrows(IllegalStateException.class, () -> backend.submit(2, batch));

        try (HostDeviceBackend other = new HostDeviceBackend(new DeviceConfig()))
        {
            other.start(listener);
            final CopyBatch foreign = other.claimBatch();
            assertThrows(IllegalStateException.class, () -> backend.submit(3, foreign));
        }
    }

    @Test
    void shouldRejectASubmitBeforeStart()
    {
        backend = new HostDeviceBackend(new DeviceConfig());

        assertThrows(IllegalStateException.class, () -> backend.submit(1, backend.claimBatch()));
    }

    @Test
    void shouldStartOnceWithAListenerAndNeverAfterClose()
    {
        backend = new HostDeviceBackend(new DeviceConfig());
        assertThrows(NullPointerException.class, () -> backend.start(null));
        backend.start(listener);
        assertEquals("backend already started",
            assertThrows(IllegalStateException.class, () -> backend.start(listener)).getMessage());

        backend.close();
        backend.close();

        assertEquals("backend closed",
            assertThrows(IllegalStateException.class, () -> backend.submit(1, backend.tryClaimBatch())).getMessage());
        assertEquals("backend closed", assertThrows(IllegalStateException.class, backend::claimBatch).getMessage());
        final HostDeviceBackend unstarted = new HostDeviceBackend(new DeviceConfig());
        unstarted.close();
        assertThrows(IllegalStateException.class, () -> unstarted.start(listener));
    }

    @Test
    void shouldCountAListenerThatThrowsAndGoOnCompleting()
    {
        final List<Long> done = new ArrayList<>();
        backend = new HostDeviceBackend(new DeviceConfig());
        backend.start((op, ok) ->
        {
            synchronized (done)
            {
                done.add(op);
            }
            if (op == 1)
            {
                throw new IllegalStateException("listener failure on purpose (this test)");
            }
        });

        backend.submit(1, backend.claimBatch().add(Pool.HOST_KV, 0, Pool.DEVICE_KV, 0));
        backend.submit(2, backend.claimBatch().add(Pool.DEVICE_KV, 0, Pool.HOST_KV, 1));
        backend.close();

        assertEquals(List.of(1L, 2L), done.stream().sorted().toList());
        assertEquals(1, backend.listenerErrors());
        assertEquals(2, backend.completedBatches());
    }

    @Test
    void shouldPutABatchWithAHostToDeviceCopyOnTheLoadStream()
    {
        backend = new HostDeviceBackend(new DeviceConfig());
        final CopyBatch batch = backend.claimBatch();
        assertEquals(CopyStreams.COMPUTE_STREAM, CopyStreams.streamOf(batch), "an empty batch");
        batch.add(Pool.DEVICE_KV, 0, Pool.HOST_KV, 0).add(Pool.DEVICE_MAMBA, 0, Pool.DEVICE_MAMBA, 1);
        assertEquals(CopyStreams.COMPUTE_STREAM, CopyStreams.streamOf(batch), "backups and device copies");
        batch.add(Pool.HOST_MAMBA, 0, Pool.DEVICE_MAMBA, 2);
        assertEquals(CopyStreams.LOAD_STREAM, CopyStreams.streamOf(batch), "any load makes it a load");
    }

    @Test
    void shouldFinishQueuedBatchesOnClose()
    {
        backend = start(new DeviceConfig().copyDelayNs(100_000, 200_000));
        for (int i = 0; i < 20; i++)
        {
            backend.submit(i, backend.claimBatch().add(Pool.HOST_KV, i, Pool.DEVICE_KV, i));
        }

        backend.close();

        assertEquals(20, listener.ops().size());
    }

    @Test
    void shouldExposeSlotsOfTheConfiguredSizes()
    {
        backend = new HostDeviceBackend(new DeviceConfig().kvPageBytes(8192).hostMambaSlots(3));

        assertEquals(DeviceKind.HOST, backend.kind());
        assertEquals(8192, backend.slot(Pool.HOST_KV, 0).capacity());
        assertEquals(DeviceConfig.MAMBA_STATE_BYTES_DEFAULT, backend.slot(Pool.DEVICE_MAMBA, 0).capacity());
        assertEquals(3, backend.slotCount(Pool.HOST_MAMBA));
        assertThrows(IllegalArgumentException.class, () -> backend.slot(Pool.HOST_MAMBA, 3));
        assertTrue(backend.describe().startsWith("host memory: device KV 256 x 8 KiB (2 MiB)"), backend.describe());
    }

    @Test
    void shouldRejectInvalidConfiguration()
    {
        assertThrows(IllegalArgumentException.class, () -> new HostDeviceBackend(new DeviceConfig().kvPageBytes(12)));
        assertThrows(IllegalArgumentException.class,
            () -> new HostDeviceBackend(new DeviceConfig().failureProbability(1.5)));
        assertThrows(IllegalArgumentException.class,
            () -> new HostDeviceBackend(new DeviceConfig().copyDelayNs(10, 5)));
    }

    private List<Boolean> runWithFailures(final long seed)
    {
        final RecordingCopyListener recorder = new RecordingCopyListener();
        try (HostDeviceBackend faulty = new HostDeviceBackend(new DeviceConfig().failureProbability(0.3).seed(seed)))
        {
            faulty.start(recorder);
            for (int b = 0; b < 200; b++)
            {
                final CopyBatch batch = faulty.claimBatch();
                for (int i = 0; i < 4; i++)
                {
                    batch.add(Pool.HOST_KV, (b + i) % 256, Pool.DEVICE_KV, (b * 7 + i) % 256);
                }
                faulty.submit(b, batch);
            }
            recorder.awaitCount(200);
            assertEquals(faulty.failedBatches(), recorder.oks().stream().filter((ok) -> !ok).count());
        }
        return new ArrayList<>(recorder.oks());
    }

    private HostDeviceBackend start(final DeviceConfig config)
    {
        final HostDeviceBackend started = new HostDeviceBackend(config);
        started.start(listener);
        return started;
    }
}
