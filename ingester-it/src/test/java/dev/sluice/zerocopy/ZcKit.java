package dev.sluice.zerocopy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Helpers of the zero-copy bulk tests: one server and one client per test, wide deterministic rows (text and
 * binary, a few NULLs, multi-byte characters) identified by their {@code n} column, and exact checks of stored rows.
 */
final class ZcKit implements AutoCloseable {
    static final long TS0 = 1_700_000_000_000L;
    /** Text characters per row; with {@link #BLOB} about 4 KB of payload per row. */
    static final int TEXT = 2_000;
    static final int BLOB = 2_000;
    /** About 8 MB per batch: well over the 4 MiB from which a batch is sent from Arrow memory. */
    static final int ROWS = 2_000;

    /**
     * Rows per batch with a compression: half of {@link #ROWS} with LZ4, which keeps its runs short without changing
     * the path they prove. Its random blobs do not compress, so
     * 2,000 rows make a message of about 3.8 MiB and 1,000 rows one of about 1.9 MiB, both under the 4 MiB from which
     * a batch is sent from Arrow memory: the same path either way. The other compressions keep {@link #ROWS}.
     *
     * @param compression the batches' compression
     * @return rows per batch
     */
    static int rows(Compression compression) {
        return compression == Compression.Lz4 ? ROWS / 2 : ROWS;
    }

    private static final ByteArrayOutputStream ERR_COPY = new ByteArrayOutputStream();

    static {
        PrintStream original = System.err;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (ERR_COPY) {
                    ERR_COPY.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                synchronized (ERR_COPY) {
                    ERR_COPY.write(b, off, len);
                }
            }
        }, true));
    }

    final GreptimeTestServer server;
    final GreptimeDB db;
    private final int errMark;

    /** Set when the client talks to the server through a {@link FreezableProxy}. */
    final FreezableProxy proxy;

    ZcKit(UnaryOperator<GreptimeTestServer.Builder> serverOptions, UnaryOperator<GreptimeOptions.Builder> options) {
        this(serverOptions, options, false);
    }

    ZcKit(UnaryOperator<GreptimeTestServer.Builder> serverOptions, UnaryOperator<GreptimeOptions.Builder> options,
            boolean proxied) {
        synchronized (ERR_COPY) {
            errMark = ERR_COPY.size();
        }
        server = serverOptions.apply(GreptimeTestServer.builder()).start();
        try {
            proxy = proxied ? new FreezableProxy(server.port()) : null;
        } catch (java.io.IOException e) {
            server.close();
            throw new java.io.UncheckedIOException(e);
        }
        String endpoint = proxied ? proxy.endpoint() : server.endpoint();
        db = GreptimeDB.create(options.apply(GreptimeOptions.newBuilder(endpoint, "public")).build());
    }

    ZcKit(UnaryOperator<GreptimeOptions.Builder> options) {
        this(b -> b, options);
    }

    ZcKit() {
        this(o -> o);
    }

    static RetryPolicy quick(int attempts, Duration deadline) {
        return RetryPolicy.newBuilder().maxAttempts(attempts).backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                .deliveryTimeout(deadline).build();
    }

    static BulkWrite.Config config(Duration timeoutPerMessage, int inFlight) {
        return BulkWrite.Config.newBuilder().requestTimeout(timeoutPerMessage).maxInFlightRequests(inFlight).build();
    }

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("msg", DataType.String)
                .addField("blob", DataType.Binary).addField("n", DataType.Int64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static String host(long i) {
        return "host-" + (i % 7);
    }

    /** A text of {@code len} characters, distinct at both ends, with multi-byte characters in some rows. */
    static String text(long i, int len) {
        if (i % 101 == 3) {
            return null;
        }
        String id = Long.toString(i * 2_654_435_761L, 36);
        StringBuilder b = new StringBuilder(len + 32).append(id).append('|');
        boolean wide = i % 5 == 0;
        while (b.length() < len - id.length() - 1) {
            int k = (int) ((b.length() + i) % 26);
            b.append(wide && k % 9 == 0 ? (k % 2 == 0 ? 'é' : '日') : (char) ('a' + k));
        }
        return b.append('|').append(id).toString();
    }

    /** Pseudo-random bytes of every value 0..255, a length varying by row, NULL in some rows. */
    static byte[] blob(long i, int len) {
        if (i % 97 == 5) {
            return null;
        }
        int n = Math.max(0, len - (int) (i % 13));
        byte[] b = new byte[n];
        new SplittableRandom(i * 7919 + 17).nextBytes(b);
        return b;
    }

    static void fill(TableBufferRoot batch, long first, int rows) {
        fill(batch, first, rows, TEXT, BLOB);
    }

    static void fill(TableBufferRoot batch, long first, int rows, int textLen, int blobLen) {
        for (long i = first; i < first + rows; i++) {
            batch.addRow(host(i), text(i, textLen), blob(i, blobLen), i, TS0 + i);
        }
    }

    /**
     * Checks every stored row against what was written (with the given lengths): the rows in {@code must} are all
     * there, no row outside {@code must} or {@code may} is, and each value is the one written.
     *
     * @return the ids stored
     */
    static BitSet assertStored(GreptimeTestServer server, String table, BitSet must, BitSet may, int textLen, int blobLen) {
        List<Map<String, Object>> stored = server.rows(table);
        BitSet seen = new BitSet();
        for (Map<String, Object> r : stored) {
            long i = ((Number) r.get("n")).longValue();
            assertFalse(seen.get((int) i), "row " + i + " stored twice");
            seen.set((int) i);
            assertTrue(must.get((int) i) || (may != null && may.get((int) i)), "row " + i + " was never written or acknowledged");
            assertEquals(host(i), r.get("host"), "host of row " + i);
            String expectedText = text(i, textLen);
            Object gotText = r.get("msg");
            if (!java.util.Objects.equals(expectedText, gotText)) {
                fail("msg of row " + i + " differs: expected length " + (expectedText == null ? "null" : expectedText.length())
                        + ", got " + (gotText == null ? "null" : ((String) gotText).length() + " starting "
                        + ((String) gotText).substring(0, Math.min(40, ((String) gotText).length()))));
            }
            byte[] expectedBlob = blob(i, blobLen);
            Object gotBlob = r.get("blob");
            if (expectedBlob == null) {
                assertEquals(null, gotBlob, "blob of row " + i);
            } else {
                assertInstanceOf(byte[].class, gotBlob, "blob of row " + i);
                assertArrayEquals(expectedBlob, (byte[]) gotBlob, "blob of row " + i);
            }
            Object ts = r.get("ts");
            long millis = ts instanceof Instant at ? at.toEpochMilli() : ((Number) ts).longValue();
            assertEquals(TS0 + i, millis, "ts of row " + i);
        }
        BitSet missing = (BitSet) must.clone();
        missing.andNot(seen);
        assertTrue(missing.isEmpty(), "acknowledged rows not stored: " + summary(missing));
        return seen;
    }

    static BitSet assertStored(GreptimeTestServer server, String table, BitSet must, BitSet may) {
        return assertStored(server, table, must, may, TEXT, BLOB);
    }

    static String summary(BitSet s) {
        return s.cardinality() + " rows, first " + s.nextSetBit(0);
    }

    static BitSet range(long from, long to) {
        BitSet b = new BitSet();
        b.set((int) from, (int) to);
        return b;
    }

    /** Waits for a future up to a bound; fails the test when it is still pending then. */
    static void settle(String what, CompletableFuture<?> f, Duration bound) {
        try {
            f.handle((v, e) -> null).get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            fail(what + " still pending after " + bound);
        }
    }

    /** The future's value, or null when it failed with a BulkWriteException (any other failure fails the test). */
    static Integer outcome(String what, CompletableFuture<Integer> f, Duration bound) {
        settle(what, f, bound);
        try {
            return f.join();
        } catch (CompletionException e) {
            assertInstanceOf(BulkWriteException.class, e.getCause(), what + " failed with " + e.getCause());
            return null;
        } catch (java.util.concurrent.CancellationException e) {
            fail(what + " was cancelled instead of completing with a BulkWriteException");
            return null;
        }
    }

    static void await(String what, Duration bound, BooleanSupplier condition) {
        dev.sluice.Await.until(what, bound, condition);
    }

    /** Tells whether a thread is parked or sleeping inside a method of the given name. */
    static boolean waitingIn(Thread t, String method) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }

    /** Rows the server stored in a table, 0 while the table does not exist. */
    long stored(String table) {
        return server.tables().contains(table) ? server.rowCount(table) : 0;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms); // scenario timing for the callers (see each call), not a wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** What was logged on stderr since this kit started. */
    String errSince() {
        synchronized (ERR_COPY) {
            byte[] all = ERR_COPY.toByteArray();
            return new String(all, errMark, all.length - errMark, StandardCharsets.UTF_8);
        }
    }

    /** No Arrow leak report and no allocator-close failure was logged, and the client holds no bulk memory. */
    void assertNoLeak() {
        await("client bulk off-heap back to 0 (is " + db.stats().bulkAllocatedBytes() + ")", Duration.ofSeconds(30),
                () -> db.stats().bulkAllocatedBytes() == 0);
        await("client byte budget given back (is " + db.stats().bytesInFlight() + ")", Duration.ofSeconds(30),
                () -> db.stats().bytesInFlight() == 0);
        String err = errSince();
        assertFalse(err.contains("Memory was leaked"), "Arrow reported a leak:\n" + excerpt(err, "Memory was leaked"));
        assertFalse(err.contains("IllegalStateException: Allocator"), "allocator error:\n" + excerpt(err, "Allocator"));
        assertFalse(err.contains("LEAK:"), "netty reported a leak:\n" + excerpt(err, "LEAK:"));
    }

    static String excerpt(String s, String at) {
        int i = s.indexOf(at);
        return s.substring(Math.max(0, i - 400), Math.min(s.length(), i + 1_500));
    }

    static List<CompletableFuture<Integer>> futures() {
        return new ArrayList<>();
    }

    static void closeQuietly(BulkStreamWriter w) {
        try {
            w.close();
        } catch (RuntimeException ignored) {
            // reported by the test's own assertions
        }
    }

    @Override
    public void close() {
        try {
            if (proxy != null) {
                proxy.freeze(false);
            }
            db.shutdownGracefully(Duration.ofSeconds(5));
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            server.close();
        }
    }
}
