package dev.sluice.sink.deletes;

import static dev.sluice.sink.CpuRows.cpu;
import static dev.sluice.sink.CpuRows.deleteRequests;
import static dev.sluice.sink.CpuRows.key;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sink.CpuRows;
import dev.sluice.sink.internal.OrderedDeletes;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class DeletesLandAfterTheWritesBeforeThemTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;
    SinkClients clients;
    OrderedDeletes<CpuRows.Row> deletes;

    @BeforeEach
    void open() {
        server = testkit.server();
        clients = CpuRows.openOnEmpty(server);
        deletes = new OrderedDeletes<>(clients, new CpuRows(), 100, Duration.ofSeconds(30));
    }

    @AfterEach
    void close() {
        clients.close();
    }

    void write(CpuRows.Row row) {
        deletes.beforeWrite(row.schema().tableName());
        clients.writer().write(row.schema(), row.values());
    }

    @Test
    void aRunOfDeletesIsSentOnceAfterTheBufferedWritesOfItsKeys() {
        for (int i = 0; i < 5; i++) {
            write(cpu("h" + i, 1.0, 1_000L));
        }
        for (int i = 0; i < 3; i++) {
            assertNull(deletes.delete(key("h" + i, 1_000L)));
        }
        assertEquals(List.of(), storedHosts(server), "nothing is sent before the run of deletes ends");

        RefusedRowIsolator.Report<CpuRows.Row> report = deletes.sendAll();

        assertEquals(3, report.stored().size());
        assertNull(report.stoppedBy());
        assertEquals(List.of("h3", "h4"), storedHosts(server));
        assertEquals(1, deleteRequests(server));
    }

    @Test
    void aWriteAfterADeleteOfItsKeyIsKept() {
        write(cpu("h0", 1.0, 1_000L));
        deletes.delete(key("h0", 1_000L));
        write(cpu("h0", 2.0, 1_000L));
        clients.writer().flushOrThrow(Duration.ofSeconds(30));

        assertEquals(0, deletes.held());
        assertEquals(List.of("h0"), storedHosts(server));
        assertEquals(2.0, ((Number) server.rows("cpu").get(0).get("usage")).doubleValue());
    }

    @Test
    void aTableReachingTheMostDeletesItHoldsSendsThem() {
        OrderedDeletes<CpuRows.Row> two = new OrderedDeletes<>(clients, new CpuRows(), 2, Duration.ofSeconds(30));
        write(cpu("h0", 1.0, 1_000L));
        write(cpu("h1", 1.0, 1_000L));
        assertNull(two.delete(key("h0", 1_000L)));

        RefusedRowIsolator.Report<CpuRows.Row> report = two.delete(key("h1", 1_000L));

        assertEquals(2, report.stored().size());
        assertEquals(List.of(), storedHosts(server));
    }

    @Test
    void aDeleteFromATableThatDoesNotExistIsDone() {
        deletes.delete(key("h0", 1_000L));

        RefusedRowIsolator.Report<CpuRows.Row> report = deletes.sendAll();

        assertEquals(1, report.stored().size());
        assertNull(report.stoppedBy());
        assertTrue(report.refused().isEmpty());
        assertTrue(!server.tables().contains("cpu"));
    }
}
