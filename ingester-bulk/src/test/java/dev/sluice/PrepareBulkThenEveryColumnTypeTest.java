package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Context;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tables of every column type a bulk writer takes, written through bulk writers of a client that prepared bulk
 * writing first, or is preparing it on another thread while the writer opens and fills its first batch (in a JVM of
 * its own, so the two really load Arrow's classes together): the server stores what the regular write path stores.
 */
class PrepareBulkThenEveryColumnTypeTest {
    private GreptimeTestServer server;
    private GreptimeDB db;

    @BeforeEach
    void start() {
        server = GreptimeTestServer.start();
        db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(0, db.stats().bulkAllocatedBytes(), "every bulk buffer was released");
        } finally {
            db.shutdownNow();
            server.close();
        }
    }

    private void writeBulk(TableSchema schema, List<Object[]> rows) throws Exception {
        try (BulkStreamWriter w = db.bulkStreamWriter(schema, BulkWriteTest.CONFIG, Context.newBuilder().build())) {
            TableBufferRoot batch = w.tableBufferRoot(2);
            rows.forEach(batch::addRow);
            assertEquals(rows.size(), w.writeNext().get(60, TimeUnit.SECONDS));
            assertEquals(rows.size(), w.completed());
        }
    }

    private void assertSameRows(String regular, String bulk) {
        List<Map<String, Object>> want = server.rows(regular);
        List<Map<String, Object>> got = server.rows(bulk);
        assertEquals(want.size(), got.size());
        assertEquals(server.schema(regular).columns(), server.schema(bulk).columns());
        for (int i = 0; i < want.size(); i++) {
            assertEquals(want.get(i).keySet(), got.get(i).keySet());
            for (String col : want.get(i).keySet()) {
                Object a = got.get(i).get(col);
                Object b = want.get(i).get(col);
                if (a instanceof byte[] ab && b instanceof byte[] bb) {
                    assertArrayEquals(bb, ab, "row " + i + " column " + col);
                } else {
                    assertEquals(b, a, "row " + i + " column " + col);
                }
            }
        }
    }

    @Test
    void everyTypeWrittenWhilePreparingOnAnotherThreadIsStoredAsTheRegularPathStoresIt() throws Exception {
        CompletableFuture<Void> preparing = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 20; i++) {
                db.prepareBulk();
            }
        });
        writeBulk(BulkWriteTest.allTypes("racing_bulk"), BulkWriteTest.allTypeRows());
        preparing.get(60, TimeUnit.SECONDS);
        Table t = Table.from(BulkWriteTest.allTypes("racing_regular"));
        BulkWriteTest.allTypeRows().forEach(t::addRow);
        assertTrue(db.write(t).get(60, TimeUnit.SECONDS).isOk());
        assertSameRows("racing_regular", "racing_bulk");
    }

    @Test
    void everyTypeWrittenAfterPreparingIsStoredAsTheRegularPathStoresIt() throws Exception {
        db.prepareBulk();
        db.prepareBulk();
        writeBulk(BulkWriteTest.allTypes("prepared_bulk"), BulkWriteTest.allTypeRows());
        Table t = Table.from(BulkWriteTest.allTypes("prepared_regular"));
        BulkWriteTest.allTypeRows().forEach(t::addRow);
        assertTrue(db.write(t).get(60, TimeUnit.SECONDS).isOk());
        assertSameRows("prepared_regular", "prepared_bulk");
        assertEquals(new BigDecimal("9999999999999999999999999999999999.9999"),
                server.rows("prepared_bulk").get(1).get("c_Decimal128"));
    }

    @Test
    void aDecimalColumnOfDefaultPrecisionWrittenAfterPreparingKeepsItsValues() throws Exception {
        db.prepareBulk();
        TableSchema bulk = TableSchema.newBuilder("dec_bulk").addTag("tag", DataType.String)
                .addColumn("d", SemanticType.Field, DataType.Decimal128)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        TableSchema regular = TableSchema.newBuilder("dec_regular").addTag("tag", DataType.String)
                .addColumn("d", SemanticType.Field, DataType.Decimal128)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        List<Object[]> rows = List.of(new Object[] {"a", new BigDecimal("12345.5"), 1L},
                new Object[] {"b", new BigDecimal("-0.0000000001"), 2L}, new Object[] {"c", null, 3L},
                new Object[] {"d", new BigDecimal("99999999999999999999999999.9999999999"), 4L});
        writeBulk(bulk, rows);
        Table t = Table.from(regular);
        rows.forEach(t::addRow);
        assertTrue(db.write(t).get(60, TimeUnit.SECONDS).isOk());
        assertSameRows("dec_regular", "dec_bulk");
        assertEquals(0, new BigDecimal("12345.5").compareTo((BigDecimal) server.rows("dec_bulk").get(0).get("d")));
    }
}
