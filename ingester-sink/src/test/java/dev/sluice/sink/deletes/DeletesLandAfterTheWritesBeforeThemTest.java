package dev.sluice.sink.deletes;

import static dev.sluice.sink.CpuRows.cpu;
import static dev.sluice.sink.CpuRows.deleteRequests;
import static dev.sluice.sink.CpuRows.key;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sink.CpuRows;
import dev.sluice.sink.internal.OrderedDeletes;
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
        deletes = new OrderedDeletes<>(clients, new CpuRows(), 100, Duration.ofHours(1));
    }

    @AfterEach
    void close() {
        clients.close();
    }

    void write(CpuRows.Row row) {
        if (!deletes.holds(row)) {
            clients.writer().write(row.schema(), row.values());
        }
    }

    void delete(CpuRows.Row key) {
        if (!deletes.hold(key)) {
            send();
            assertTrue(deletes.hold(key));
        }
    }

    OrderedDeletes.Sent<CpuRows.Row> send() {
        OrderedDeletes.Sent<CpuRows.Row> sent = deletes.send(clients.flush(Duration.ofSeconds(30)),
                Duration.ofSeconds(30));
        for (CpuRows.Row row : sent.writes()) {
            clients.writer().write(row.schema(), row.values());
        }
        return sent;
    }

    @Test
    void aRunOfDeletesIsSentOnceAfterTheBufferedWritesOfItsKeys() {
        for (int i = 0; i < 5; i++) {
            write(cpu("h" + i, 1.0, 1_000L));
        }
        for (int i = 0; i < 3; i++) {
            delete(key("h" + i, 1_000L));
        }
        assertEquals(List.of(), storedHosts(server), "nothing is sent before the run of deletes ends");

        OrderedDeletes.Sent<CpuRows.Row> sent = send();

        assertEquals(3, sent.deletes().stored().size());
        assertNull(sent.deletes().stoppedBy());
        assertEquals(List.of("h3", "h4"), storedHosts(server));
        assertEquals(1, deleteRequests(server));
    }

    @Test
    void writesOfOtherRowsBetweenDeletesDoNotSendThem() {
        for (int i = 0; i < 10; i++) {
            write(cpu("h" + i, 1.0, 1_000L));
            delete(key("h" + (i - 1), 1_000L));
        }
        assertEquals(10, deletes.held());

        send();
        clients.writer().flushOrThrow(Duration.ofSeconds(30));

        assertEquals(List.of("h9"), storedHosts(server));
        assertEquals(1, deleteRequests(server));
    }

    @Test
    void aWriteAfterADeleteOfItsRowWaitsForTheDelete() {
        write(cpu("h0", 1.0, 1_000L));
        delete(key("h0", 1_000L));
        write(cpu("h0", 2.0, 1_000L));
        assertEquals(2, deletes.held(), "the delete and the write of its row wait");
        delete(key("h0", 1_000L)); // a delete after that write sends both first
        write(cpu("h0", 3.0, 1_000L));

        send();
        clients.writer().flushOrThrow(Duration.ofSeconds(30));

        assertEquals(0, deletes.held());
        assertEquals(List.of("h0"), storedHosts(server));
        assertEquals(3.0, ((Number) server.rows("cpu").get(0).get("usage")).doubleValue());
    }

    @Test
    void aTableReachingTheMostDeletesItHoldsIsDue() {
        OrderedDeletes<CpuRows.Row> two = new OrderedDeletes<>(clients, new CpuRows(), 2, Duration.ofHours(1));
        assertTrue(two.hold(key("h0", 1_000L)));
        assertFalse(two.due());

        assertTrue(two.hold(key("h1", 1_000L)));

        assertTrue(two.due());
    }

    @Test
    void aDeleteHeldForTheLingerIsDue() {
        OrderedDeletes<CpuRows.Row> quick = new OrderedDeletes<>(clients, new CpuRows(), 100, Duration.ZERO);
        assertFalse(quick.due(), "nothing held");

        quick.hold(key("h0", 1_000L));

        assertTrue(quick.due());
        assertEquals(Duration.ZERO, quick.untilDue());
    }

    @Test
    void deletesWhoseWritesWereNotAnsweredAreNotSent() {
        delete(key("h0", 1_000L));

        OrderedDeletes.Sent<CpuRows.Row> sent = deletes.send(false, Duration.ofSeconds(3));

        assertEquals(1, sent.deletes().notWritten().size());
        assertTrue(sent.deletes().stoppedBy().retryable());
        assertEquals(0, deleteRequests(server));
    }

    @Test
    void aDeleteFromATableThatDoesNotExistIsDone() {
        delete(key("h0", 1_000L));

        OrderedDeletes.Sent<CpuRows.Row> sent = send();

        assertEquals(1, sent.deletes().stored().size());
        assertNull(sent.deletes().stoppedBy());
        assertTrue(sent.deletes().refused().isEmpty());
        assertTrue(!server.tables().contains("cpu"));
    }
}
