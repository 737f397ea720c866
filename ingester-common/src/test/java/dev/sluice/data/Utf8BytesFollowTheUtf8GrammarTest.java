package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link RowAppender#setUtf8} accepts exactly the byte sequences the JDK's strict UTF-8 decoder accepts (RFC 3629),
 * stores them as that decoder reads them, and names the byte that decoder stops at; the bytes around the slice never
 * count, so a sequence cut by the slice's end is refused even when the array goes on with continuation bytes.
 */
class Utf8BytesFollowTheUtf8GrammarTest {
    private static final TableSchema SCHEMA = TableSchema.newBuilder("grammar")
            .addField("s", DataType.String).addTimestamp("ts", DataType.TimestampMillisecond).build();
    private static final Pattern BYTE = Pattern.compile("byte (\\d+)");

    /** The JDK's verdict: the decoded text, or the index (within the slice) of the first malformed byte. */
    record Verdict(String text, int badAt) {
    }

    static Verdict jdk(byte[] a, int off, int len) {
        CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(a, off, len);
        CharBuffer out = CharBuffer.allocate(len * 2 + 4);
        CoderResult r = d.decode(in, out, true);
        if (r.isError()) {
            return new Verdict(null, in.position() - off);
        }
        r = d.flush(out);
        if (r.isError()) {
            return new Verdict(null, in.position() - off);
        }
        out.flip();
        return new Verdict(out.toString(), -1);
    }

    /** Sequences to try: every 1 and 2 byte sequence, and 3 and 4 byte ones around every boundary of the grammar. */
    static List<byte[]> sequences() {
        List<byte[]> all = new ArrayList<>();
        for (int a = 0; a < 256; a++) {
            all.add(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                all.add(new byte[] {(byte) a, (byte) b});
            }
        }
        int[] tails = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF};
        for (int a = 0xC0; a < 0x100; a++) {
            for (int b = 0; b < 256; b++) {
                for (int c : tails) {
                    all.add(new byte[] {(byte) a, (byte) b, (byte) c});
                }
            }
        }
        int[] cont = {0x7F, 0x80, 0xBF, 0xC0};
        for (int a = 0xF0; a < 0x100; a++) {
            for (int b = 0; b < 256; b++) {
                for (int c : cont) {
                    for (int e : cont) {
                        all.add(new byte[] {(byte) a, (byte) b, (byte) c, (byte) e});
                    }
                }
            }
        }
        // boundaries of each length, in context
        String[] edges = {"\u0000", "\u007F", "\u0080", "\u07FF", "\u0800", "\uD7FF", "\uE000", "\uFFFD", "\uFFFF",
                "\uD800\uDC00", "\uDBFF\uDFFF", "a\u00E9z", "\uD83D\uDE00!"};
        for (String s : edges) {
            all.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return all;
    }

    static String hex(byte[] a, int off, int len) {
        StringBuilder b = new StringBuilder();
        for (int i = off; i < off + len; i++) {
            b.append(String.format("%02X ", a[i] & 0xFF));
        }
        return b.toString().trim();
    }

    void check(int prefix, int filler) {
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        List<String> stored = new ArrayList<>();
        List<byte[]> storedBytes = new ArrayList<>();
        int mismatches = 0;
        StringBuilder first = new StringBuilder();
        for (byte[] seq : sequences()) {
            // the slice sits inside an array whose other bytes are filler (continuation bytes, say)
            byte[] arr = new byte[prefix + seq.length + 3];
            Arrays.fill(arr, (byte) filler);
            System.arraycopy(seq, 0, arr, prefix, seq.length);
            Verdict v = jdk(arr, prefix, seq.length);
            String got;
            try {
                a.setUtf8(0, arr, prefix, seq.length).setLong(1, stored.size()).endRow();
                got = "accepted";
                if (v.text() != null) {
                    stored.add(v.text());
                    storedBytes.add(seq);
                }
            } catch (InvalidDataException e) {
                Matcher m = BYTE.matcher(e.getMessage());
                got = m.find() ? "refused at " + m.group(1) : "refused without a byte: " + e.getMessage();
                assertEquals("s", e.column());
                assertEquals("grammar", e.table());
            }
            String want = v.text() != null ? "accepted" : "refused at " + v.badAt();
            if (!want.equals(got)) {
                if (got.equals("accepted")) {
                    stored.add(null); // keep the row list aligned with the table
                    storedBytes.add(seq);
                }
                if (mismatches++ < 15) {
                    first.append("\n  ").append(hex(arr, prefix, seq.length)).append(": want ").append(want)
                            .append(", got ").append(got);
                }
            }
        }
        assertEquals(0, mismatches, mismatches + " sequences judged unlike the JDK's strict decoder (slice at "
                + prefix + ", filler " + Integer.toHexString(filler) + "):" + first);
        assertEquals(stored.size(), t.rowCount());
        for (int r = 0; r < stored.size(); r++) {
            assertEquals(stored.get(r), t.column(0).getString(r), "row " + r);
            assertArrayEquals(storedBytes.get(r), t.column(0).getBytes(r), "row " + r);
        }
    }

    @Test
    void everySequenceIsJudgedAsTheStrictDecoderJudgesIt() {
        check(0, 0x41);
    }

    @Test
    void aSliceAmongContinuationBytesIsJudgedOnItsOwnBytes() {
        check(5, 0x80);
    }

    @Test
    void aSliceAmongLeadBytesIsJudgedOnItsOwnBytes() {
        check(3, 0xF0);
    }

    @Test
    void aValidTextCutInsideACharacterIsRefused() {
        String text = "a\u00E9\u20AC\uD83D\uDE00z";
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        Table t = Table.from(SCHEMA);
        RowAppender a = t.appender();
        int accepted = 0;
        for (int off = 0; off <= b.length; off++) {
            for (int len = 0; off + len <= b.length; len++) {
                Verdict v = jdk(b, off, len);
                boolean ok;
                try {
                    a.setUtf8(0, b, off, len).setLong(1, 0).endRow();
                    ok = true;
                } catch (InvalidDataException e) {
                    ok = false;
                }
                assertEquals(v.text() != null, ok, "slice " + off + "+" + len + " of " + hex(b, 0, b.length));
                if (ok) {
                    assertEquals(v.text(), t.column(0).getString(accepted++), "slice " + off + "+" + len);
                }
            }
        }
        assertTrue(accepted > 10);
    }

    @Test
    void theBadByteNamedIsTheFirstOneInALongValue() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 40_000; i++) {
            s.append(i % 3 == 0 ? "\u00E9" : i % 3 == 1 ? "\u65E5" : "\uD83D\uDE00");
        }
        byte[] good = s.toString().getBytes(StandardCharsets.UTF_8);
        for (int where : new int[] {0, 1, 2, 3, 4, 1000, good.length / 2, good.length - 4, good.length - 1}) {
            byte[] bad = good.clone();
            bad[where] = (byte) 0xFF;
            Verdict v = jdk(bad, 0, bad.length);
            try {
                Table.from(SCHEMA).appender().setUtf8(0, bad, 0, bad.length);
                fail("accepted a value with 0xFF at " + where);
            } catch (InvalidDataException e) {
                Matcher m = BYTE.matcher(e.getMessage());
                assertTrue(m.find(), e.getMessage());
                assertEquals(v.badAt(), Integer.parseInt(m.group(1)), "0xFF at " + where + ": " + e.getMessage());
            }
        }
    }
}
