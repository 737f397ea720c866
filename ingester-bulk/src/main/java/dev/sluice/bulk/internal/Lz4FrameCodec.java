package dev.sluice.bulk.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC's LZ4_FRAME buffer compression with lz4-java: each buffer becomes one standard LZ4 frame (independent
 * blocks of up to 4 MiB, content checksum, no dictionary), which any LZ4 frame decoder reads. Arrow's
 * {@link AbstractCompressionCodec} adds the uncompressed length before the frame and sends a buffer as it is when
 * compressing does not make it smaller.
 *
 * <p>Only lz4-java's pure Java implementations are used, never its native library: the connectors' shaded jars
 * move its package, which would break the native library's bindings, and the Java ones need nothing loaded.
 */
final class Lz4FrameCodec extends AbstractCompressionCodec {
    /** The one instance: the codec keeps no state between buffers. */
    static final Lz4FrameCodec INSTANCE = new Lz4FrameCodec();
    private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();
    private static final XXHashFactory XXHASH = XXHashFactory.fastestJavaInstance();
    private static final int PREFIX = (int) CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;

    private Lz4FrameCodec() {
    }

    @Override
    public CompressionUtil.CodecType getCodecType() {
        return CompressionUtil.CodecType.LZ4_FRAME;
    }

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
        byte[] in = bytes(uncompressed, 0, "compress");
        ByteArrayOutputStream frame = new ByteArrayOutputStream(in.length / 2 + 64);
        try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(frame, blockSize(in.length), in.length, LZ4.fastCompressor(), XXHASH.hash32(),
                LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE, LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM)) {
            out.write(in);
        } catch (IOException e) {
            throw new UncheckedIOException("LZ4 compression of an Arrow buffer of " + in.length + " bytes failed", e);
        }
        byte[] out = frame.toByteArray();
        ArrowBuf compressed = allocator.buffer(PREFIX + (long) out.length);
        compressed.setBytes(PREFIX, out);
        compressed.writerIndex(PREFIX + (long) out.length);
        return compressed;
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
        long length = readUncompressedLength(compressed);
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("an LZ4 compressed Arrow buffer announces " + length
                    + " bytes, more than a Java array holds");
        }
        byte[] in = bytes(compressed, PREFIX, "decompress");
        byte[] out = new byte[(int) length];
        try (InputStream frame = new LZ4FrameInputStream(new ByteArrayInputStream(in), LZ4.safeDecompressor(),
                XXHASH.hash32())) {
            int n = frame.readNBytes(out, 0, out.length);
            if (n != out.length || frame.read() != -1) {
                throw new IllegalArgumentException("an LZ4 compressed Arrow buffer announces " + length
                        + " bytes but its frame holds " + (n == out.length ? "more" : n));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("an LZ4 compressed Arrow buffer is not a valid LZ4 frame", e);
        }
        ArrowBuf decompressed = allocator.buffer(length);
        decompressed.setBytes(0, out);
        decompressed.writerIndex(length);
        return decompressed;
    }

    /**
     * The smallest block size that holds the whole buffer, at most 4 MiB: the stream allocates two arrays of the block
     * size, which for a small buffer (validity bits, offsets) would cost more than compressing it.
     */
    private static LZ4FrameOutputStream.BLOCKSIZE blockSize(int length) {
        for (LZ4FrameOutputStream.BLOCKSIZE size : LZ4FrameOutputStream.BLOCKSIZE.values()) {
            if (length <= 1 << (8 + 2 * size.getIndicator())) {
                return size;
            }
        }
        return LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB;
    }

    private static byte[] bytes(ArrowBuf buf, int from, String what) {
        long size = buf.writerIndex() - from;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("cannot " + what + " an Arrow buffer of " + size
                    + " bytes with LZ4: more than a Java array holds");
        }
        byte[] bytes = new byte[(int) size];
        buf.getBytes(from, bytes);
        return bytes;
    }
}
