package dev.sluice.importer.internal.report;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Counters shown by progress and summary. */
public final class Stats {
    public final AtomicLong rowsRead = new AtomicLong();
    public final AtomicLong rowsWritten = new AtomicLong();
    public final AtomicLong rejected = new AtomicLong();
    public final AtomicLong rawBytes = new AtomicLong();
    public final AtomicInteger inputsDone = new AtomicInteger();
    public long totalBytes;
    public int inputs;
    public final long started = System.nanoTime();
    /**
     * When the inputs started to be read after the setup (sampling, table lookup, connecting and loading the bulk
     * writers' classes), or 0.
     */
    public volatile long readingFrom;
    /** When the last batch was answered, or 0. */
    public volatile long answeredAt;
    /** When --verify started asking the server, or 0; the import's own time ends there. */
    public volatile long verifyFrom;
    /** When --verify had its answers, or 0. */
    public volatile long verifyUntil;
}
