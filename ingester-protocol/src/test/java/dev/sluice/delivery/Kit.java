package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/** Helpers of the black-box delivery tests: one server and one client per test, rows with unique keys. */
final class Kit implements AutoCloseable {
    final GreptimeTestServer server;
    final GreptimeDB db;

    Kit(UnaryOperator<GreptimeOptions.Builder> options) {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(options.apply(GreptimeOptions.newBuilder(server.endpoint(), "public")).build());
    }

    Kit() {
        this(o -> o);
    }

    static RetryPolicy quick(int attempts, Duration deadline) {
        return RetryPolicy.newBuilder().maxAttempts(attempts).backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                .deliveryTimeout(deadline).build();
    }

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name).addTag("host", DataType.String).addField("v", DataType.Float64)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** Rows {@code from .. from+n-1}; each row's time index is its number, so every row has its own key. */
    static Table table(TableSchema schema, long from, int n) {
        Table t = Table.from(schema, n);
        for (long i = from; i < from + n; i++) {
            t.addRow("h" + (i % 7), (double) i, i);
        }
        return t;
    }

    static void await(String what, Duration bound, BooleanSupplier condition) {
        dev.sluice.Await.until(what, bound, condition);
    }

    /**
     * Tells whether a thread is parked or sleeping inside a method of the given name (a producer blocked in
     * {@code writeNext}, {@code write} or {@code completed}).
     */
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
    static long stored(GreptimeTestServer server, String table) {
        return server.tables().contains(table) ? server.rowCount(table) : 0;
    }

    /** Tells whether the server holds a request it will never answer (recorded with no outcome). */
    static boolean holdsAnUnansweredRequest(GreptimeTestServer server) {
        return server.requests().stream().anyMatch(r -> r.outcome() == null);
    }

    /** Waits for a future up to a bound; a future still pending then fails the test. */
    static <T> void settle(String what, CompletableFuture<T> f, Duration bound) {
        try {
            f.handle((v, e) -> null).get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            fail(what + " still pending after " + bound);
        }
    }

    /** Budget and off-heap memory are all given back once nothing is open (bounded wait). */
    void assertNothingHeld() {
        await("bytesInFlight back to 0 (is " + db.stats().bytesInFlight() + ")", Duration.ofSeconds(5),
                () -> db.stats().bytesInFlight() == 0);
        assertEquals(0, db.stats().bulkAllocatedBytes(), "bulk off-heap bytes");
    }

    static long sluiceThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith("sluice-")).count();
    }

    @Override
    public void close() {
        try {
            db.shutdownGracefully(Duration.ofSeconds(5));
        } finally {
            server.close();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms); // scenario timing for the callers (see each call), not a wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
