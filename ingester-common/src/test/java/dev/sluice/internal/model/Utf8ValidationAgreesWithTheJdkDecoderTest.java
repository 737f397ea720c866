package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The UTF-8 check accepts exactly what the JDK's strict decoder accepts: every one-, two- and three-byte sequence,
 * a spread of four-byte ones, and sequences at every position around the eight-byte ASCII steps.
 */
class Utf8ValidationAgreesWithTheJdkDecoderTest {
    private final CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    private final CharBuffer out = CharBuffer.allocate(16);

    private boolean jdkAccepts(byte[] b, int off, int len) {
        ByteBuffer in = ByteBuffer.wrap(b, off, len);
        out.clear();
        CharBuffer target = len <= 8 ? out : CharBuffer.allocate(len);
        CoderResult r = strict.reset().decode(in, target, true);
        return !r.isError() && !strict.flush(target).isError() && !in.hasRemaining();
    }

    private void agree(byte[] b, int off, int len) {
        assertEquals(jdkAccepts(b, off, len), Utf8.malformedAt(b, off, len) < 0, () -> hex(b, off, len));
    }

    private static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = off; i < off + len; i++) {
            sb.append(String.format("%02X ", b[i] & 0xFF));
        }
        return sb.toString();
    }

    @Test
    void everySequenceOfUpToThreeBytes() {
        byte[] one = new byte[1];
        for (int a = 0; a < 256; a++) {
            one[0] = (byte) a;
            agree(one, 0, 1);
        }
        byte[] two = new byte[2];
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                two[0] = (byte) a;
                two[1] = (byte) b;
                agree(two, 0, 2);
            }
        }
        byte[] three = new byte[3];
        for (int a = 0xE0; a < 256; a++) { // the leads of three-byte sequences and beyond; shorter ones are above
            for (int b = 0; b < 256; b++) {
                for (int c = 0; c < 256; c++) {
                    three[0] = (byte) a;
                    three[1] = (byte) b;
                    three[2] = (byte) c;
                    agree(three, 0, 3);
                }
            }
        }
    }

    @Test
    void fourByteSequencesAroundEveryBoundary() {
        int[] edges = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0, 0xFF};
        byte[] four = new byte[4];
        for (int a = 0xE0; a < 256; a++) {
            for (int b : edges) {
                for (int c : edges) {
                    for (int d : edges) {
                        four[0] = (byte) a;
                        four[1] = (byte) b;
                        four[2] = (byte) c;
                        four[3] = (byte) d;
                        agree(four, 0, 4);
                    }
                }
            }
        }
        Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            four[0] = (byte) (0xF0 + random.nextInt(16));
            four[1] = (byte) random.nextInt(256);
            four[2] = (byte) (0x80 + random.nextInt(64));
            four[3] = (byte) (0x80 + random.nextInt(64));
            agree(four, 0, 4);
        }
    }

    @Test
    void aSequenceAnywhereInAnAsciiRunIsFoundAndPlaced() {
        byte[][] bad = {{(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90,
                (byte) 0x80, (byte) 0x80}, {(byte) 0x80}, {(byte) 0xE2, (byte) 0x82}};
        byte[][] good = {{(byte) 0xC3, (byte) 0xA9}, {(byte) 0xE2, (byte) 0x82, (byte) 0xAC}, {(byte) 0xF0, (byte) 0x9F,
                (byte) 0x98, (byte) 0x80}};
        for (int len = 0; len < 40; len++) {
            for (int at = 0; at <= len; at++) {
                for (byte[] seq : bad) {
                    byte[] b = withAt(len, at, seq);
                    agree(b, 3, len + seq.length);
                    assertEquals(at, Utf8.malformedAt(b, 3, len + seq.length), () -> hex(b, 3, b.length - 6));
                }
                for (byte[] seq : good) {
                    byte[] b = withAt(len, at, seq);
                    assertEquals(-1, Utf8.malformedAt(b, 3, len + seq.length), () -> hex(b, 3, b.length - 6));
                }
            }
        }
    }

    @Test
    void aSequenceCutByTheEndOfTheTextIsMalformedEvenWhenTheArrayGoesOn() {
        byte[] b = {'a', (byte) 0xE2, (byte) 0x82, (byte) 0xAC, 'b'};
        assertEquals(-1, Utf8.malformedAt(b, 0, 4));
        assertEquals(1, Utf8.malformedAt(b, 0, 3));
        assertEquals(1, Utf8.malformedAt(b, 0, 2));
        assertEquals(0, Utf8.malformedAt(b, 2, 3));
    }

    /** ASCII 'x' around {@code seq}, which starts {@code at} bytes into a text of {@code len} ASCII bytes, 3 bytes in. */
    private static byte[] withAt(int len, int at, byte[] seq) {
        byte[] b = new byte[len + seq.length + 6];
        java.util.Arrays.fill(b, (byte) 'x');
        b[0] = (byte) 0xFF; // bytes outside the text are never looked at
        b[b.length - 1] = (byte) 0xFF;
        System.arraycopy(seq, 0, b, 3 + at, seq.length);
        return b;
    }
}
