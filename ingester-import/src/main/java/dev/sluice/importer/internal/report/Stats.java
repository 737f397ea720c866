package dev.sluice.importer.internal.report;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Counters shown by progress and summary. */
public final class Stats {
    /** Records read from the inputs (records an earlier run imported are not counted). */
    public final AtomicLong rowsRead = new AtomicLong();
    /** Lines passed over because they held no record (blank, only whitespace, or a comment). */
    public final AtomicLong linesWithoutRecord = new AtomicLong();
    /** Rows the server acknowledged. */
    public final AtomicLong rowsWritten = new AtomicLong();
    /** Records rejected (bad input, or refused by the server under {@code --on-error skip}). */
    public final AtomicLong rejected = new AtomicLong();
    /** Bytes read from the input files, compressed bytes as they are on disk. */
    public final AtomicLong rawBytes = new AtomicLong();
    /** Inputs imported to their end, in this run or an earlier one. */
    public final AtomicInteger inputsDone = new AtomicInteger();
    /** The inputs' size in bytes (standard input counted as 0). */
    public long totalBytes;
    /** The number of inputs. */
    public int inputs;
    /** When the import started ({@link System#nanoTime()}). */
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
