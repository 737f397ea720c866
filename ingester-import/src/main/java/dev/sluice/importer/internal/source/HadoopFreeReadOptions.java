package dev.sluice.importer.internal.source;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetMetricsCallback;

/**
 * Makes parquet-java's read options without Hadoop. {@link ParquetReadOptions.Builder}'s constructor always creates
 * parquet-java's default codec factory, whose class needs Hadoop's compression classes to load, even when another
 * factory is given afterwards; so the options are made through the package-private constructor the builder itself
 * calls, reached with a private lookup (the import runs on the class path, where parquet-java's packages are open),
 * with the builder's defaults and the given codec factory. Checked against parquet-java 1.18.1 (the version the build
 * pins): a version without that constructor fails here with a message naming it, and the Parquet import tests fail.
 */
public final class HadoopFreeReadOptions {
    private static final MethodHandle CREATE = constructor();

    private HadoopFreeReadOptions() {
    }

    private static MethodHandle constructor() {
        MethodType type = MethodType.methodType(void.class, new Class<?>[] {boolean.class, boolean.class,
                boolean.class, boolean.class, boolean.class, boolean.class, boolean.class, boolean.class,
                boolean.class, FilterCompat.Filter.class, ParquetMetadataConverter.MetadataFilter.class,
                CompressionCodecFactory.class, ByteBufferAllocator.class, int.class, Map.class,
                FileDecryptionProperties.class, ParquetMetricsCallback.class, ParquetConfiguration.class});
        try {
            return MethodHandles.privateLookupIn(ParquetReadOptions.class, MethodHandles.lookup())
                    .findConstructor(ParquetReadOptions.class, type);
        } catch (ReflectiveOperationException | IllegalAccessError | SecurityException e) {
            throw new IllegalStateException("parquet-java's ParquetReadOptions has no constructor " + type
                    + " (the import is built against parquet-java 1.18.1): use that version on the class path", e);
        }
    }

    /**
     * Returns read options with parquet-java's defaults and the given page codecs.
     *
     * @param codecs the page decompressors
     * @return the options
     */
    public static ParquetReadOptions of(CompressionCodecFactory codecs) {
        try {
            return (ParquetReadOptions) CREATE.invoke(false, true, true, true, true, false, true, false, false,
                    FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, codecs, new HeapByteBufferAllocator(),
                    8 * 1024 * 1024, new HashMap<String, String>(), (FileDecryptionProperties) null,
                    (ParquetMetricsCallback) null, new PlainParquetConfiguration());
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("parquet-java's read options could not be made: " + e, e);
        }
    }
}
