package dev.sluice.importer.internal.source;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/**
 * Snappy pages read through the native library give the bytes the pure-Java decoder gives, and a damaged page is an
 * error naming the page, not a crash or a short page.
 */
class SnappyPagesDecodeAlikeNativeAndPureJavaTest {
    private static byte[] compress(byte[] page) {
        SnappyCompressor c = new SnappyCompressor();
        byte[] out = new byte[c.maxCompressedLength(page.length)];
        int n = c.compress(page, 0, page.length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    private static byte[] pureJava(byte[] compressed, int size) {
        byte[] out = new byte[size];
        new SnappyDecompressor().decompress(compressed, 0, compressed.length, out, 0, size);
        return out;
    }

    private static byte[] pages(byte[] compressed, int size) throws IOException {
        BytesInputDecompressor d = new ParquetCodecs().getDecompressor(CompressionCodecName.SNAPPY);
        return d.decompress(BytesInput.from(compressed), size).toByteArray();
    }

    @Test
    void theNativeLibraryLoadsOnThisPlatform() {
        assertTrue(ParquetCodecs.NativeSnappy.AVAILABLE, "snappy-java's native library did not load on "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
    }

    @Test
    void pagesOfTextNumbersAndNoiseDecodeToTheSameBytes() throws IOException {
        Random random = new Random(11);
        StringBuilder text = new StringBuilder();
        while (text.length() < 300_000) {
            text.append("[INFO] request ").append(random.nextInt(1000)).append(" served by worker ")
                    .append(random.nextInt(64)).append(" in ").append(random.nextDouble()).append(" ms é€\n");
        }
        byte[] noise = new byte[70_000];
        random.nextBytes(noise);
        byte[] numbers = new byte[80_000];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = (byte) (i % 7 == 0 ? random.nextInt(256) : 0);
        }
        for (byte[] page : new byte[][] {text.toString().getBytes(StandardCharsets.UTF_8), noise, numbers, new byte[0],
                {42}}) {
            byte[] c = compress(page);
            assertArrayEquals(pureJava(c, page.length), pages(c, page.length));
            assertArrayEquals(page, pages(c, page.length));
        }
    }

    @Test
    void aDamagedPageIsAnErrorThatSaysSo() {
        byte[] page = "some page text that repeats, some page text that repeats".repeat(50)
                .getBytes(StandardCharsets.UTF_8);
        byte[] c = compress(page);
        IOException cut = assertThrows(IOException.class, () -> pages(Arrays.copyOf(c, c.length / 2), page.length));
        assertTrue(cut.getMessage().contains("cannot be decompressed") || cut.getMessage().contains("damaged"),
                cut.getMessage());
        IOException size = assertThrows(IOException.class, () -> pages(c, page.length + 10));
        assertTrue(size.getMessage().contains("the file is damaged"), size.getMessage());
    }
}
