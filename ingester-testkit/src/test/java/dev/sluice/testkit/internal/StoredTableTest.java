package dev.sluice.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Column storage keeps the row semantics: last write wins by key, order of last writes, deletes, added columns. */
class StoredTableTest {
    static final TableSchema.Column HOST = new TableSchema.Column("host", SemanticType.Tag, DataType.String, null);
    static final TableSchema.Column V = new TableSchema.Column("v", SemanticType.Field, DataType.Float64, null);
    static final TableSchema.Column TS = new TableSchema.Column("ts", SemanticType.Timestamp, DataType.TimestampMillisecond, null);

    static StoredTable table(Map<String, String> options) {
        return new StoredTable(1024, "t", List.of(HOST, V, TS), options, true);
    }

    @Test
    void lastWriteWinsAndTheNewerRowReadsBackLast() {
        StoredTable t = table(Map.of());
        t.put(new Object[] {"a", 1.0, 1L});
        t.put(new Object[] {"b", 2.0, 1L});
        t.put(new Object[] {"a", 3.0, 1L});
        assertEquals(2, t.rowCount());
        List<Map<String, Object>> rows = t.rows();
        assertEquals("b", rows.get(0).get("host"));
        assertEquals(3.0, rows.get(1).get("v"));
    }

    @Test
    void mergeModeLastNonNullKeepsOlderValuesForNulls() {
        StoredTable t = table(Map.of("merge_mode", "last_non_null"));
        t.put(new Object[] {"a", 1.0, 1L});
        t.put(new Object[] {"a", null, 1L});
        assertEquals(1.0, t.rows().get(0).get("v"));
    }

    @Test
    void appendModeKeepsEveryRowAndDeletesEveryCopy() {
        StoredTable t = table(Map.of("append_mode", "true"));
        t.put(new Object[] {"a", 1.0, 1L});
        t.put(new Object[] {"a", 2.0, 1L});
        t.put(new Object[] {"b", 2.0, 1L});
        assertEquals(3, t.rowCount());
        t.delete(new Object[] {"a", null, 1L});
        assertEquals(1, t.rowCount());
    }

    @Test
    void deletesOfAbsentKeysChangeNothingAndPresentOnesGo() {
        StoredTable t = table(Map.of());
        t.put(new Object[] {"a", 1.0, 1L});
        t.delete(new Object[] {"zz", null, 1L});
        t.delete(new Object[] {"a", null, 2L});
        assertEquals(1, t.rowCount());
        t.delete(new Object[] {"a", null, 1L});
        assertEquals(0, t.rowCount());
        t.put(new Object[] {"a", 5.0, 1L});
        assertEquals(5.0, t.rows().get(0).get("v"));
    }

    /**
     * A changelog of a few keys, each deleted and written back over and over (as an upsert sink sends an update): the
     * key index grows and is rebuilt many times, and the row count stays the number of rows held.
     */
    @Test
    void keysDeletedAndWrittenBackManyTimesAreCountedOnce() {
        StoredTable t = table(Map.of());
        for (int round = 0; round < 2_000; round++) {
            for (int k = 0; k < 97; k++) {
                if (round > 0) {
                    t.delete(new Object[] {"h" + k, null, 1L});
                }
                t.put(new Object[] {"h" + k, (double) round, 1L});
            }
            assertEquals(t.rows().size(), t.rowCount(), "round " + round);
        }
        assertEquals(97, t.rowCount());
    }

    @Test
    void manyOverwritesCompactAndKeepOneRowPerKey() {
        StoredTable t = table(Map.of());
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 10_000; i++) {
                t.put(new Object[] {"h" + (i % 100), (double) round, (long) (i / 100)});
            }
        }
        assertEquals(10_000, t.rowCount());
        List<Map<String, Object>> rows = t.rows();
        assertEquals(10_000, rows.size());
        rows.forEach(r -> assertEquals(4.0, r.get("v")));
        t.delete(new Object[] {"h7", null, 3L});
        assertEquals(9_999, t.rowCount());
    }

    @Test
    void dictionaryAndNumberChunksWidenWithoutChangingValues() {
        StoredTable t = table(Map.of());
        for (int i = 0; i < 70_000; i++) {
            long ts = i % 2 == 0 ? i : Long.MAX_VALUE - i; // forces wide number chunks
            t.put(new Object[] {"host-" + i, (double) i, ts});
        }
        List<Map<String, Object>> rows = t.rows();
        assertEquals(70_000, rows.size());
        assertEquals("host-69999", rows.get(69_999).get("host"));
        assertEquals(Long.MAX_VALUE - 69_999, rows.get(69_999).get("ts"));
        assertEquals(69_998L, rows.get(69_998).get("ts"));
        t.put(new Object[] {"host-3", -1.0, Long.MAX_VALUE - 3});
        assertEquals(70_000, t.rowCount(), "an overwrite after widening still finds its key");
    }

    @Test
    void addedColumnsReadNullInOlderRowsAndEveryTypeReadsBackAsStored() {
        StoredTable t = table(Map.of());
        t.put(new Object[] {"a", 1.0, 1L});
        List<TableSchema.Column> extra = List.of(
                new TableSchema.Column("b", SemanticType.Field, DataType.Bool, null),
                new TableSchema.Column("u", SemanticType.Field, DataType.UInt64, null),
                new TableSchema.Column("f", SemanticType.Field, DataType.Float32, null),
                new TableSchema.Column("d", SemanticType.Field, DataType.Date, null),
                new TableSchema.Column("bin", SemanticType.Field, DataType.Binary, null),
                new TableSchema.Column("dec", SemanticType.Field, DataType.Decimal128, dev.sluice.data.DecimalType.DEFAULT),
                new TableSchema.Column("s", SemanticType.Field, DataType.String, null));
        t.addColumns(extra);
        BigInteger big = new BigInteger("18446744073709551615");
        t.put(new Object[] {"b", 2.0, 2L, true, big, 1.5f, LocalDate.of(2024, 1, 2), new byte[] {1, 2},
                new BigDecimal("1.5000000000"), "text"});
        Map<String, Object> old = t.rows().get(0);
        assertNull(old.get("b"));
        assertNull(old.get("s"));
        Map<String, Object> r = t.rows().get(1);
        assertEquals(true, r.get("b"));
        assertEquals(big, r.get("u"));
        assertEquals(1.5f, r.get("f"));
        assertEquals(LocalDate.of(2024, 1, 2), r.get("d"));
        assertArrayEquals(new byte[] {1, 2}, (byte[]) r.get("bin"));
        assertEquals(new BigDecimal("1.5000000000"), r.get("dec"));
        assertEquals("text", r.get("s"));
    }
}
