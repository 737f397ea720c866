package dev.sluice.testkit.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonParser;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code CREATE TABLE} over the HTTP SQL API accepts what GreptimeDB's SQL parser accepts (column options inline,
 * index options, partitions, engine, table options) and refuses what it refuses, with its codes.
 */
class CreateTableSyntaxTest {
    static GreptimeTestServer server;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() {
        server = GreptimeTestServer.builder().httpPort(0).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clear() {
        server.clear();
    }

    record Answer(int status, String code, String body) {
    }

    static Answer sql(String sql) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + server.httpEndpoint() + "/v1/sql?db=public"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.headers().firstValue("x-greptime-err-code").orElse(null), r.body());
    }

    static void created(String sql) throws Exception {
        Answer a = sql(sql);
        assertEquals(200, a.status(), sql + " -> " + a.body());
    }

    static String refused(String sql, int code) throws Exception {
        Answer a = sql(sql);
        assertEquals(Integer.toString(code), a.code(), sql + " -> " + a.body());
        return JsonParser.parseString(a.body()).getAsJsonObject().get("error").getAsString();
    }

    static TableSchema.Column column(String table, String name) {
        return server.schema(table).columns().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    // ---- one form at a time ----

    @Test
    void inlineTimeIndex() throws Exception {
        created("CREATE TABLE t (v DOUBLE, ts TIMESTAMP(3) TIME INDEX)");
        assertEquals(SemanticType.Timestamp, column("t", "ts").semanticType());
        assertEquals(DataType.TimestampMillisecond, column("t", "ts").dataType());
    }

    @Test
    void inlineTimeIndexAfterDefaultCurrentTimestamp() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP TIME INDEX, v DOUBLE)");
        assertEquals(SemanticType.Timestamp, column("t", "ts").semanticType());
    }

    @Test
    void defaultNowFunctionAndLiterals() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP DEFAULT now() TIME INDEX, a DOUBLE DEFAULT -1.5, b STRING DEFAULT 'x',"
                + " c BIGINT DEFAULT 0, d BOOLEAN DEFAULT false, e STRING DEFAULT NULL)");
        assertEquals(List.of("ts", "a", "b", "c", "d", "e"), names("t"));
    }

    @Test
    void notNullAndNullOptions() throws Exception {
        created("CREATE TABLE t (host STRING NOT NULL, v DOUBLE NULL, ts TIMESTAMP NOT NULL TIME INDEX)");
        assertEquals(List.of("host", "v", "ts"), names("t"));
        assertEquals(SemanticType.Field, column("t", "host").semanticType());
    }

    @Test
    void inlinePrimaryKey() throws Exception {
        created("CREATE TABLE t (host STRING PRIMARY KEY, v DOUBLE, ts TIMESTAMP TIME INDEX)");
        assertEquals(SemanticType.Tag, column("t", "host").semanticType());
        assertEquals(SemanticType.Field, column("t", "v").semanticType());
    }

    @Test
    void skippingIndexWithAndWithoutOptions() throws Exception {
        created("CREATE TABLE t (a STRING SKIPPING INDEX, b STRING SKIPPING INDEX WITH(granularity = 8192,"
                + " type = 'BLOOM', false_positive_rate = 0.01), ts TIMESTAMP TIME INDEX)");
        assertEquals(List.of("a", "b", "ts"), names("t"));
    }

    @Test
    void invertedIndex() throws Exception {
        created("CREATE TABLE t (host STRING INVERTED INDEX, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))");
        assertEquals(SemanticType.Tag, column("t", "host").semanticType());
    }

    @Test
    void fulltextIndexWithAndWithoutOptions() throws Exception {
        created("CREATE TABLE t (a STRING FULLTEXT INDEX, b STRING FULLTEXT INDEX WITH(analyzer = 'English',"
                + " case_sensitive = 'false', backend = 'bloom'), ts TIMESTAMP TIME INDEX)");
        assertEquals(List.of("a", "b", "ts"), names("t"));
    }

    @Test
    void columnComment() throws Exception {
        created("CREATE TABLE t (v DOUBLE COMMENT 'percent', ts TIMESTAMP TIME INDEX COMMENT 'event time')");
        assertEquals(List.of("v", "ts"), names("t"));
    }

    @Test
    void partitionOnColumns() throws Exception {
        created("CREATE TABLE t (host STRING, v DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))"
                + " PARTITION ON COLUMNS (host) (host < 'm', host >= 'm' AND host < 't', host >= 't')");
        assertEquals(SemanticType.Tag, column("t", "host").semanticType());
    }

    @Test
    void engineMito() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP TIME INDEX) ENGINE=mito");
        assertEquals(List.of("t"), server.tables());
    }

    @Test
    void withTableOptions() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH(ttl = '7d', append_mode = 'true',"
                + " 'compaction.twcs.time_window' = '1h')");
        assertEquals("7days", server.tableOptions("public", "t").get("ttl"));
        assertEquals("true", server.tableOptions("public", "t").get("append_mode"));
    }

    @Test
    void ifNotExistsLeavesTheTableAsItIs() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE)");
        created("CREATE TABLE IF NOT EXISTS t (ts TIMESTAMP TIME INDEX, other STRING)");
        assertEquals(List.of("ts", "v"), names("t"));
    }

    @Test
    void constraintNameBeforeAnOption() throws Exception {
        created("CREATE TABLE t (host STRING CONSTRAINT pk PRIMARY KEY, ts TIMESTAMP CONSTRAINT ti TIME INDEX)");
        assertEquals(SemanticType.Tag, column("t", "host").semanticType());
        assertEquals(SemanticType.Timestamp, column("t", "ts").semanticType());
    }

    @Test
    void trailingCommaInTheColumnList() throws Exception {
        created("CREATE TABLE t (ts TIMESTAMP, TIME INDEX (ts),)");
        assertEquals(List.of("t"), server.tables());
    }

    // ---- everything at once, as a client's bulk setup declares its table ----

    @Test
    void aBulkSetupWithEveryFormAtOnce() throws Exception {
        created("CREATE TABLE IF NOT EXISTS `bulk_logs` (\n"
                + "  `log_ts` TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP TIME INDEX COMMENT 'event time',\n"
                + "  `service` STRING NULL INVERTED INDEX COMMENT 'service name',\n"
                + "  `host` STRING NOT NULL SKIPPING INDEX WITH(granularity = 1024, type = 'BLOOM'),\n"
                + "  `level` STRING DEFAULT 'INFO',\n"
                + "  `message` STRING FULLTEXT INDEX WITH(analyzer = 'English', case_sensitive = 'false'),\n"
                + "  `latency_ms` DOUBLE DEFAULT 0,\n"
                + "  `trace_id` STRING SKIPPING INDEX,\n"
                + "  PRIMARY KEY (`service`, `host`)\n"
                + ") PARTITION ON COLUMNS (`service`) (`service` < 'm', `service` >= 'm')\n"
                + "ENGINE=mito WITH(ttl = '30d', append_mode = 'true', 'compaction.twcs.time_window' = '1d');");
        TableSchema schema = server.schema("bulk_logs");
        assertEquals(List.of("service", "host", "log_ts", "level", "message", "latency_ms", "trace_id"), names("bulk_logs"));
        assertEquals(SemanticType.Tag, schema.columns().get(0).semanticType());
        assertEquals(SemanticType.Tag, schema.columns().get(1).semanticType());
        assertEquals(SemanticType.Timestamp, column("bulk_logs", "log_ts").semanticType());
        assertEquals(DataType.TimestampMillisecond, column("bulk_logs", "log_ts").dataType());
        assertEquals("30days", server.tableOptions("public", "bulk_logs").get("ttl"));
    }

    // ---- what the parser refuses ----

    @Test
    void noTimeIndexIsMissingTimeIndexConstraint() throws Exception {
        assertEquals("Missing time index constraint", refused("CREATE TABLE t (v DOUBLE NOT NULL DEFAULT 0)", 2000));
        assertTrue(server.tables().isEmpty());
    }

    @Test
    void aNullableTimeIndexIsRefused() throws Exception {
        String msg = refused("CREATE TABLE t (ts TIMESTAMP NULL TIME INDEX)", 1004);
        assertTrue(msg.contains("time index column can't be null"), msg);
    }

    @Test
    void aTimeIndexThatIsNotATimestampIsRefused() throws Exception {
        String msg = refused("CREATE TABLE t (i BIGINT TIME INDEX)", 1004);
        assertTrue(msg.contains("time index column data type should be timestamp"), msg);
    }

    @Test
    void twoTimeIndexesAreRefused() throws Exception {
        String msg = refused("CREATE TABLE t (a TIMESTAMP TIME INDEX, b TIMESTAMP, TIME INDEX (b))", 2000);
        assertTrue(msg.contains("expected only one time index constraint but actual 2"), msg);
    }

    @Test
    void twoInlinePrimaryKeysAreRefused() throws Exception {
        String msg = refused("CREATE TABLE t (a STRING PRIMARY KEY, b STRING PRIMARY KEY, ts TIMESTAMP TIME INDEX)", 1004);
        assertTrue(msg.contains("not allowed to inline multiple primary keys"), msg);
    }

    @Test
    void inlineAndConstraintPrimaryKeysTogetherAreRefused() throws Exception {
        String msg = refused("CREATE TABLE t (a STRING PRIMARY KEY, b STRING, ts TIMESTAMP TIME INDEX, PRIMARY KEY (b))",
                1004);
        assertTrue(msg.contains("found definitions of primary keys in multiple places"), msg);
    }

    @Test
    void fulltextOnANonStringColumnIsRefused() throws Exception {
        String msg = refused("CREATE TABLE t (v DOUBLE FULLTEXT INDEX, ts TIMESTAMP TIME INDEX)", 1004);
        assertTrue(msg.contains("FULLTEXT index only supports string type"), msg);
    }

    @Test
    void fulltextWithoutIndexIsRefused() throws Exception {
        String msg = refused("CREATE TABLE t (m STRING FULLTEXT WITH(analyzer = 'English'), ts TIMESTAMP TIME INDEX)",
                1004);
        assertTrue(msg.contains("expect INDEX after FULLTEXT keyword"), msg);
    }

    @Test
    void unknownIndexOptionsAreRefused() throws Exception {
        String skipping = refused("CREATE TABLE t (h STRING SKIPPING INDEX WITH(bogus = '1'), ts TIMESTAMP TIME INDEX)",
                1004);
        assertTrue(skipping.contains("invalid SKIPPING INDEX option: bogus"), skipping);
        String fulltext = refused("CREATE TABLE t (m STRING FULLTEXT INDEX WITH(type = 'BLOOM'), ts TIMESTAMP TIME INDEX)",
                1004);
        assertTrue(fulltext.contains("invalid FULLTEXT INDEX option: type"), fulltext);
        assertTrue(server.tables().isEmpty());
    }

    @Test
    void invertedIndexOptionsAreRefused() throws Exception {
        String msg = refused("CREATE TABLE t (h STRING INVERTED INDEX WITH(x = 'y'), ts TIMESTAMP TIME INDEX)", 1004);
        assertTrue(msg.contains("INVERTED index doesn't support options"), msg);
    }

    @Test
    void aPartitionColumnMustBeDeclared() throws Exception {
        String msg = refused("CREATE TABLE t (ts TIMESTAMP TIME INDEX) PARTITION ON COLUMNS (nope) (nope < 'a')", 2000);
        assertTrue(msg.contains("Partition column \"nope\" not defined"), msg);
    }

    @Test
    void anUnknownColumnOptionIsASyntaxError() throws Exception {
        String msg = refused("CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE BOGUS)", 2000);
        assertTrue(msg.contains("Expected: ',' or ')' after column definition, found: bogus"), msg);
    }

    @Test
    void clausesAfterTheColumnsGoInTheServersOrder() throws Exception {
        String msg = refused("CREATE TABLE t (ts TIMESTAMP TIME INDEX) WITH(ttl = '1d') ENGINE=mito", 2000);
        assertTrue(msg.contains("Expected: end of statement, found: engine"), msg);
    }

    static List<String> names(String table) {
        return server.schema(table).columns().stream().map(TableSchema.Column::name).toList();
    }
}
