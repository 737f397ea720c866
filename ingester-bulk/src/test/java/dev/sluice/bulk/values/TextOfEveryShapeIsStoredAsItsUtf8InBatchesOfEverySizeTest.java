package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Text of every shape around the bulk path's short-text limits (empty, one character, 15, 16 and 17 characters,
 * 63 to 65, long), ASCII and not (two-, three- and four-byte characters, unpaired surrogates), given as the same
 * {@code String} object row after row, as equal but distinct strings, and as other {@code CharSequence}s, with
 * nulls in the first and last rows, is stored as its UTF-8 bytes, and as the regular path stores it, in batches
 * of 1, 2, 999, 1000 and 1001 rows, with and without compression.
 */
class TextOfEveryShapeIsStoredAsItsUtf8InBatchesOfEverySizeTest {
    static final String[] SHAPES = {
        "", "a", "é", "\u0080", "\u00ff", "\u07ff", "\u0800", "漢", "😀", "\uD800", "\uDC00", "x\uD83D", "\uDE00y",
        "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq",
        "abcdefghijklmné", "abcdefghijklmnoé", "abcdefghijklmnopé", "abcdefghijklmn😀", "😀bcdefghijklmnop",
        "éééééééééééééééé", "漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢", "a".repeat(63), "b".repeat(64), "c".repeat(65),
        "d".repeat(62) + "é", "e".repeat(64) + "\uD800", "f".repeat(300), "漢".repeat(300), "host-01", "host-02",
        "?", "\u0000", "a\u0000b", "\u007f",
    };

    static final String TABLE = "text_shapes";

    static TableSchema schema(String table) {
        return TableSchema.newBuilder(table)
                .addTag("host", DataType.String)
                .addField("a", DataType.String)
                .addField("b", DataType.String)
                .addField("c", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond)
                .build();
    }

    /** Rows whose text columns take every shape, repeated (same object), copied (equal object) and as builders. */
    static List<Object[]> rows(int count, long seed) {
        Random rnd = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        Object[] previous = null;
        for (int i = 0; i < count; i++) {
            Object[] row = new Object[5];
            for (int c = 0; c < 4; c++) {
                int mode = rnd.nextInt(10);
                Object v;
                if (i == 0 || i == count - 1) {
                    v = c == 0 ? "host-01" : null;
                } else if (mode < 4 && previous != null) {
                    v = previous[c]; // the very object of the row before
                } else if (mode < 6) {
                    v = SHAPES[rnd.nextInt(SHAPES.length)];
                } else if (mode == 6) {
                    v = new String(SHAPES[rnd.nextInt(SHAPES.length)].toCharArray()); // equal, not the same
                } else if (mode == 7) {
                    v = new StringBuilder(SHAPES[rnd.nextInt(SHAPES.length)]);
                } else if (mode == 8) {
                    v = null;
                } else {
                    v = SHAPES[rnd.nextInt(SHAPES.length)] + SHAPES[rnd.nextInt(SHAPES.length)];
                }
                row[c] = v;
            }
            row[4] = 1_700_000_000_000L + i;
            rows.add(row);
            previous = row;
        }
        return rows;
    }

    @ParameterizedTest
    @CsvSource({
        "1, None", "2, None", "999, None", "1000, None", "1001, None",
        "1, Zstd", "2, Lz4", "999, Zstd", "1000, Lz4", "1001, Zstd", "1001, Lz4", "2, Gzip", "1001, Gzip",
    })
    void everyShapeIsStoredAsItsUtf8AndAsTheRegularPathStoresIt(int batchRows, Compression compression)
            throws Exception {
        try (var sc = ServerAndClientAccess.start()) {
            int count = batchRows == 1 ? 600 : 3 * batchRows + 7;
            List<Object[]> rows = rows(count, batchRows * 31L + compression.ordinal());
            String bulk = TABLE + "_bulk";
            String regular = TABLE + "_regular";
            BulkRows.writeInBatches(sc.db(), schema(bulk), rows, batchRows, compression);
            BulkRows.writeRegular(sc.db(), schema(regular), rows);
            List<Map<String, Object>> stored = sc.server().rows(bulk);
            assertEquals(rows.size(), stored.size());
            String[] names = {"host", "a", "b", "c"};
            for (int i = 0; i < rows.size(); i++) {
                for (int c = 0; c < 4; c++) {
                    Object given = rows.get(i)[c];
                    Object expected = given == null ? null : BulkRows.stored((CharSequence) given);
                    assertEquals(expected, stored.get(i).get(names[c]), "row " + i + " column " + names[c]
                            + " given " + BulkRows.describe(rows.get(i)));
                }
                assertEquals(rows.get(i)[4], stored.get(i).get("ts"), "row " + i + " ts");
            }
            BulkRows.assertSameRows(sc.server(), regular, bulk);
        }
    }
}
