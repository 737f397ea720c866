package dev.sluice.retries;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Await;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.RecordedRequest;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * What "not resent" means whatever the machine's speed: a write that timed out reached the server at most once (it
 * may not have reached it at all before the client gave up), and the table holds the rows it held before plus the
 * rows of each copy that arrived. The server's request log and its stored rows are read from the testkit.
 */
final class AtMostOnce {
    private AtMostOnce() {
    }

    /**
     * @param server     the testkit
     * @param table      the table written
     * @param copy       which recorded requests are copies of the timed-out write
     * @param rowsBefore the table's rows before the write
     * @param rows       the write's rows
     */
    static void assertStored(GreptimeTestServer server, String table, Predicate<RecordedRequest> copy, long rowsBefore,
                             int rows) {
        // The testkit stores a request's rows and then records it: wait until the two agree before judging.
        Await.until("the request log of " + table + " agrees with its rows", Duration.ofSeconds(30),
                () -> server.rowCount(table) == rowsBefore + rows * copies(server, copy));
        long copies = copies(server, copy);
        assertTrue(copies <= 1, "the timed-out write reached the server " + copies + " times");
    }

    private static long copies(GreptimeTestServer server, Predicate<RecordedRequest> copy) {
        return server.requests().stream().filter(copy).count();
    }
}
