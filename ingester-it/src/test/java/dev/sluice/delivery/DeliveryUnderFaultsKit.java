package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.data.DataType;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOk;
import dev.sluice.testkit.GreptimeTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What the tests of the delivery contract under faults share: tables, clients with short deadlines, a tally of
 * futures' outcomes, and the contract's checks. Every count is taken outside the code under test: futures' outcomes
 * and the testkit's stored rows. The contract: stored == acknowledged (or, where an abort makes outcomes ambiguous,
 * acknowledged <= stored <= sent with no duplicate), acknowledged + failed == sent, every future completes within a
 * bound, nothing left pending, no {@code sluice-} thread of the client left after shutdown, no off-heap memory left by
 * a bulk writer.
 */
abstract class DeliveryUnderFaultsKit {
    /** Generous bound for any future: the short delivery deadline plus an attempt plus CPU-load slack. */
    static final long BOUND_S = 40;
    static final Duration DELIVERY = Duration.ofSeconds(3);

    static TableSchema schema(String name) {
        return TableSchema.newBuilder(name)
                .addTag("host", DataType.String)
                .addField("v", DataType.Float64)
                .addField("note", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    static Object[] row(long i, int noteBytes) {
        return new Object[] {"h" + (i % 50), (double) i, noteBytes == 0 ? "n" : "x".repeat(noteBytes),
            1_704_067_200_000L + i};
    }

    static Table table(TableSchema s, long from, int rows, int noteBytes) {
        Table t = Table.from(s, rows);
        for (long i = from; i < from + rows; i++) {
            t.addRow(row(i, noteBytes));
        }
        return t;
    }

    static GreptimeOptions.Builder opts(GreptimeTestServer... servers) {
        String[] eps = new String[servers.length];
        for (int i = 0; i < servers.length; i++) {
            eps[i] = servers[i].endpoint();
        }
        return GreptimeOptions.newBuilder(java.util.List.of(eps), "public");
    }

    /** Unlimited attempts until a delivery deadline of {@link Await#BEYOND_THE_HANG_GUARD}. */
    static RetryPolicy beyondTheHangGuard() {
        return RetryPolicy.newBuilder().deliveryTimeout(Await.BEYOND_THE_HANG_GUARD).build();
    }

    static RetryPolicy shortPolicy() {
        return RetryPolicy.newBuilder().deliveryTimeout(DELIVERY).build();
    }

    /**
     * Creates a table through a client with the default timeout, so that a test's short timeouts govern only its
     * writes, not the table's creation on a loaded machine.
     */
    static void createTable(GreptimeTestServer server, TableSchema s) {
        try (GreptimeDB setup = GreptimeDB.create(opts(server).build())) {
            Result<WriteOk, Err> r = setup.createTable(s, Context.newBuilder().build()).join();
            assertTrue(r.isOk(), () -> "creating " + s.tableName() + ": " + r.getErr());
        }
    }

    static GreptimeDB shortClient(GreptimeTestServer server) {
        return GreptimeDB.create(opts(server).retryPolicy(shortPolicy()).requestTimeout(Duration.ofSeconds(2)).build());
    }

    /** Tallies outcomes of futures with one deadline for all of them; a future still pending at it fails the test. */
    static final class Tally {
        final long deadline;
        long acked;
        long failed;
        long pending;
        final List<Throwable> errors = new ArrayList<>();

        Tally(long boundSeconds) {
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(boundSeconds);
        }

        <T> void await(CompletableFuture<T> f, long rows, Function<T, Long> ackedRows) {
            try {
                T v = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                acked += ackedRows.apply(v);
                failed += rows - ackedRows.apply(v);
            } catch (TimeoutException e) {
                pending += rows;
            } catch (ExecutionException e) {
                failed += rows;
                if (errors.size() < 5) {
                    errors.add(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        void regular(CompletableFuture<Result<WriteOk, Err>> f, long rows) {
            try {
                Result<WriteOk, Err> r = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (r.isOk()) {
                    acked += r.getOk().affectedRows();
                    failed += rows - r.getOk().affectedRows();
                } else {
                    failed += rows;
                    if (errors.size() < 5) {
                        errors.add(new RuntimeException(r.getErr().toString()));
                    }
                }
            } catch (TimeoutException e) {
                pending += rows;
            } catch (ExecutionException e) {
                failed += rows;
                errors.add(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        void assertNonePending(String what) {
            assertEquals(0, pending, what + ": rows whose future was still pending at the tally's deadline; errors "
                    + errors);
        }

        @Override
        public String toString() {
            return "acked=" + acked + " failed=" + failed + " pending=" + pending + " firstErrors=" + errors;
        }
    }

    /** The client's own threads alive now (the testkit's and the documented process-wide sweeper excluded). */
    static Set<Thread> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-"))
                .filter(t -> !t.getName().startsWith("sluice-testkit") && !t.getName().contains("sweeper"))
                .collect(Collectors.toSet());
    }

    static void assertNoNewClientThreads(Set<Thread> before) throws InterruptedException {
        // a bound reached only if a thread never ends; a loaded machine may take a while to end a pool's threads
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Set<Thread> left;
        while (true) {
            left = new HashSet<>(clientThreads());
            left.removeAll(before);
            if (left.isEmpty()) {
                return;
            }
            if (System.nanoTime() >= deadline) {
                break;
            }
            for (Thread t : left) { // each join returns as soon as its thread has ended, or at the deadline
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
        fail("client threads still alive 60 s after shutdown: "
                + left.stream().map(t -> t.getName() + " " + t.getState()).collect(Collectors.toList()));
    }

    static void report(String name, long sent, Tally t, long stored) {
        System.out.printf("[adversarial] %s: sent=%d %s stored=%d%n", name, sent, t, stored);
    }

    static void assertContract(String name, long sent, Tally t, long stored) {
        report(name, sent, t, stored);
        t.assertNonePending(name);
        assertEquals(sent, t.acked + t.failed, name + ": acknowledged + failed == sent");
        assertEquals(t.acked, stored, name + ": stored == acknowledged");
    }

    /** For aborted work: what the server got may be committed although its future failed; never more than sent. */
    static void assertAbortContract(String name, long sent, Tally t, long stored) {
        report(name, sent, t, stored);
        t.assertNonePending(name);
        assertEquals(sent, t.acked + t.failed, name + ": acknowledged + failed == sent");
        assertTrue(stored >= t.acked && stored <= sent, name + ": acknowledged <= stored <= sent, stored=" + stored);
    }

    static void assertNoDuplicates(GreptimeTestServer server, String table) {
        List<Map<String, Object>> rows = server.rows(table);
        Set<List<Object>> keys = new HashSet<>();
        for (Map<String, Object> r : rows) {
            keys.add(List.of(String.valueOf(r.get("host")), String.valueOf(r.get("ts"))));
        }
        assertEquals(keys.size(), rows.size(), table + ": no row stored twice (append-mode table)");
    }

    static void closeRaceRound(GreptimeTestServer server, GreptimeDB db, BatchingWriter.Path path, int round)
            throws Exception {
        TableSchema s = schema("race_" + path + "_" + round);
        BatchingWriter w = db.batchingWriter(BatchingWriter.Config.newBuilder().path(path)
                .maxBatchRows(50).flushInterval(Duration.ofMillis(5)).build());
        List<CompletableFuture<Void>> fs = Collections.synchronizedList(new ArrayList<>());
        AtomicLong refused = new AtomicLong();
        List<Thread> producers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int p = 0; p < 6; p++) {
            long base = p * 1_000_000L;
            producers.add(new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < 2_000; i++) {
                    try {
                        fs.add(w.write(s, row(base + i, 0)));
                    } catch (IllegalStateException e) {
                        refused.incrementAndGet();
                        return;
                    }
                }
            }));
        }
        producers.forEach(Thread::start);
        go.countDown();
        int written = (round % 5) * 200; // close lands after a different number of rows each round
        Kit.await(written + " rows written", Duration.ofSeconds(BOUND_S),
                () -> fs.size() >= written || producers.stream().noneMatch(Thread::isAlive));
        w.close();
        for (Thread p : producers) {
            p.join(TimeUnit.SECONDS.toMillis(BOUND_S));
            assertFalse(p.isAlive());
        }
        Tally t = new Tally(BOUND_S);
        List<CompletableFuture<Void>> copy;
        synchronized (fs) {
            copy = new ArrayList<>(fs);
        }
        copy.forEach(f -> t.await(f, 1, v -> 1L));
        // rows per (host, ts) key: every row has its own ts, so stored counts rows
        long stored = server.tables().contains(s.tableName()) ? server.rowCount(s.tableName()) : 0;
        // a row whose future the close failed may have been stored meanwhile: the contract for aborted work
        assertAbortContract("batching-" + path + "/close-race round " + round, copy.size(), t, stored);
        assertEquals(0, w.pendingRows(), "pendingRows after close, round " + round);
    }
}
