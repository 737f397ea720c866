package dev.sluice.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file records an import into one table of one database: the same file imported into another database
 * with that state is written there or refused, as another table is refused; it never ends with exit 0 and nothing
 * written.
 */
class StateOfAnotherDatabaseTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    static String sql(String db, String sql) throws IOException, InterruptedException {
        String url = "http://" + testkit.server().httpEndpoint() + "/v1/sql?db=" + db;
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).header("Content-Type",
                "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString("sql="
                        + URLEncoder.encode(sql, StandardCharsets.UTF_8))).build();
        return HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void anImportIntoAnotherDatabaseIsWrittenOrRefused() throws Exception {
        sql("public", "create database staging");
        Path f = dir.resolve("moved.csv");
        Files.writeString(f, "id,v,ts\n1,1.5,1700000000001\n2,2.5,1700000000002\n");
        Cli.Run staging = Cli.run(Cli.at(testkit.server(), "-d", "staging", "--tags", "id", f.toString()));
        assertEquals(0, staging.code(), staging.toString());
        assertTrue(sql("staging", "select count(*) from moved").contains("[[2]]"));

        Cli.Run pub = Cli.run(Cli.at(testkit.server(), "--tags", "id", f.toString()));
        String count = sql("public", "select count(*) from moved");
        assertTrue(pub.code() != 0 || count.contains("[[2]]"), pub + "\npublic.moved: " + count);
    }
}
