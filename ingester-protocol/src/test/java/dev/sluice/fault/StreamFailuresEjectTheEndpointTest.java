package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.WriteOk;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Streams choose their endpoint and report their transport failures where unary writes do: a stream whose call is
 * refused by one of two endpoints is replayed on the other, and the refusals count towards ejecting the refusing
 * endpoint for every path, with no health check needed to notice it.
 */
class StreamFailuresEjectTheEndpointTest {
    private static final TableSchema CPU = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
            .addField("usage", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();

    @Test
    void refusedStreamCallsEjectTheirEndpointAndEveryStreamIsStoredOnTheOther() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        String dead = "127.0.0.1:" + deadPort;
        try (GreptimeTestServer live = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(List.of(dead, live.endpoint()), "public")
                    .healthCheckInterval(Duration.ZERO).build());
            try {
                assertEquals(2, db.stats().availableEndpoints().size(), "both endpoints start available");
                int streams = 0;
                // An ejection lasts a second at first: checked right after each stream, well inside it.
                while (db.stats().availableEndpoints().size() == 2 && streams < 30) {
                    StreamWriter<Table, WriteOk> s = db.streamWriter();
                    s.write(Table.from(CPU).addRow("h" + streams, 0.5, 1_700_000_000_000L + streams));
                    WriteOk ok = s.completed().join();
                    assertEquals(1, ok.affectedRows(), "stream " + streams + " is answered by the live endpoint");
                    streams++;
                }
                assertEquals(List.of(live.endpoint()), db.stats().availableEndpoints(),
                        "after " + streams + " streams the refusing endpoint " + dead + " is ejected");
                assertTrue(streams >= 2, "it took refused calls to eject it: " + streams);
                assertEquals(streams, live.rowCount("cpu"), "every stream's row is stored");
            } finally {
                db.shutdownNow();
            }
        }
    }
}
