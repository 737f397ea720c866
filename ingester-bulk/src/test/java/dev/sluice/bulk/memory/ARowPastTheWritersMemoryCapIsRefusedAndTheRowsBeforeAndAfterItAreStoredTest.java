package dev.sluice.bulk.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.BulkWriteException;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.RowAppender;
import dev.sluice.data.TableSchema;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A row that would take a bulk writer past its {@code allocatorMaxAllocation} (in a text buffer, a fixed-width
 * column, or the offsets and validity of a text column growing) is refused with a {@link BulkWriteException}
 * naming the table, the cap and the row, and is not added; the rows before it are sent and stored cell for cell,
 * the writer takes and stores rows after it, and holds no memory once closed.
 */
class ARowPastTheWritersMemoryCapIsRefusedAndTheRowsBeforeAndAfterItAreStoredTest {
    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("id", DataType.Int64)
                .addField("msg", DataType.String)
                .addField("value", DataType.Float64)
                .addField("flag", DataType.Bool)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    static Object[] row(long id, int textLength, String host) {
        String msg = textLength == 0 ? (id % 4 == 0 ? null : "") : textLength < 0 ? host
                : "m" + id + "-" + "x".repeat(textLength);
        return new Object[] {host, id, msg, id % 5 == 0 ? null : id * 0.25, id % 3 == 0, 1_700_000_000_000L + id};
    }

    @ParameterizedTest
    @CsvSource({
        "65536, 100, None, false", "100000, 1000, None, true", "300000, -1, None, false", "300000, 0, None, true",
        "1048576, 37, Lz4, false", "1048576, 5000, None, true", "200000, -1, None, true",
    })
    void theRowIsRefusedAndTheOthersStored(long cap, int textLength, Compression compression, boolean appender)
            throws Exception {
        String table = "cap_" + cap + "_" + (textLength < 0 ? "r" : textLength) + "_"
                + compression.name().toLowerCase() + (appender ? "_a" : "");
        String host = "host-repeated";
        List<Object[]> accepted = new ArrayList<>();
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder(server.endpoint(), "public").build());
            try {
                try (BulkStreamWriter w = db.bulkStreamWriter(schema(table),
                        BulkWrite.Config.newBuilder().allocatorMaxAllocation(cap).build(),
                        Context.newBuilder().compression(compression).build())) {
                    TableBufferRoot batch = w.tableBufferRoot(8);
                    long id = 0;
                    for (int round = 0; round < 3; round++) {
                        int before = batch.rowCount();
                        BulkWriteException refused = null;
                        while (refused == null) {
                            Object[] row = row(id, textLength, host);
                            try {
                                add(batch, row, appender);
                                accepted.add(row);
                                id++;
                            } catch (BulkWriteException e) {
                                refused = e;
                            }
                            if (id > 5_000_000) {
                                fail("no row was refused under a cap of " + cap + " bytes");
                            }
                        }
                        String message = refused.getMessage();
                        assertTrue(message.contains("'" + table + "'"), message);
                        assertTrue(message.contains(String.valueOf(cap)), message);
                        assertTrue(message.contains("row " + batch.rowCount()), message);
                        assertTrue(batch.rowCount() > before, "rows were added before the refusal: " + message);
                        int rows = batch.rowCount();
                        assertEquals(rows, w.writeNext().get(120, TimeUnit.SECONDS), "the rows before the refusal");
                        for (int i = 0; i < 3; i++, id++) { // the row refused, then two more
                            Object[] row = row(id, textLength, host);
                            add(batch, row, appender);
                            accepted.add(row);
                        }
                        assertEquals(3, w.writeNext().get(120, TimeUnit.SECONDS), "the rows after the refusal");
                    }
                    assertEquals(accepted.size(), w.completed());
                }
                NothingHeld.await(db, Duration.ofSeconds(60), true);
                List<Map<String, Object>> stored = server.rows(table);
                assertEquals(accepted.size(), stored.size());
                String[] names = {"host", "id", "msg", "value", "flag", "ts"};
                for (int i = 0; i < stored.size(); i++) {
                    for (int c = 0; c < names.length; c++) {
                        assertEquals(accepted.get(i)[c], stored.get(i).get(names[c]), "row " + i + " " + names[c]);
                    }
                }
            } finally {
                db.shutdownNow();
            }
        }
    }

    static void add(TableBufferRoot batch, Object[] row, boolean appender) {
        if (!appender) {
            batch.addRow(row);
            return;
        }
        RowAppender a = batch.appender();
        a.setString(0, (String) row[0]).setLong(1, (Long) row[1]);
        if (row[2] != null) {
            a.setString(2, (String) row[2]);
        }
        if (row[3] != null) {
            a.setDouble(3, (Double) row[3]);
        }
        a.setBoolean(4, (Boolean) row[4]).setLong(5, (Long) row[5]).endRow();
    }
}
