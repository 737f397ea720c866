package dev.sluice.bulk.values;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.NothingHeld;
import dev.sluice.bulk.ServerAndClientAccess;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Compression;
import dev.sluice.write.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two hundred columns of every type the bulk path carries, sent in many batches whose sizes go up and down (1, 1000,
 * 3, 999, 2, 1001 rows, and one batch over 4 MiB between them), so that small batches are packed into buffers
 * kept from earlier, larger or smaller ones; in each batch some columns are null in every row, some only in the
 * first or the last row, some never: stored cell for cell as the regular path stores the same rows, under each
 * compression (Arrow's and gRPC's), and the client holds no bulk memory once the writer is closed.
 */
class ManyBatchesOfVaryingSizeAcrossTwoHundredColumnsAreStoredCellForCellAndLeaveNoMemoryHeldTest {
    static final int FIELDS = 200;
    static final List<DataType> TYPES = ValuesOfEveryAcceptedJavaClassAreStoredAsTheRegularPathStoresThemTest.TYPES;
    static final int[] SIZES = {1, 1000, 3, 999, 2, 1001, 1, 500, 1, 1000, 1, 1, 1001, 7, 999};

    static TableSchema schema(String table) {
        TableSchema.Builder b = TableSchema.newBuilder(table).addTag("host", DataType.String);
        for (int c = 0; c < FIELDS; c++) {
            DataType t = TYPES.get(c % TYPES.size());
            if (t == DataType.Decimal128) {
                b.addColumn("f" + c, SemanticType.Field, t, new DecimalType(20, 3));
            } else {
                b.addField("f" + c, t);
            }
        }
        return b.addTimestamp("ts", DataType.TimestampMillisecond).build();
    }

    /** Rows of one batch: column c is null in every row, in the first, in the last, at random, or never. */
    static List<Object[]> batch(int batchIndex, int rows, long firstTs, Random rnd, boolean wideText) {
        List<Object[]> out = new ArrayList<>();
        String host = "host-" + batchIndex % 3;
        for (int r = 0; r < rows; r++) {
            Object[] row = new Object[FIELDS + 2];
            row[0] = r == rows - 1 ? null : host;
            for (int c = 0; c < FIELDS; c++) {
                int pattern = (batchIndex + c) % 5;
                boolean isNull = switch (pattern) {
                    case 0 -> true;
                    case 1 -> r == 0;
                    case 2 -> r == rows - 1;
                    case 3 -> rnd.nextInt(3) == 0;
                    default -> false;
                };
                DataType t = TYPES.get(c % TYPES.size());
                if (isNull) {
                    row[c + 1] = null;
                } else if (wideText && t == DataType.String) {
                    row[c + 1] = "w" + r + "-" + "x".repeat(900);
                } else {
                    Object[] values = ValuesOfEveryAcceptedJavaClassAreStoredAsTheRegularPathStoresThemTest
                            .accepted(t);
                    row[c + 1] = values[rnd.nextInt(values.length)];
                }
            }
            row[FIELDS + 1] = firstTs + r;
            out.add(row);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void storedCellForCellAndNothingHeld(Compression compression) throws Exception {
        try (var sc = ServerAndClientAccess.start()) {
            Random rnd = new Random(compression.ordinal());
            String bulk = "wide_batches_bulk_" + compression.name().toLowerCase();
            List<Object[]> all = new ArrayList<>();
            try (BulkStreamWriter w = sc.db().bulkStreamWriter(schema(bulk), BulkWrite.Config.newBuilder().build(),
                    Context.newBuilder().compression(compression).build())) {
                TableBufferRoot batch = w.tableBufferRoot(16);
                BulkRows.Sent sent = new BulkRows.Sent();
                long ts = 1_700_000_000_000L;
                for (int b = 0; b < SIZES.length + 1; b++) {
                    boolean large = b == 6; // over 4 MiB: sent from its own vectors, the next rows on fresh ones
                    int rows = large ? 1200 : SIZES[b % SIZES.length];
                    List<Object[]> rowsOfBatch = batch(b, rows, ts, rnd, large);
                    ts += rows;
                    rowsOfBatch.forEach(batch::addRow);
                    all.addAll(rowsOfBatch);
                    sent.send(w, rows);
                }
                sent.assertAllAcknowledged();
                assertEquals(all.size(), w.completed());
            }
            NothingHeld.await(sc.db(), Duration.ofSeconds(60), true);
            String regular = "wide_batches_regular_" + compression.name().toLowerCase();
            BulkRows.writeRegular(sc.db(), schema(regular), all);
            BulkRows.assertSameRows(sc.server(), regular, bulk);
        }
    }
}
