package io.kvledger.engine.device;

import java.util.SplittableRandom;

/**
 * Seeded copy delay and failure injection. Used only on a backend's copy thread, one draw sequence per batch in
 * submission order, so the same seed and the same submissions give the same faults.
 */
final class FaultInjector
{
    private final SplittableRandom random;
    private final long delayMinNs;
    private final long delayMaxNs;
    private final double failureProbability;

    FaultInjector(final DeviceConfig config)
    {
        this.random = new SplittableRandom(config.seed());
        this.delayMinNs = config.copyDelayMinNs();
        this.delayMaxNs = config.copyDelayMaxNs();
        this.failureProbability = config.failureProbability();
    }

    boolean active()
    {
        return delayMaxNs > 0 || failureProbability > 0.0;
    }

    long nextDelayNs()
    {
        if (delayMaxNs <= 0)
        {
            return 0;
        }
        if (delayMaxNs == delayMinNs)
        {
            return delayMinNs;
        }
        return delayMinNs + random.nextLong(delayMaxNs - delayMinNs + 1);
    }

    boolean nextFails()
    {
        return failureProbability > 0.0 && random.nextDouble() < failureProbability;
    }

    int nextPartialCount(final int count)
    {
        return count <= 1 ? 0 : random.nextInt(count);
    }

    String describe()
    {
        if (!active())
        {
            return "no fault injection";
        }
        return "copy delay " + delayMinNs + ".." + delayMaxNs + " ns, failure probability " + failureProbability;
    }
}
