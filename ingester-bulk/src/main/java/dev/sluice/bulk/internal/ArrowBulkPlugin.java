package dev.sluice.bulk.internal;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.send.BulkHost;
import dev.sluice.internal.send.BulkPlugin;
import dev.sluice.internal.send.BulkWriters;
import dev.sluice.write.Compression;
import dev.sluice.write.RetryPolicy;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Plugs Arrow Flight bulk writers into the client: the service {@code GreptimeDB.bulkStreamWriter} finds
 * ({@code provides} in this module's descriptor, {@code META-INF/services} on the class path).
 */
public final class ArrowBulkPlugin implements BulkPlugin {
    /** Creates the plugin; the service loader calls this, and it loads no Arrow class. */
    public ArrowBulkPlugin() {
    }

    @Override
    public void check() {
        ArrowSupport.check();
    }

    @Override
    public BulkWriters attach(BulkHost host) {
        return new ClientWriters(host);
    }

    /** One client's bulk writers and their Arrow root allocator, with its reuse cache. */
    private static final class ClientWriters implements BulkWriters {
        private final BulkHost host;
        private final BufferAllocator root;
        /** Writers not closed yet: a shutdown fails what they still wait for. */
        private final java.util.Set<ArrowBulkWriter> open = java.util.concurrent.ConcurrentHashMap.newKeySet();

        ClientWriters(BulkHost host) {
            this.host = host;
            this.root = ArrowSupport.clientRoot(host.bufferCache().bulkBytes(), host.bufferCache().idle().toNanos());
        }

        @Override
        public BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Compression compression,
                                     RetryPolicy policy, boolean appendMode) {
            ArrowBulkWriter w = new ArrowBulkWriter(schema, config, compression, policy, appendMode, host, root,
                    open::remove);
            open.add(w);
            return w;
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
        public void failUnanswered(String why) {
            for (ArrowBulkWriter w : open) {
                w.failUnanswered(why);
            }
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
