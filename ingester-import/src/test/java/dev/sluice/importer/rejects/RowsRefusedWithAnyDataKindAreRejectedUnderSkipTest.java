package dev.sluice.importer.rejects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import dev.sluice.write.ErrorKind;
import dev.sluice.write.StatusCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The import reads a refusal as every integration does, from the client's one classification ({@link ErrorKind}):
 * under --on-error skip a row refused with any code the client classes as {@link ErrorKind#Data} (as the Kafka
 * sink dead-letters it) is rejected and the other rows stored, not only a row refused with 1004 InvalidArguments.
 */
class RowsRefusedWithAnyDataKindAreRejectedUnderSkipTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @AfterEach
    void noFaults() {
        testkit.server().faults().reset();
    }

    private void importSkippingTheRefusedRow(String table, StatusCode code, String message) throws Exception {
        assertEquals(ErrorKind.Data, ErrorKind.of(code.code(), null, false, message), "the client's kind of " + code);
        testkit.server().faults().refuseValue("host", "far", code, message);
        Path csv = dir.resolve(table + ".csv");
        Files.writeString(csv, "host,ts,v\n"
                + "a,1700000000000,1\n"
                + "far,1700000000001,2\n"
                + "c,1700000000002,3\n"
                + "d,1700000000003,4\n"
                + "e,1700000000004,5\n");
        Path rejects = dir.resolve(table + ".rejects.jsonl");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--table", table, "--tags", "host", "--path", "regular",
                "--on-error", "skip", "--rejects", rejects.toString(), "--batch", "2", "--in-flight", "1",
                "--parallelism", "1", "--state", dir.resolve(table + ".state").toString(), csv.toString()));

        TreeSet<Object> stored = new TreeSet<>();
        testkit.server().rows(table).forEach(m -> stored.add(m.get("host")));
        assertEquals(new TreeSet<>(List.of("a", "c", "d", "e")), stored, r.toString());
        List<String> rejected = Files.exists(rejects) ? Files.readAllLines(rejects) : List.of();
        assertEquals(1, rejected.size(), "rejects: " + rejected + "; " + r);
        assertTrue(rejected.get(0).contains("\"line\":3") && rejected.get(0).contains(message), rejected.get(0));
    }

    @Test
    void aRowTheServerCannotConvertIsRejected() throws Exception {
        importSkippingTheRefusedRow("refused_unexpected", StatusCode.Unexpected,
                "Failed to convert value of column v: unexpected value far");
    }

    @Test
    void aRowTheQueryEngineRefusesIsRejected() throws Exception {
        importSkippingTheRefusedRow("refused_engine", StatusCode.EngineExecuteQuery,
                "Failed to execute query: cannot cast far");
    }
}
