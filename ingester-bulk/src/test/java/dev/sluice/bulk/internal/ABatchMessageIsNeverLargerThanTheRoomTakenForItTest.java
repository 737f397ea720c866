package dev.sluice.bulk.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.bulk.TableBufferRoot;
import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.write.Compression;
import java.math.BigDecimal;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Room in the client's byte budget is taken for a batch before it is unloaded, from the codec's size bound: the
 * message the batch then becomes is never larger than that bound, whatever its rows, size and compression (small
 * batches packed from their vectors, large ones kept in Arrow memory, buffers compressed or not, text that
 * compresses or does not), and the bound is not far above it for uncompressed batches.
 */
@SharesJvm
class ABatchMessageIsNeverLargerThanTheRoomTakenForItTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("bound")
            .addTag("host", DataType.String).addField("msg", DataType.String).addField("blob", DataType.Binary)
            .addField("ok", DataType.Bool).addField("i8", DataType.Int8).addField("i32", DataType.Int32)
            .addField("f32", DataType.Float32).addField("f64", DataType.Float64)
            .addField("dec", DataType.Decimal128).addField("day", DataType.Date)
            .addTimestamp("ts", DataType.TimestampMillisecond).build();

    @ParameterizedTest(name = "{0} rows, {1}, text of {2} chars, nulls {3}")
    @CsvSource({
        "1, None, 1, false", "1, Zstd, 1, true", "7, Lz4, 30, true", "1000, None, 12, false", "1000, Zstd, 12, true",
        "1000, Lz4, 200, false", "20000, None, 300, false", "20000, Zstd, 300, true", "20000, Lz4, 300, false",
        "3, None, 5000, true"})
    void theMessageFitsTheBoundTakenBeforeUnloading(int rows, Compression compression, int textChars,
                                                   boolean nulls) {
        try (BufferAllocator root = new RootAllocator()) {
            ArrowTableCodec codec = new ArrowTableCodec(SCHEMA, BulkWrite.Config.newBuilder().build(), compression,
                    root, DirectHandOff.NONE);
            TableBufferRoot batch = codec.rows(Math.min(rows, 4096),
                    SmallBatchesReachTheTransportWithoutAHeapCopyTest.NO_GUARD);
            Random random = new Random(rows * 31L + textChars);
            for (int round = 0; round < 2; round++) { // the second batch refills the vectors the first one left
                for (int r = 0; r < rows; r++) {
                    boolean nullRow = nulls && r % 5 == 3;
                    batch.addRow("h-" + (r % 17), nullRow ? null : text(random, textChars),
                            nullRow ? null : new byte[] {(byte) r, 1, 2}, r % 2 == 0, (byte) r, r, r * 0.5f,
                            r * 0.25, new BigDecimal(r).movePointLeft(2), 19_000 + r, 1_700_000_000_000L + r);
                }
                long bound = codec.sizeBound();
                BulkMessage m = codec.unload(Long.MAX_VALUE - round);
                try {
                    assertTrue(m.size() <= bound, "message of " + m.size() + " bytes over the bound " + bound);
                    if (compression == Compression.None) {
                        assertTrue(bound - m.size() <= 512 + 16L * 40, "bound " + bound + " for " + m.size()
                                + " bytes: room taken far beyond the message");
                    }
                } finally {
                    m.release();
                }
                assertEquals(0, codec.sizeBound(), "an emptied batch needs no room");
            }
            codec.closeRows();
            codec.close();
        }
    }

    /** Text that compresses (repeated) or not (random letters), by row. */
    private static String text(Random random, int chars) {
        StringBuilder sb = new StringBuilder(chars);
        boolean repeat = random.nextBoolean();
        for (int i = 0; i < chars; i++) {
            sb.append(repeat ? 'a' : (char) ('a' + random.nextInt(26)));
        }
        return sb.toString();
    }
}
