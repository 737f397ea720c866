package dev.sluice.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.ManualTimeClients;
import dev.sluice.StreamWriteException;
import dev.sluice.StreamWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.ManualTime;
import dev.sluice.write.WriteOk;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A stream write that waits for room in the stream's send buffer waits for the client's request timeout on the
 * client's clock, the one its other deadlines are on: on a manual clock (the client's test hook) it fails when that
 * clock reaches the timeout, and not before.
 */
class AStreamWriteWaitingForRoomTimesOutOnTheClientsClockTest {
    private static final TableSchema LOGS = TableSchema.newBuilder("logs").addTag("host", DataType.String)
            .addField("line", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    /** About 24 MiB of rows: more than the stream's 16 MiB send buffer holds while nothing can be sent. */
    private static Table bigTable() {
        char[] chars = new char[1_000];
        Arrays.fill(chars, 'x');
        String line = new String(chars);
        Table t = Table.from(LOGS);
        for (int i = 0; i < 24_000; i++) {
            t.addRow("h" + (i % 5), line, (long) i);
        }
        return t;
    }

    private static boolean waitingForRoom(Thread t) {
        if (t == null || t.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getMethodName().equals("awaitRoom")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aWriteWaitingForRoomFailsWhenTheClientsClockReachesTheRequestTimeout() throws Exception {
        // A peer that takes connections (into its backlog) and never speaks HTTP/2: the stream's call never becomes
        // ready, so nothing leaves the send buffer and a write bigger than the buffer waits for room.
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ManualTime time = new ManualTime();
            GreptimeDB db = ManualTimeClients.create(GreptimeOptions.newBuilder("127.0.0.1:" + silent.getLocalPort(),
                    "public").requestTimeout(TIMEOUT).build(), time);
            ExecutorService writing = Executors.newSingleThreadExecutor();
            try {
                StreamWriter<Table, WriteOk> stream = db.streamWriter();
                Table table = bigTable();
                AtomicReference<Thread> writer = new AtomicReference<>();
                Future<?> write = writing.submit(() -> {
                    writer.set(Thread.currentThread());
                    stream.write(table);
                });
                Await.until("the write waits for room in the stream's send buffer", Await.HANG_GUARD,
                        () -> write.isDone() || waitingForRoom(writer.get()));
                assertFalse(write.isDone(), "the write waits for room rather than ending: " + outcome(write));

                time.advance(TIMEOUT.minusMillis(1));
                assertFalse(write.isDone(), "the write still waits 1 ms before its timeout on the client's clock: "
                        + outcome(write));

                time.advance(Duration.ofMillis(1));
                Await.until("the write fails once the client's clock reached its timeout of " + TIMEOUT,
                        Await.HANG_GUARD, write::isDone);
                ExecutionException e = assertThrows(ExecutionException.class, write::get);
                assertInstanceOf(StreamWriteException.class, e.getCause(), e.toString());
                assertTrue(e.getCause().getMessage().contains("send buffer stayed full"), e.getCause().getMessage());
            } finally {
                db.shutdownNow();
                writing.shutdownNow();
                assertTrue(writing.awaitTermination(Await.HANG_GUARD.toSeconds(), TimeUnit.SECONDS));
            }
        }
    }

    private static String outcome(Future<?> f) {
        if (!f.isDone()) {
            return "still waiting";
        }
        try {
            f.get();
            return "it returned";
        } catch (Exception e) {
            return String.valueOf(e.getCause());
        }
    }
}
