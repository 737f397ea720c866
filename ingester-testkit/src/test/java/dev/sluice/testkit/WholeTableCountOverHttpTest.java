package dev.sluice.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonParser;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code SELECT count(*) FROM <table>} over the HTTP SQL API: the server's shortcut answers the row count for every
 * way of writing the name, exactly as GreptimeDB resolves it (unquoted names folded to lower case, quoted names kept);
 * every other statement, including ones only a little different, is answered by the query engine with the right
 * value; a missing table is TableNotFound (4001); malformed quoting is an error, never a count.
 */
class WholeTableCountOverHttpTest {
    private GreptimeTestServer s;

    @BeforeEach
    void start() {
        s = GreptimeTestServer.builder().httpPort(0).start();
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private HttpResponse<String> sql(String statement) throws Exception {
        return SqlHttpEndpointTest.sql(s, statement);
    }

    private HttpResponse<String> sqlIn(String db, String statement) throws Exception {
        return SqlHttpEndpointTest.sql(s, db, statement, null);
    }

    private void ok(String statement) throws Exception {
        HttpResponse<String> r = sql(statement);
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
    }

    private long single(HttpResponse<String> r, String statement) {
        assertEquals(200, r.statusCode(), statement + " -> " + r.body());
        JsonArray rows = SqlHttpEndpointTest.rows(r);
        assertEquals(1, rows.size(), statement + " -> " + r.body());
        return rows.get(0).getAsJsonArray().get(0).getAsLong();
    }

    private long count(String statement) throws Exception {
        return single(sql(statement), statement);
    }

    private void assertTableNotFound(HttpResponse<String> r, String statement) {
        assertEquals(400, r.statusCode(), statement + " -> " + r.body());
        assertEquals(4001, JsonParser.parseString(r.body()).getAsJsonObject().get("code").getAsInt(),
                statement + " -> " + r.body());
    }

    private void assertError(HttpResponse<String> r, String statement) {
        assertNotEquals(200, r.statusCode(), statement + " answered " + r.body());
        assertTrue(JsonParser.parseString(r.body()).getAsJsonObject().has("code"), statement + " -> " + r.body());
    }

    /** Creates a table under the given (already quoted) name with rows host h0..h{n-1}, v = i or NULL every third. */
    private void table(String quotedName, int n, String with) throws Exception {
        ok("CREATE TABLE " + quotedName + " (host STRING, v DOUBLE NULL, ts TIMESTAMP(3) NOT NULL, TIME INDEX (ts),"
                + " PRIMARY KEY (host))" + with);
        for (int i = 0; i < n; i++) {
            ok("INSERT INTO " + quotedName + " (host, v, ts) VALUES ('h" + i + "', " + (i % 3 == 0 ? "NULL" : i)
                    + ", " + (1_700_000_000_000L + i) + ")");
        }
    }

    @Test
    void aTableCreatedWithUppercaseQuotedIsCountedOnlyUnderItsExactName() throws Exception {
        table("\"CpuLoad\"", 3, "");
        assertEquals(3, count("SELECT count(*) FROM \"CpuLoad\""));
        assertEquals(3, count("SELECT count(*) FROM `CpuLoad`"));
        assertEquals(3, count("SELECT count(*) FROM public.\"CpuLoad\";"));
        assertEquals(3, count("SELECT count(1) FROM \"CpuLoad\""));
        for (String wrong : List.of("SELECT count(*) FROM CpuLoad", "SELECT count(*) FROM \"cpuload\"",
                "SELECT count(*) FROM `CPULOAD`", "SELECT count(*) FROM public.CpuLoad")) {
            assertTableNotFound(sql(wrong), wrong);
        }
    }

    @Test
    void anUnquotedUppercaseNameIsFoldedToTheLowercaseTable() throws Exception {
        table("cpu", 4, "");
        for (String st : List.of("SELECT count(*) FROM CPU", "select COUNT(*) from Cpu ;", "SELECT count(*) FROM PUBLIC.CPU",
                "SELECT count(*) FROM \"public\".cpu", "SELECT count(*) FROM `public`.`cpu`;")) {
            assertEquals(4, count(st), st);
        }
        assertTableNotFound(sql("SELECT count(*) FROM \"CPU\""), "quoted CPU");
    }

    @Test
    void namesThatNeedQuotesAreCountedWithEitherQuote() throws Exception {
        // GreptimeDB's table names: [a-zA-Z_:-][a-zA-Z0-9_:\-.@#]* (others are "Invalid table name", 1004).
        table("\"my-table\"", 2, "");
        table("`Host:Load@1#x`", 5, "");
        table("\"a.b\"", 6, "");
        Map<String, Long> expected = new HashMap<>();
        expected.put("SELECT count(*) FROM \"my-table\"", 2L);
        expected.put("SELECT count(*) FROM `my-table`", 2L);
        expected.put("SELECT count(*) FROM public.`my-table`;", 2L);
        expected.put("SELECT count(*) FROM \"Host:Load@1#x\"", 5L);
        expected.put("SELECT count(*) FROM `Host:Load@1#x`", 5L);
        expected.put("SELECT count(*) FROM \"public\".`Host:Load@1#x` ;", 5L);
        expected.put("SELECT count(*) FROM \"a.b\"", 6L);
        expected.put("SELECT count(*) FROM `a.b`", 6L);
        expected.put("SELECT count(*) FROM public.\"a.b\"", 6L);
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            assertEquals(e.getValue(), count(e.getKey()), e.getKey());
        }
        // The dot inside quotes is part of the name, not a database separator; "a"."b" is another table.
        assertTableNotFound(sql("SELECT count(*) FROM \"a\".\"b\""), "a.b as db a, table b");
    }

    @Test
    void doubledQuoteCharactersStayInTheNameAndNeverCountAnotherTable() throws Exception {
        table("ab", 3, "");
        table("\"a-b\"", 4, "");
        // a"b and a`b are names no table can have: TableNotFound, never the count of ab or a-b.
        for (String st : List.of("SELECT count(*) FROM \"a\"\"b\"", "SELECT count(*) FROM `a``b`",
                "SELECT count(*) FROM \"a``b\"", "SELECT count(*) FROM `a\"\"b`")) {
            assertTableNotFound(sql(st), st);
        }
        assertEquals(4, count("SELECT count(*) FROM \"a-b\""));
    }

    @Test
    void theEngineCountsQuotedNamesThatNeedQuotesAsTheShortcutDoes() throws Exception {
        table("\"my-table\"", 2, "");
        table("\"a.b\"", 3, "");
        table("\"CpuLoad\"", 5, "");
        assertEquals(2, count("SELECT count(1) FROM \"my-table\""));
        assertEquals(3, count("SELECT count(ts) FROM \"a.b\""));
        assertEquals(5, count("SELECT count(host) FROM `CpuLoad`"));
        assertEquals(2, count("SELECT count(*) FROM \"CpuLoad\" WHERE v > 1"));
        assertEquals(2, count("SELECT count(*) FROM `my-table` WHERE host IS NOT NULL"));
    }

    @Test
    void aTableInAnotherDatabaseIsCountedQualifiedOrThroughTheRequestDatabase() throws Exception {
        ok("CREATE DATABASE other");
        table("other.t2", 2, "");
        table("other.\"Mixed\"", 3, "");
        assertEquals(2, count("SELECT count(*) FROM other.t2"));
        assertEquals(2, count("SELECT count(*) FROM \"other\".\"t2\""));
        assertEquals(2, count("SELECT count(*) FROM `other`.t2;"));
        assertEquals(2, count("SELECT count(*) FROM OTHER.T2"));
        assertEquals(3, count("SELECT count(*) FROM other.\"Mixed\""));
        assertEquals(2, count("SELECT count(1) FROM other.t2"));
        assertEquals(2, single(sqlIn("other", "SELECT count(*) FROM t2"), "?db=other t2"));
        assertEquals(3, single(sqlIn("other", "SELECT count(*) FROM `Mixed`"), "?db=other Mixed"));
        assertTableNotFound(sql("SELECT count(*) FROM t2"), "t2 in public");
        assertTableNotFound(sql("SELECT count(*) FROM public.t2"), "public.t2");
        assertTableNotFound(sql("SELECT count(*) FROM \"OTHER\".t2"), "OTHER quoted");
    }

    @Test
    void appendModeDuplicatesAreAllCountedAndDeduplicatedTablesCountOnce() throws Exception {
        table("ap", 0, " WITH(append_mode='true')");
        table("dedup", 0, "");
        for (int i = 0; i < 3; i++) {
            ok("INSERT INTO ap (host, v, ts) VALUES ('h', 1.0, 1700000000000)");
            ok("INSERT INTO dedup (host, v, ts) VALUES ('h', " + i + ", 1700000000000)");
        }
        for (String f : List.of("count(*)", "count(1)", "count(ts)", "count(v)")) {
            assertEquals(3, count("SELECT " + f + " FROM ap"), "ap " + f);
            assertEquals(1, count("SELECT " + f + " FROM dedup"), "dedup " + f);
            assertEquals(3, count("SELECT " + f + " FROM `ap`;"), "`ap` " + f);
        }
        assertEquals(3, s.rowCount("ap"));
        assertEquals(1, s.rowCount("dedup"));
    }

    @Test
    void aTruncatedOrRefilledTableIsCountedAsItIsNow() throws Exception {
        table("\"T\"", 5, "");
        assertEquals(5, count("SELECT count(*) FROM \"T\""));
        ok("TRUNCATE TABLE \"T\"");
        assertEquals(0, count("SELECT count(*) FROM \"T\""));
        assertEquals(0, count("SELECT count(1) FROM \"T\""));
        ok("INSERT INTO \"T\" (host, v, ts) VALUES ('x', 1, 1), ('y', 2, 2)");
        assertEquals(2, count("SELECT count(*) FROM `T`"));
        ok("DROP TABLE \"T\"");
        assertTableNotFound(sql("SELECT count(*) FROM \"T\""), "dropped");
    }

    @Test
    void commentsAroundTheStatementDoNotChangeTheCount() throws Exception {
        table("cpu", 4, "");
        for (String st : List.of("SELECT count(*) FROM cpu -- all rows", "-- lead\nSELECT count(*) FROM cpu",
                "SELECT count(*) FROM cpu /* trailing */", "SELECT count(*) /* mid */ FROM \"cpu\";",
                "SELECT count(*)\nFROM\n\tcpu\n;\n")) {
            assertEquals(4, count(st), st);
        }
    }

    @Test
    void aStatementOpeningWithABlockCommentIsStillCounted() throws Exception {
        // GreptimeDB's parser (sqlparser) skips /* */ comments anywhere, the statement's start included.
        table("cpu", 4, "");
        for (String st : List.of("/* lead */ SELECT count(*) FROM cpu", "/* lead */ SELECT count(1) FROM cpu")) {
            assertEquals(4, count(st), st);
        }
    }

    @Test
    void countsThatAreNotOfAWholeTableAreAnsweredByTheEngine() throws Exception {
        table("cpu", 9, ""); // v: NULL for h0, h3, h6; otherwise i
        assertEquals(6, count("SELECT count(v) FROM cpu"));
        assertEquals(9, count("SELECT count(1) FROM cpu"));
        assertEquals(4, count("SELECT count(*) FROM cpu WHERE v > 2"));
        assertEquals(1, count("SELECT count(*) FROM cpu WHERE host = 'h4'"));
        assertEquals(10, count("SELECT count(*) + 1 FROM cpu"));
        assertEquals(0, count("SELECT count(*) FROM cpu WHERE v IS NULL AND v IS NOT NULL"));
        assertEquals(3, count("SELECT count(*) FROM cpu WHERE v IS NULL"));
        assertEquals(6, count("SELECT count(DISTINCT v) FROM cpu"));
        JsonArray grouped = SqlHttpEndpointTest.rows(sql("SELECT host, count(*) FROM cpu GROUP BY host ORDER BY host"));
        assertEquals(9, grouped.size(), grouped.toString());
        for (int i = 0; i < 9; i++) {
            assertEquals(1, grouped.get(i).getAsJsonArray().get(1).getAsLong(), grouped.toString());
        }
        assertEquals(0, SqlHttpEndpointTest.rows(sql("SELECT count(*) FROM cpu GROUP BY host HAVING count(*) > 1")).size());
    }

    @Test
    void aMissingTableIsTableNotFoundWhateverTheQuoting() throws Exception {
        for (String st : List.of("SELECT count(*) FROM nope", "SELECT count(*) FROM `nope`", "SELECT count(*) FROM \"nope\";",
                "SELECT count(*) FROM public.nope", "SELECT count(*) FROM \"Nope\"")) {
            HttpResponse<String> r = sql(st);
            assertTableNotFound(r, st);
            assertEquals("4001", r.headers().firstValue("x-greptime-err-code").orElse(null), st);
        }
    }

    @Test
    void mismatchedQuotesAreAnErrorNotACount() throws Exception {
        table("cpu", 4, "");
        table("\"cpu-x\"", 1, "");
        for (String st : List.of("SELECT count(*) FROM \"cpu", "SELECT count(*) FROM `cpu", "SELECT count(*) FROM \"cpu`",
                "SELECT count(*) FROM `cpu\"", "SELECT count(*) FROM cpu\"", "SELECT count(*) FROM cpu`",
                "SELECT count(*) FROM \"cpu\"\"", "SELECT count(*) FROM 'cpu'", "SELECT count(*) FROM \"public\".\"cpu", "SELECT count(*) FROM \"cpu-x`")) {
            HttpResponse<String> r = sql(st);
            assertError(r, st);
        }
    }

    @Test
    void extraTokensAfterTheNameAreNotIgnored() throws Exception {
        table("cpu", 4, "");
        table("other_t", 2, "");
        assertEquals(4, count("SELECT count(*) FROM cpu AS c"));
        assertEquals(4, count("SELECT count(*) FROM cpu c"));
        assertEquals(0, SqlHttpEndpointTest.rows(sql("SELECT count(*) FROM cpu LIMIT 1 OFFSET 1")).size(),
                "offset 1 of the one result row");
        assertError(sql("SELECT count(*) FROM cpu, ;"), "dangling comma");
        assertError(sql("SELECT count(*) FROM cpu;;x"), "garbage");
        assertEquals(8, count("SELECT count(*) FROM cpu, other_t"));
    }

    @Test
    void aNameQualifiedWithCatalogAndDatabaseIsCounted() throws Exception {
        // GreptimeDB resolves catalog.database.table; its only catalog is greptime.
        table("cpu", 3, "");
        assertEquals(3, count("SELECT count(*) FROM greptime.public.cpu"));
        assertEquals(3, count("SELECT count(1) FROM greptime.public.cpu"));
    }

    private static String firstColumnName(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("output").get(0).getAsJsonObject()
                .getAsJsonObject("records").getAsJsonObject("schema").getAsJsonArray("column_schemas").get(0)
                .getAsJsonObject().get("name").getAsString();
    }

    @Test
    void aCountNamesItsColumnTheSameWhetherTheShortcutOrTheEngineAnswers() throws Exception {
        table("cpu", 3, "");
        String whole = firstColumnName(sql("SELECT count(*) FROM cpu"));
        String filtered = firstColumnName(sql("SELECT count(*) FROM cpu WHERE v IS NOT NULL"));
        String upperWhole = firstColumnName(sql("SELECT COUNT(*) FROM cpu"));
        assertEquals(whole, filtered, "column of count(*) with and without WHERE");
        assertEquals(whole, upperWhole, "column of COUNT(*) and count(*)");
    }
}
