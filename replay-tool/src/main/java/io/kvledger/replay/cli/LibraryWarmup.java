package io.kvledger.replay.cli;

/**
 * Loads and initialises Chronicle's classes on a background thread while the main thread parses the command line.
 * <p>
 * A journal command spends about 0.6 s of its start in Chronicle's class initialisation (its native POSIX binding,
 * the wire and queue classes), which does not depend on the command; parsing the command line takes about 0.4 s
 * more before the first journal is opened. Initialising the same classes on a second thread overlaps the two on any
 * machine with a spare core. Class initialisation is thread-safe: the main thread, reaching a class the warm-up is
 * initialising, waits for it and uses the result; nothing else is shared. The thread is a daemon, does no I/O of its
 * own and ignores failures (the main thread then meets the same failure and reports it).
 * <p>
 * Only the command-line entry point starts it, after the library properties are set
 * ({@link KvledgerMain#main}); in-process callers of {@link KvledgerMain#execute} load classes as they need them.
 */
final class LibraryWarmup implements Runnable
{
    /** The roots of the class graphs a journal command initialises, in the order it reaches them. */
    private static final String[] CLASSES =
    {
        "net.openhft.chronicle.core.OS",
        "net.openhft.chronicle.core.Jvm",
        "net.openhft.posix.internal.PosixAPIHolder",
        "net.openhft.chronicle.wire.Wires",
        "net.openhft.chronicle.wire.BinaryWire",
        "net.openhft.chronicle.bytes.MappedBytes",
        "net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder",
        "net.openhft.chronicle.queue.impl.single.SingleChronicleQueue",
        "net.openhft.chronicle.queue.impl.single.StoreTailer",
    };

    private LibraryWarmup()
    {
    }

    static void start()
    {
        final Thread thread = new Thread(new LibraryWarmup(), "kvledger-warmup");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    @Override
    public void run()
    {
        final ClassLoader loader = LibraryWarmup.class.getClassLoader();
        for (final String name : CLASSES)
        {
            try
            {
                Class.forName(name, true, loader);
            }
            catch (final Throwable ignored)
            {
                // the main thread meets the same failure where it needs the class, and reports it there
            }
        }
    }
}
