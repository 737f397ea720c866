package dev.sluice.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.BatchingWriter;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.errors.StandardErrorCapture;
import dev.sluice.write.WriteOk;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Shutting a client down while its calls wait for a channel that is not ready (its endpoint unreachable, silent or
 * still being resolved) fails every pending call's future with an error saying the client was shut down, and
 * nothing is thrown on a gRPC thread or logged as an unexpected exception.
 */
class ClosingWhileCallsWaitForAChannelFailsThemAsClosedTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static Table row(int i) {
        return Table.from(CPU).addRow("h" + i, 0.5, 1_700_000_000_000L + i);
    }

    /** How a future ended: the error, or a regular write's result (which carries its error). */
    private static String outcome(CompletableFuture<?> f) throws Exception {
        try {
            Object r = f.get(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS);
            assertTrue(r instanceof dev.sluice.write.Result<?, ?> res && !res.isOk(), "a write to " + "nothing succeeded: " + r);
            return String.valueOf(r);
        } catch (java.util.concurrent.ExecutionException e) {
            return String.valueOf(e.getCause());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"refused", "silent"})
    void everyPendingCallFailsAsClosedAndNothingIsThrownOnAGrpcThread(String endpointKind) throws Exception {
        UnexpectedLogRecords unexpected = new UnexpectedLogRecords();
        Logger root = Logger.getLogger("");
        root.addHandler(unexpected);
        ConcurrentLinkedQueue<String> uncaught = new ConcurrentLinkedQueue<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            java.io.StringWriter w = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(w));
            uncaught.add(t.getName() + ": " + w);
        });
        try (ServerSocket silent = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
             StandardErrorCapture log = new StandardErrorCapture()) {
            int port;
            if (endpointKind.equals("refused")) {
                try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = s.getLocalPort();
                }
            } else {
                port = silent.getLocalPort();
            }
            for (int round = 0; round < 150; round++) {
                GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:" + port, "public")
                        .requestTimeout(Duration.ofSeconds(30)).build());
                List<CompletableFuture<?>> pending = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    pending.add(db.write(row(i)));
                }
                StreamWriter<Table, WriteOk> stream = db.streamWriter();
                try {
                    stream.write(row(0));
                } catch (RuntimeException alreadyFailed) {
                    // a refused connection may fail the stream at once
                }
                pending.add(stream.completed());
                BatchingWriter batching = db.batchingWriter(BatchingWriter.Config.newBuilder().build());
                pending.add(batching.write(CPU, "h", 0.5, 1L));
                if (round % 2 == 0) {
                    db.shutdownNow();
                } else {
                    db.shutdownGracefully(Duration.ofMillis(round));
                }
                for (CompletableFuture<?> f : pending) {
                    String outcome = outcome(f);
                    assertTrue(!outcome.contains("RejectedExecution"), outcome);
                    if (endpointKind.equals("silent")) {
                        // nothing can end these calls but the shutdown: each says so
                        assertTrue(outcome.contains("shut down") || outcome.contains("shutting down") || outcome.contains("closed"), outcome);
                    }
                }
            }
            assertEquals(List.of(), List.copyOf(unexpected.seen), "logged through java.util.logging");
            assertEquals(List.of(), List.copyOf(uncaught), "thrown on the client's threads");
            assertEquals(0, log.linesContaining("RejectedExecution"), log.text());
            assertEquals(0, log.linesContaining("Panic"), log.text());
        } finally {
            root.removeHandler(unexpected);
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }
}
