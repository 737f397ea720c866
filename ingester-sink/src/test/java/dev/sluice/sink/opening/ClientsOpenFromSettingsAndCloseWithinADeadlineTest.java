package dev.sluice.sink.opening;

import static dev.sluice.sink.CpuRows.CPU;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.ConnectionConfig;
import dev.sluice.GreptimeOptions;
import dev.sluice.data.Table;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import dev.sluice.write.WriteOp;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ClientsOpenFromSettingsAndCloseWithinADeadlineTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;

    @BeforeEach
    void clear() {
        server = testkit.server();
        server.clear();
    }

    @Test
    void aConnectionStringOpensTheClientAndItsWriter() {
        try (SinkClients clients = SinkClients.open(ConnectionConfig.parse("greptimedb://" + server.endpoint()
                + "/public?batch_rows=2&flush_interval=1h"))) {
            clients.writer().write(CPU, "h0", 1.0, 1_000L);
            clients.writer().write(CPU, "h1", 1.0, 1_000L);
            clients.writer().flushOrThrow(Duration.ofSeconds(30));
        }
        assertEquals(List.of("h0", "h1"), storedHosts(server));
    }

    @Test
    void clientsOpenedForDirectWritesOnlyStoreDirectWritesAndHaveNoBatchingWriter() {
        try (SinkClients clients = SinkClients.openDirect(GreptimeOptions.newBuilder(server.endpoint(), "public").build(),
                Context.newBuilder().build())) {
            Table t = Table.from(CPU, 1);
            t.addRow("h0", 1.0, 1_000L);
            assertTrue(clients.writeDirect(t, WriteOp.Insert).isOk());
            assertThrows(IllegalStateException.class, clients::writer);
            assertTrue(clients.flush(Duration.ofSeconds(1)));
        }
        assertEquals(List.of("h0"), storedHosts(server));
    }

    @Test
    void theConnectionStringsSettingsGoOverTheIntegrationsOwn() {
        BatchingWriter.Config.Builder own = BatchingWriter.Config.newBuilder().path(BatchingWriter.Path.Bulk);
        try (SinkClients clients = SinkClients.open(GreptimeOptions.newBuilder(server.endpoint(), "public"),
                Context.newBuilder(), own, ConnectionConfig.parse("greptimedb://" + server.endpoint()
                        + "/public?write_path=regular"), false)) {
            assertTrue(!clients.bulk());
        }
    }

    @Test
    void tlsIsOffUnlessAskedForOrGivenTrustedCertificates() {
        assertNull(SinkClients.tls(false, "", "", "", ""));
        assertNull(SinkClients.tls(true, "", "", "", "").trustCertificates());
    }

    @Test
    void closingWithinADeadlineFailsTheRowsTheServerNeverAnswered() {
        SinkClients clients = SinkClients.open(GreptimeOptions.newBuilder(server.endpoint(), "public")
                        .requestTimeout(Duration.ofMinutes(10)).build(), Context.newBuilder().build(),
                BatchingWriter.Config.newBuilder().build());
        server.faults().neverRespond(true);
        CompletableFuture<Void> row = clients.writer().write(CPU, "h0", 1.0, 1_000L);

        clients.close(Duration.ofMillis(200));

        assertTrue(row.isDone());
        assertThrows(CompletionException.class, row::join);
        server.faults().neverRespond(false);
    }
}
