package dev.sluice.bulk.internal;

import dev.sluice.write.Compression;
import dev.sluice.data.TableSchema;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;

/**
 * Opens bulk writers for the client without a public constructor that takes internal types:
 * {@link BulkStreamWriter} hands its (private) constructor to this class when it is initialised.
 */
public final class BulkAccess {
    /** Creates a writer; implemented by {@link BulkStreamWriter}'s private constructor. */
    @FunctionalInterface
    public interface Opener {
        /**
         * Opens a writer.
         *
         * @param schema the table's schema
         * @param config writer settings
         * @param compression None, Zstd, Lz4 or Gzip
         * @param transport what the writer borrows from its client
         * @return the writer
         */
        BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Compression compression, BulkTransport transport);
    }

    private static volatile Opener opener;

    private BulkAccess() {
    }

    /**
     * Called once, from {@link BulkStreamWriter}'s static initialiser.
     *
     * @param o the constructor
     */
    public static void register(Opener o) {
        if (opener == null) {
            opener = o;
        }
    }

    /**
     * Opens a writer on the client's transport.
     *
     * @param schema the table's schema
     * @param config writer settings
     * @param compression None, Zstd, Lz4 or Gzip
     * @param transport what the writer borrows from its client
     * @return the writer
     */
    public static BulkStreamWriter open(TableSchema schema, BulkWrite.Config config, Compression compression,
                                        BulkTransport transport) {
        if (opener == null) {
            try {
                Class.forName(BulkStreamWriter.class.getName(), true, BulkStreamWriter.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return opener.open(schema, config, compression, transport);
    }
}
