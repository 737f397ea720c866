package org.apache.parquet;

import java.util.HashMap;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;

/**
 * Makes parquet-java's read options without Hadoop. {@link ParquetReadOptions.Builder}'s constructor always creates
 * parquet-java's default codec factory, whose class needs Hadoop's compression classes to load, even when another
 * factory is given afterwards; so the options are built here, in their package, through the constructor the
 * builder uses, with the builder's defaults and the given codec factory. Checked against parquet-java 1.18.1
 * (the version the build pins); the tests that import Parquet files fail if a new version changes it.
 */
public final class HadoopFreeReadOptions {
    private HadoopFreeReadOptions() {
    }

    /**
     * Returns read options with parquet-java's defaults and the given page codecs.
     *
     * @param codecs the page decompressors
     * @return the options
     */
    public static ParquetReadOptions of(CompressionCodecFactory codecs) {
        return new ParquetReadOptions(false, true, true, true, true, false, true, false, false, FilterCompat.NOOP,
                ParquetMetadataConverter.NO_FILTER, codecs, new HeapByteBufferAllocator(), 8 * 1024 * 1024,
                new HashMap<>(), null, null, new PlainParquetConfiguration());
    }
}
