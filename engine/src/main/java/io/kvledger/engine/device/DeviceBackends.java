package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;

/**
 * Chooses and creates the device backend named by the configuration, falling back from cuda to host memory with
 * a clear one-line reason where no usable GPU is found.
 * <p>
 * Lifecycle code: call once at start-up, from any thread.
 */
public final class DeviceBackends
{
    private DeviceBackends()
    {
    }

    /**
     * Create a backend: {@link DeviceKind#HOST} gives a {@link HostDeviceBackend}; {@link DeviceKind#CUDA} gives a
     * {@link CudaDeviceBackend} when {@link CudaDeviceBackend#available(StringBuilder)} and its construction
     * succeed, and otherwise a {@link HostDeviceBackend}, with the reason appended to {@code message}.
     *
     * @param kind    the backend asked for.
     * @param config  sizes and fault injection.
     * @param message receives a one-line note when the backend created is not the one asked for; may be null.
     * @return a backend, not yet started.
     * @throws IllegalArgumentException for a kind that has no data plane (SIMULATED, NULL_VAL).
     */
    public static DeviceBackend create(final DeviceKind kind, final DeviceConfig config, final StringBuilder message)
    {
        switch (kind)
        {
            case HOST:
                return new HostDeviceBackend(config);

            case CUDA:
                return createCuda(config, message);

            default:
                throw new IllegalArgumentException("no device backend for " + kind + "; use HOST or CUDA");
        }
    }

    private static DeviceBackend createCuda(final DeviceConfig config, final StringBuilder message)
    {
        config.validate();
        String reason;
        try
        {
            final StringBuilder whyNot = new StringBuilder();
            if (CudaDeviceBackend.available(whyNot))
            {
                return new CudaDeviceBackend(config);
            }
            reason = whyNot.toString();
        }
        catch (final RuntimeException | LinkageError ex)
        {
            reason = null != ex.getMessage() && ex.getMessage().startsWith("cuda:") ? ex.getMessage() : "cuda: " + ex;
        }

        if (null != message)
        {
            message.append(reason).append("; using host memory instead");
        }
        return new HostDeviceBackend(config);
    }
}
