package dev.sluice.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Err;
import dev.sluice.write.Result;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.WriteOk;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A write that cannot reach GreptimeDB says where it went, what the transport said and what to check; the
 * client says it once in the log, with what it does next; endpoints that cannot work are refused up front.
 */
class TransportFailureMessagesTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    private static Table oneRow() {
        Table t = Table.from(CPU);
        t.addRow("h1", 0.5, 1_700_000_000_000L);
        return t;
    }

    /** A loopback port nothing listens on (bound, then released). */
    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static GreptimeDB client(String endpoint, RetryPolicy retries) {
        return GreptimeDB.create(GreptimeOptions.newBuilder(endpoint, "public")
                .healthCheckInterval(Duration.ZERO).retryPolicy(retries).build());
    }

    @Test
    void nothingListeningNamesTheEndpointAndConnectionRefused() throws IOException {
        String endpoint = "127.0.0.1:" + closedPort();
        GreptimeDB db = client(endpoint, RetryPolicy.none());
        try {
            Err err = db.write(oneRow()).join().getErr();
            assertEquals(dev.sluice.write.StatusCode.Grpc.UNAVAILABLE, err.grpcCode());
            assertTrue(err.message().contains("connection refused to " + endpoint), err.message());
            assertTrue(err.message().contains("gRPC port"), "says what to check: " + err.message());
            String text = err.toString();
            assertTrue(text.contains("cause=") && text.contains("Connection refused"), "toString has the cause: " + text);
        } finally {
            db.shutdownGracefully();
        }
    }

    @Test
    void aRunOfTransportFailuresIsWarnedOnceWithWhatHappensNext() throws IOException {
        String endpoint = "127.0.0.1:" + closedPort();
        RetryPolicy fourQuickAttempts = RetryPolicy.newBuilder().maxAttempts(4)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(2)).build();
        GreptimeDB db = client(endpoint, fourQuickAttempts);
        try (StandardErrorCapture log = new StandardErrorCapture()) {
            Result<WriteOk, Err> first = db.write(oneRow()).join();
            Result<WriteOk, Err> second = db.write(oneRow()).join();
            assertTrue(first.getErr().message().contains("(after 4 attempts)"), first.getErr().message());
            assertTrue(second.getErr().message().contains("(after 4 attempts)"), second.getErr().message());
            String warning = "WARN dev.sluice.internal.transport.Endpoints - endpoint " + endpoint + " failed";
            assertEquals(1, log.linesContaining(warning), "8 failed attempts, one warning:\n" + log.text());
            String line = log.text().lines().filter(l -> l.contains(warning)).findFirst().orElseThrow();
            assertTrue(line.contains("connection refused to " + endpoint), line);
            assertTrue(line.contains("retried") && line.contains("until"), "says what the client does next: " + line);
        } finally {
            db.shutdownGracefully();
        }
    }

    @Test
    void theHttpPortByMistakeGetsAHint() {
        try (GreptimeTestServer server = GreptimeTestServer.builder().httpPort(0).start()) {
            String http = server.httpEndpoint();
            GreptimeDB db = client(http, RetryPolicy.none());
            try {
                Err err = db.write(oneRow()).join().getErr();
                assertTrue(err.message().contains("is " + http + " GreptimeDB's HTTP port"), err.message());
                assertTrue(err.message().contains("gRPC port is 4001 by default"), err.message());
                assertFalse(err.retryable(), "another port will not start speaking gRPC");
                assertEquals(0, server.tables().size());
            } finally {
                db.shutdownGracefully();
            }
        }
    }

    @Test
    void aUrlEndpointIsRefusedWhenTheOptionsAreBuilt() {
        for (String url : new String[] {"http://127.0.0.1:4001", "https://db.example:4001/"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GreptimeOptions.newBuilder(url, "public"));
            assertTrue(e.getMessage().contains("'" + url + "' is a URL"), e.getMessage());
            assertTrue(e.getMessage().contains("without a scheme"), e.getMessage());
            assertTrue(e.getMessage().contains("tls("), "says how to ask for TLS: " + e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> GreptimeOptions.newBuilder("http://127.0.0.1:4001", "public"))
                .getMessage().contains("e.g. '127.0.0.1:4001'"));
    }
}
