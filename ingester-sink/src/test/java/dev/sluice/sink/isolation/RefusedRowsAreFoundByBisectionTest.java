package dev.sluice.sink.isolation;

import static dev.sluice.sink.CpuRows.cpu;
import static dev.sluice.sink.CpuRows.storedHosts;
import static dev.sluice.sink.CpuRows.writeRequests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.sink.CpuRows;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RefusedRowsAreFoundByBisectionTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    GreptimeTestServer server;
    SinkClients clients;
    RefusedRowIsolator<CpuRows.Row> isolator;

    @BeforeEach
    void open() {
        server = testkit.server();
        clients = CpuRows.openOnEmpty(server);
        isolator = new RefusedRowIsolator<>(clients, new CpuRows());
    }

    @AfterEach
    void close() {
        clients.close();
    }

    static List<CpuRows.Row> hosts(int n, String... bad) {
        List<CpuRows.Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(cpu("h" + (100 + i), 1.0 * i, 1_000L + i));
        }
        for (String b : bad) {
            rows.set(Integer.parseInt(b.substring(1)) - 100, cpu(b, 0.5, 999L));
        }
        return rows;
    }

    @Test
    void oneRefusedRowAmong64IsFoundInAtMostThirteenRequestsAndTheRestIsStored() {
        server.faults().refuseValue("host", "h137", StatusCode.InvalidArguments, "Invalid value for column host: 'h137'");
        List<CpuRows.Row> batch = hosts(64);
        long before = writeRequests(server);

        RefusedRowIsolator.Report<CpuRows.Row> report = isolator.isolate(batch, WriteOp.Insert);

        assertEquals(1, report.refused().size());
        RefusedRowIsolator.Refused<CpuRows.Row> refused = report.refused().get(0);
        assertSame(batch.get(37), refused.row());
        assertEquals(Optional.of("host"), refused.column());
        assertTrue(refused.err().message().contains("h137"), refused.err().message());
        assertEquals(ErrorKind.Data, refused.err().kind());
        assertNull(report.stoppedBy());
        List<String> expected = new ArrayList<>();
        for (CpuRows.Row r : batch) {
            if (r != refused.row()) {
                expected.add((String) r.values()[0]);
            }
        }
        assertEquals(expected, storedHosts(server));
        assertTrue(writeRequests(server) - before <= 1 + 2 * 6, "requests: " + (writeRequests(server) - before));
    }

    @Test
    void aValueTheClientRefusesIsReportedAloneWithItsColumn() {
        List<CpuRows.Row> batch = new ArrayList<>(hosts(5));
        batch.set(2, cpu("h102", "not a number", 1_002L));

        RefusedRowIsolator.Report<CpuRows.Row> report = isolator.isolate(batch, WriteOp.Insert);

        assertEquals(1, report.refused().size());
        assertSame(batch.get(2), report.refused().get(0).row());
        assertEquals(Optional.of("usage"), report.refused().get(0).column());
        assertEquals(List.of("h100", "h101", "h103", "h104"), storedHosts(server));
    }

    @Test
    void aSetupRefusalStopsTheSearchAndComesBackUnchanged() {
        server.faults().failNext(1, StatusCode.AccessDenied, "Access denied for user 'sink'");
        List<CpuRows.Row> batch = hosts(8);
        long before = writeRequests(server);

        RefusedRowIsolator.Report<CpuRows.Row> report = isolator.isolate(batch, WriteOp.Insert);

        assertEquals(StatusCode.AccessDenied, report.stoppedBy().statusCode());
        assertEquals("Access denied for user 'sink'", report.stoppedBy().message());
        assertEquals(ErrorKind.Setup, report.stoppedBy().kind());
        assertEquals(batch, report.notWritten());
        assertTrue(report.refused().isEmpty());
        assertEquals(List.of(), storedHosts(server));
        assertEquals(1, writeRequests(server) - before);
    }

    @Test
    void aTransientFailureDuringTheSearchLeavesTheLaterRowsUnwritten() {
        server.faults().refuseValue("host", "h105", StatusCode.InvalidArguments, "Invalid value for column host: 'h105'");
        List<CpuRows.Row> batch = hosts(8);
        // The first request (the whole batch) is refused as data; the second (its first half) meets a passing failure.
        server.faults().failEvery(2, StatusCode.RegionBusy, "region busy");
        long before = writeRequests(server);
        RefusedRowIsolator.Report<CpuRows.Row> report = isolator.isolate(batch, WriteOp.Insert);

        assertEquals(ErrorKind.Transient, report.stoppedBy().kind());
        assertEquals(StatusCode.RegionBusy, report.stoppedBy().statusCode());
        assertEquals(batch, report.notWritten());
        assertEquals(List.of(), storedHosts(server));
        assertEquals(2, writeRequests(server) - before);
    }
}
