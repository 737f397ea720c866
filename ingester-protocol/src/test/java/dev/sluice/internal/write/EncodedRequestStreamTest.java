package dev.sluice.internal.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.WriteOp;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EncodedRequestStreamTest {
    private static byte[] drained(RequestEncoder e) throws Exception {
        ByteArrayOutputStream target = new ByteArrayOutputStream();
        int n = new EncodedRequestStream(e).drainTo(target);
        assertEquals(e.size(), n, "drainTo reports the request's size");
        return target.toByteArray();
    }

    @Test
    void smallRequestsFromPooledArraysAndLargeStreamedOnesCarryTheGeneratedBuildersBytes() throws Exception {
        Table small = RequestEncoderTest.randomTable(3, 40);
        TableSchema s = TableSchema.newBuilder("big").addField("msg", DataType.String)
                .addTimestamp("ts", DataType.TimestampMillisecond).build();
        Table large = Table.from(s);
        for (int i = 0; i < 300; i++) {
            large.addRow(("row " + i + " ").repeat(700), (long) i);
        }
        for (Table t : List.of(small, large)) {
            for (WriteOp op : WriteOp.values()) {
                RequestEncoder e = new RequestEncoder(RequestEncoderTest.HEADER, op, List.of(t));
                assertArrayEquals(RequestEncoderTest.viaBuilders(t, op).toByteArray(), drained(e),
                        op + " of " + e.size() + " bytes");
            }
        }
        assertTrue(new RequestEncoder(RequestEncoderTest.HEADER, WriteOp.Insert, List.of(large)).size()
                > EncodeBuffers.LARGEST_POOLED, "the large request takes the streamed path");
    }

    @Test
    void requestsDrainedFromManyThreadsAtOnceEachCarryTheirOwnBytes() throws Exception {
        // More threads than pooled arrays, requests of different sizes: an array handed to two drains at once,
        // or given back while still in use, would mix their bytes.
        List<Table> tables = new ArrayList<>();
        List<byte[]> expected = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            Table t = RequestEncoderTest.randomTable(1_000 + i, 20 + 37 * i);
            tables.add(t);
            expected.add(RequestEncoderTest.viaBuilders(t, WriteOp.Insert).toByteArray());
        }
        ExecutorService pool = Executors.newFixedThreadPool(EncodeBuffers.SLOTS + 4);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int w = 0; w < EncodeBuffers.SLOTS + 4; w++) {
                int worker = w;
                runs.add(pool.submit(() -> {
                    int checked = 0;
                    for (int k = 0; k < 60; k++) {
                        int i = (worker * 7 + k) % tables.size();
                        RequestEncoder e = new RequestEncoder(RequestEncoderTest.HEADER, WriteOp.Insert, List.of(tables.get(i)));
                        assertArrayEquals(expected.get(i), drained(e), "table " + i);
                        checked++;
                    }
                    return checked;
                }));
            }
            int total = 0;
            for (Future<Integer> f : runs) {
                total += f.get(2, TimeUnit.MINUTES);
            }
            assertEquals((EncodeBuffers.SLOTS + 4) * 60, total);
        } finally {
            pool.shutdownNow();
        }
    }
}
