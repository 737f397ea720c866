package dev.sluice.bulk.internal;

import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
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
