package io.kvledger.engine.device;

import io.kvledger.journal.codec.DeviceKind;
import io.kvledger.journal.codec.Pool;
import org.agrona.MutableDirectBuffer;

/**
 * Owns the slot memory of the four pools (device KV pages, device Mamba slots, host staging pages, host Mamba
 * staging slots) and performs the copies the engine decided, asynchronously, reporting each batch to a
 * {@link CopyListener}.
 * <p>
 * Thread ownership: {@link #claimBatch()} and {@link #submit(long, CopyBatch)} are called by the engine's
 * dispatch thread (any thread is safe, but one is the design); copies run on the backend's own thread;
 * {@link #fill(Pool, int, long)} and {@link #digest(Pool, int)} may be called from any thread that the engine's
 * ownership table lets touch the slot. The backend never touches engine state: completions are published as
 * inputs by the listener.
 */
public interface DeviceBackend extends HostStaging, AutoCloseable
{
    /**
     * Which backend this is.
     *
     * @return {@link DeviceKind#HOST} or {@link DeviceKind#CUDA}.
     */
    DeviceKind kind();

    /**
     * Start the copy thread; completions go to the listener from then on. Call once, before the first submit.
     *
     * @param listener told of each finished batch, on the backend's thread.
     */
    void start(CopyListener listener);

    /**
     * Claim a cleared copy batch, waiting (with a backoff) while every batch is claimed or in flight.
     *
     * @return a batch owned by the caller until it is submitted.
     * @throws IllegalStateException when the backend is closed.
     */
    CopyBatch claimBatch();

    /**
     * Claim a cleared copy batch without waiting.
     *
     * @return a batch owned by the caller until it is submitted, or null when none is free.
     */
    CopyBatch tryClaimBatch();

    /**
     * Queue a claimed batch for copying; never blocks. Its completion is reported once through
     * {@link CopyListener#onCopyDone(long, boolean)} with the same {@code op}; an empty batch completes ok.
     *
     * @param op    operation id to report with the completion.
     * @param batch a batch claimed from this backend.
     * @throws IllegalStateException when the backend is not started or closed, or the batch is not claimed here.
     */
    void submit(long op, CopyBatch batch);

    /**
     * Write deterministic content derived from a seed into a slot, synchronously: what a forward pass would
     * compute. The caller must own the slot (no copy may target it meanwhile).
     *
     * @param pool        which pool.
     * @param slot        which slot.
     * @param contentSeed seed of the content, see {@link ContentPattern}.
     */
    void fill(Pool pool, int slot, long contentSeed);

    /**
     * The content digest of a slot, synchronously (device slots may be copied to a host scratch first).
     *
     * @param pool which pool.
     * @param slot which slot.
     * @return the {@link ContentDigest} of the slot's bytes.
     */
    long digest(Pool pool, int slot);

    /**
     * {@inheritDoc}
     */
    MutableDirectBuffer slot(Pool pool, int slot);

    /**
     * Batches whose copies all completed, since start.
     *
     * @return the count of batches reported with {@code ok = true}.
     */
    long completedBatches();

    /**
     * Batches that failed, since start.
     *
     * @return the count of batches reported with {@code ok = false}.
     */
    long failedBatches();

    /**
     * Bytes copied by the backend's thread, since start.
     *
     * @return the number of bytes copied.
     */
    long copiedBytes();

    /**
     * A one-line description for logs, e.g. the memory kind and pool sizes.
     *
     * @return the description.
     */
    String describe();

    /**
     * Finish the batches already submitted (their completions are still reported), stop the backend's thread
     * and release its memory. Close any L3 store using its host staging first.
     */
    void close();
}
