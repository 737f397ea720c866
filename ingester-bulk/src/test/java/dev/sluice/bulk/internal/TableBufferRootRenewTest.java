package dev.sluice.bulk.internal;

import dev.sluice.SharesJvm;
import dev.sluice.bulk.BulkWriteException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.data.DataType;
import dev.sluice.data.TableSchema;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.junit.jupiter.api.Test;

@SharesJvm
class TableBufferRootRenewTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("renew")
            .addTimestamp("ts", DataType.TimestampMillisecond).addField("msg", DataType.String).build();

    private static final ArrowTableBufferRoot.Guard NO_GUARD = new ArrowTableBufferRoot.Guard() {
        @Override
        public void enter() {
        }

        @Override
        public void exit(int rows) {
        }
    };

    private static String text(int i) {
        return "message " + i + " " + "x".repeat(100);
    }

    @Test
    void aRenewedBatchHoldsNoBuffersUntilItsNextRowAndThenFillsLikeANewOne() {
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, allocator, 1_000, Long.MAX_VALUE, NO_GUARD);
            for (int i = 0; i < 1_000; i++) {
                root.addRow((long) i, text(i));
            }
            ArrowRecordBatch sent = root.unload(null);
            long sentBytes = allocator.getAllocatedMemory();
            assertTrue(root.renew());
            // The unloaded batch keeps its buffers; the emptied vectors hold nothing yet (Arrow keeps a text vector's
            // first 4-byte offset).
            assertTrue(allocator.getAllocatedMemory() - sentBytes < 64, "held after renew: "
                    + (allocator.getAllocatedMemory() - sentBytes));
            assertEquals(0, root.rowCount());

            root.appender().setLong(0, 5_000L).setString(1, text(5_000)).endRow();
            root.addRow(5_001L, text(5_001));
            assertTrue(allocator.getAllocatedMemory() > sentBytes);
            assertEquals(2, root.rowCount());
            root.complete();
            TimeStampMilliVector ts = (TimeStampMilliVector) root.vector(0);
            VarCharVector msg = (VarCharVector) root.vector(1);
            assertEquals(5_001L, ts.get(1));
            assertEquals(text(5_000), new String(msg.get(0), java.nio.charset.StandardCharsets.UTF_8));
            // Room for a batch as large as the last, so the next one does not grow its buffers.
            assertTrue(msg.getValueCapacity() >= 1_000);
            assertTrue(msg.getDataBuffer().capacity() >= 1_000L * text(999).length());
            sent.close();
            root.close();
        }
    }

    @Test
    void aRenewedBatchThatIsResetOrSentEmptyStaysUsable() {
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, allocator, 16, Long.MAX_VALUE, NO_GUARD);
            root.addRow(1L, "a");
            ArrowRecordBatch sent = root.unload(null);
            assertTrue(root.renew());
            sent.close();
            root.reset();
            root.addRow(2L, "b");
            assertEquals(1, root.rowCount());
            root.close();
            assertEquals(0, allocator.getAllocatedMemory());
        }
    }

    @Test
    void aRenewalWithNoRoomLeftFailsTheNextRowAsOverTheCapAndTheRowAfterMayTryAgain() {
        try (BufferAllocator allocator = ArrowSupport.newRoot(Long.MAX_VALUE, 0)) {
            BufferAllocator capped = allocator.newChildAllocator("capped", 0, 600_000);
            ArrowTableBufferRoot root = new ArrowTableBufferRoot(SCHEMA, capped, 1_000, 600_000, NO_GUARD);
            for (int i = 0; i < 1_000; i++) {
                root.addRow((long) i, text(i));
            }
            ArrowRecordBatch sent = root.unload(null);
            assertTrue(root.renew());
            // Something else takes the room renew() saw, so the deferred buffers no longer fit.
            org.apache.arrow.memory.ArrowBuf other = capped.buffer(256 * 1024);
            org.apache.arrow.memory.ArrowBuf more = capped.buffer(128 * 1024);
            assertThrows(BulkWriteException.class, () -> root.addRow(1L, "late"));
            assertEquals(0, root.rowCount());
            other.close();
            more.close();
            root.addRow(2L, "now");
            assertEquals(1, root.rowCount());
            sent.close();
            root.close();
            capped.close();
        }
    }
}
