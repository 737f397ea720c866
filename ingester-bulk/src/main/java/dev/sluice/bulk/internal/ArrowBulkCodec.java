package dev.sluice.bulk.internal;

import dev.sluice.BufferCache;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.bulk.spi.BulkAnswer;
import dev.sluice.internal.bulk.spi.BulkCodec;
import dev.sluice.internal.bulk.spi.BulkMemory;
import dev.sluice.internal.bulk.spi.BulkMessage;
import dev.sluice.internal.bulk.spi.DirectHandOff;
import dev.sluice.internal.bulk.spi.TableCodec;
import dev.sluice.write.Compression;
import io.grpc.MethodDescriptor;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The Arrow Flight bulk codec: the service {@code GreptimeDB.bulkStreamWriter} finds ({@code provides} in this
 * module's descriptor, {@code META-INF/services} on the class path).
 */
public final class ArrowBulkCodec implements BulkCodec {
    /** Creates the codec; the service loader calls this, and it loads no Arrow class. */
    public ArrowBulkCodec() {
    }

    @Override
    public void check() {
        ArrowSupport.check();
    }

    @Override
    public BulkMemory attach(BufferCache cache, ScheduledExecutorService timer, DirectHandOff handOff) {
        return new ClientMemory(cache, timer, handOff);
    }

    /** One client's Arrow root allocator, with its reuse cache. */
    private static final class ClientMemory implements BulkMemory {
        private final BufferAllocator root;
        private final DirectHandOff handOff;

        ClientMemory(BufferCache cache, ScheduledExecutorService timer, DirectHandOff handOff) {
            this.root = ArrowSupport.clientRoot(cache.bulkBytes(), cache.idle().toNanos(), timer);
            this.handOff = handOff;
        }

        @Override
        public MethodDescriptor<BulkMessage, BulkAnswer> method() {
            return FlightMessages.DO_PUT;
        }

        @Override
        public TableCodec open(TableSchema schema, BulkWrite.Config config, Compression compression) {
            return new ArrowTableCodec(schema, config, compression, root, handOff);
        }

        @Override
        public void prepare() {
            // A batch of one row with a column of every type, on memory of its own freed before returning: the
            // classes the first writer would load while its caller waits.
            TableSchema every = everyType();
            try (BufferAllocator memory = root.newChildAllocator("prepare", 0, Long.MAX_VALUE)) {
                ArrowTableBufferRoot batch = new ArrowTableBufferRoot(every, memory, 1, Long.MAX_VALUE,
                        ArrowTableBufferRoot.Guard.NONE);
                try {
                    batch.appender().setString(0, "").setLong(1, 0L).endRow();
                    FlightMessages.schemaHeader(ArrowTypes.fields(every));
                    batch.unload(null).close();
                    BulkMessage packed = FlightMessages.packedMessage(batch.completedVectors(), batch.rowCount(), 0,
                            Long.MAX_VALUE, memory::buffer, ArrowBuf::close, DirectHandOff.NONE);
                    if (packed != null) {
                        packed.release();
                    }
                } finally {
                    batch.close();
                }
            }
        }

        private static TableSchema everyType() {
            TableSchema.Builder b = TableSchema.newBuilder("prepare").addTag("tag", DataType.String)
                    .addTimestamp("ts", DataType.TimestampMillisecond);
            for (DataType t : DataType.values()) {
                if (dev.sluice.BatchingWriter.Path.Bulk.carries(t)) {
                    b.addColumn("f_" + t.name(), SemanticType.Field, t);
                }
            }
            return b.build();
        }

        @Override
        public long allocatedBytes() {
            return root.getAllocatedMemory();
        }

        @Override
        public void trim() {
            ArrowSupport.trimCache(root);
        }
    }
}
