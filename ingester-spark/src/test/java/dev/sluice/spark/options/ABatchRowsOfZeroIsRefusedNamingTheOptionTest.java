package dev.sluice.spark.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.spark.Failures;
import dev.sluice.spark.LocalSpark;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A batch size of zero rows is refused before anything is sent, naming the option {@code batchRows}. */
class ABatchRowsOfZeroIsRefusedNamingTheOptionTest {
    @RegisterExtension
    static final GreptimeTestkitExtension TESTKIT = LocalSpark.testkit();

    @Test
    void batchRowsZeroIsRefusedNamingTheOption(GreptimeTestServer server) {
        long requests = server.requestCount();
        Exception e = assertThrows(Exception.class, () -> LocalSpark.write(LocalSpark.session().sql(
                "SELECT 'a' AS host, TIMESTAMP'2024-01-01 00:00:00' AS ts"), server, "zero_rows", "append",
                "batchRows", "0"));
        String m = Failures.messages(e);
        assertEquals(requests, server.requestCount(), "no request was sent");
        assertTrue(m.contains("option 'batchRows'"), m);
    }
}
