package dev.sluice.importer.internal.source;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.Compressor;
import io.airlift.compress.Decompressor;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Parquet page compression without Hadoop's codec classes: uncompressed, Snappy and LZ4_RAW (aircompressor, pure
 * Java), GZIP (the JDK) and ZSTD (zstd-jni, which the client already uses). parquet-java's own codec factory
 * creates Hadoop codecs, so the reader is given this one.
 */
public final class ParquetCodecs implements CompressionCodecFactory {
    /** The codecs this factory reads and writes. */
    public static final String SUPPORTED = "UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW";

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return new Codec(codec);
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return new Codec(codec);
    }

    @Override
    public void release() {
        // nothing pooled
    }

    /**
     * Decompresses Snappy pages with snappy-java's native library: two to three times the pure-Java decoder's speed,
     * which text-heavy files spend most of their reading on. Where the library cannot load (a platform it has no
     * build for, a temporary directory that cannot hold it), or with {@code -Dsluice.import.pureJavaSnappy=true},
     * pages go through aircompressor's decoder instead.
     */
    static final class NativeSnappy {
        /** Whether the native library loaded. */
        static final boolean AVAILABLE = load();

        private NativeSnappy() {
        }

        /**
         * Tells whether the native library loaded, loading it on the first call.
         *
         * @return {@link #AVAILABLE}
         */
        static boolean available() {
            return AVAILABLE;
        }

        private static boolean load() {
            if (Boolean.getBoolean("sluice.import.pureJavaSnappy")) {
                return false;
            }
            try {
                return org.xerial.snappy.Snappy.isValidCompressedBuffer(new byte[] {0}, 0, 1);
            } catch (Throwable e) { // UnsatisfiedLinkError, SnappyError, ExceptionInInitializerError
                return false;
            }
        }

        static int uncompress(byte[] in, int off, int len, byte[] out) throws IOException {
            try {
                int need = org.xerial.snappy.Snappy.uncompressedLength(in, off, len);
                if (need != out.length) {
                    return need; // reported by the caller as a damaged page
                }
                return org.xerial.snappy.Snappy.uncompress(in, off, len, out, 0);
            } catch (IOException | RuntimeException e) {
                throw new IOException("a page cannot be decompressed: " + e.getMessage(), e);
            }
        }
    }

    private static final class Codec implements BytesInputCompressor, BytesInputDecompressor {
        private final CompressionCodecName name;

        Codec(CompressionCodecName name) {
            switch (name) {
                case UNCOMPRESSED: case SNAPPY: case GZIP: case ZSTD: case LZ4_RAW:
                    break;
                default:
                    throw new UnsupportedOperationException("Parquet pages compressed with " + name + " cannot be read"
                            + " (supported: " + SUPPORTED + "); rewrite the file with one of those codecs");
            }
            this.name = name;
        }

        @Override
        public CompressionCodecName getCodecName() {
            return name;
        }

        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            byte[] in = bytes.toByteArray();
            switch (name) {
                case UNCOMPRESSED:
                    return BytesInput.from(in);
                case SNAPPY:
                    return block(new SnappyCompressor(), in);
                case LZ4_RAW:
                    return block(new Lz4Compressor(), in);
                case ZSTD:
                    return BytesInput.from(Zstd.compress(in));
                default: {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                        gz.write(in);
                    }
                    return BytesInput.from(out.toByteArray());
                }
            }
        }

        private static BytesInput block(Compressor c, byte[] in) {
            byte[] out = new byte[c.maxCompressedLength(in.length)];
            int n = c.compress(in, 0, in.length, out, 0, out.length);
            return BytesInput.from(out, 0, n);
        }

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            if (name == CompressionCodecName.UNCOMPRESSED) {
                return bytes;
            }
            byte[] in = bytes.toByteArray();
            byte[] out = new byte[uncompressedSize];
            decompress(in, 0, in.length, out);
            return BytesInput.from(out);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.duplicate().get(in);
            byte[] out = new byte[uncompressedSize];
            if (name == CompressionCodecName.UNCOMPRESSED) {
                out = in;
            } else {
                decompress(in, 0, in.length, out);
            }
            output.put(out, 0, uncompressedSize);
            output.flip();
        }

        private void decompress(byte[] in, int off, int len, byte[] out) throws IOException {
            int n;
            switch (name) {
                case SNAPPY:
                    n = NativeSnappy.AVAILABLE ? NativeSnappy.uncompress(in, off, len, out)
                            : block(new SnappyDecompressor(), in, off, len, out);
                    break;
                case LZ4_RAW:
                    n = block(new Lz4Decompressor(), in, off, len, out);
                    break;
                case ZSTD: {
                    long r = Zstd.decompressByteArray(out, 0, out.length, in, off, len);
                    if (Zstd.isError(r)) {
                        throw new IOException("a ZSTD page cannot be decompressed: " + Zstd.getErrorName(r));
                    }
                    n = (int) r;
                    break;
                }
                default:
                    try (InputStream gz = new GZIPInputStream(new java.io.ByteArrayInputStream(in, off, len))) {
                        n = gz.readNBytes(out, 0, out.length);
                    }
                    break;
            }
            if (n != out.length) {
                throw new IOException("a " + name + " page decompressed to " + n + " bytes, its header says "
                        + out.length + ": the file is damaged");
            }
        }

        private static int block(Decompressor d, byte[] in, int off, int len, byte[] out) throws IOException {
            try {
                return d.decompress(in, off, len, out, 0, out.length);
            } catch (RuntimeException e) {
                throw new IOException("a page cannot be decompressed: " + e.getMessage(), e);
            }
        }

        @Override
        public void release() {
            // nothing pooled
        }
    }
}
