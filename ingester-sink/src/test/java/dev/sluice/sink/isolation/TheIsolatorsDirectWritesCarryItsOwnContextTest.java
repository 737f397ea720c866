package dev.sluice.sink.isolation;

import static dev.sluice.sink.CpuRows.cpu;
import static dev.sluice.sink.CpuRows.storedHosts;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.sink.CpuRows;
import dev.sluice.sink.internal.RefusedRowIsolator;
import dev.sluice.sink.internal.SinkClients;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.Context;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WriteOp;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TheIsolatorsDirectWritesCarryItsOwnContextTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension();

    @Test
    void aTableTheDirectWritesCreateGetsTheTableOptionsOfTheIsolatorsContext() {
        GreptimeTestServer server = testkit.server();
        try (SinkClients clients = CpuRows.openOnEmpty(server)) {
            server.faults().refuseValue("host", "h2", StatusCode.InvalidArguments, "Invalid value for column host: 'h2'");
            Context ctx = Context.newBuilder().hint("ttl", "7days").build();
            RefusedRowIsolator<CpuRows.Row> isolator = new RefusedRowIsolator<>(clients, ctx, new CpuRows());

            RefusedRowIsolator.Report<CpuRows.Row> report = isolator.isolate(
                    List.of(cpu("h1", 1.0, 1_000L), cpu("h2", 2.0, 2_000L)), WriteOp.Insert);

            assertEquals(1, report.refused().size());
            assertEquals(List.of("h1"), storedHosts(server));
            assertEquals("7days", server.tableOptions("public", "cpu").get("ttl"));
        }
    }
}
