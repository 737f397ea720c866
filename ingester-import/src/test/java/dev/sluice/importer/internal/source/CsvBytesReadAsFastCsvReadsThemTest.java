package dev.sluice.importer.internal.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * CSV read from its UTF-8 bytes gives the records FastCSV gives of the same input: every field's text, whether it was
 * quoted, the line each record starts on, a quote left open at the end, and the error after a closing quote. Inputs
 * mix quoted values with doubled quotes and line breaks, CR LF, lone CRs, empty and comment lines, a byte order mark,
 * non-ASCII text and bytes that are not UTF-8, and arrive in pieces of a few bytes into a small buffer, so records
 * straddle every refill.
 * Inputs of fewer than 4 bytes are left out (FastCSV 4.1.0 reads NULs for them), and so are lone CRs inside quotes
 * (FastCSV 4.1.0 drops such a value when a line break follows its closing quote): their reading is checked on its own.
 */
class CsvBytesReadAsFastCsvReadsThemTest {
    private static final String[] TOKENS = {"a", "bc", "1.5", "-0.0", "é", "日本", ",", ",", ",", "\"", "\"\"", "\n",
        "\n", "\r\n", "#", " ", "x\"y", "\t", "NaN"};

    /** A record as the test compares it: fields, quoted flags, line. */
    private static String describe(CsvSource.Row r) {
        StringBuilder sb = new StringBuilder("line ").append(r.line()).append(':');
        for (int i = 0; i < r.count(); i++) {
            sb.append(" [").append(r.quoted()[i] ? "q:" : "").append(r.field(i)).append(']');
        }
        return sb.toString();
    }

    /** The records, the last record's open quote, and the error, as the reader gives them. */
    private record Reading(List<String> records, boolean unclosed, String error) {
    }

    private static Reading read(CsvSource.Rows rows) {
        List<String> out = new ArrayList<>();
        boolean unclosed = false;
        try (rows) {
            CsvSource.Row r;
            while ((r = rows.next()) != null) {
                out.add(describe(r));
                unclosed = rows.unclosedQuote();
            }
        } catch (IOException e) {
            return new Reading(out, unclosed, e.getMessage());
        }
        return new Reading(out, unclosed, null);
    }

    /** The input in pieces of 1 to 7 bytes. */
    private static InputStream trickle(byte[] bytes, SplittableRandom r) {
        return new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1 + r.nextInt(7)));
            }
        };
    }

    private static CsvSource.Rows utf8(byte[] bytes, CsvSource.Settings s, SplittableRandom r, boolean reuse)
            throws IOException {
        InputStream in = trickle(bytes, r);
        byte[] head = new byte[4];
        int n = 0;
        for (int got; n < head.length && (got = in.read(head, n, head.length - n)) > 0; ) {
            n += got;
        }
        CsvSource.Rows rows = new Utf8CsvReader(in, head, n, s, "t.csv", 4 + r.nextInt(60));
        if (reuse) {
            rows.readAtOnce();
        }
        return rows;
    }

    private static void agree(byte[] bytes, CsvSource.Settings s, SplittableRandom r) throws IOException {
        if (bytes.length < 4) {
            // FastCSV 4.1.0 reads NULs in place of an input shorter than its 4-byte look for a byte order mark.
            return;
        }
        Reading expected = read(CsvSource.fastCsv(new ByteArrayInputStream(bytes), s, "t.csv"));
        for (boolean reuse : new boolean[] {false, true}) {
            Reading actual = read(utf8(bytes, s, r, reuse));
            String input = java.util.HexFormat.ofDelimiter(" ").formatHex(bytes);
            assertEquals(expected.error() == null, actual.error() == null, input + ": " + actual.error());
            if (expected.error() == null) {
                assertEquals(expected.records(), actual.records(), input);
                if (s.comment() == 0) {
                    assertEquals(expected.unclosed(), actual.unclosed(), "unclosed quote: " + input);
                } else {
                    // Comment lines after a last quoted value made FastCSV's reading take it for an open quote.
                    assertTrue(expected.unclosed() || !actual.unclosed(), "unclosed quote: " + input);
                }
            } else {
                // FastCSV is read one record ahead, so its error comes one record sooner (and names no line).
                assertTrue(actual.error().contains("line "), actual.error());
                int n = expected.records().size();
                assertTrue(actual.records().size() - n <= 1, input);
                assertEquals(expected.records(), actual.records().subList(0, n), input);
            }
        }
    }

    @Test
    void randomInputsReadAlike() throws IOException {
        SplittableRandom r = new SplittableRandom(37);
        CsvSource.Settings plain = new CsvSource.Settings(',', '"', (char) 0, false, null, "", (char) 0);
        CsvSource.Settings comments = new CsvSource.Settings(',', '"', '#', false, null, "", (char) 0);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            if (r.nextInt(10) == 0) {
                sb.append('\uFEFF');
            }
            int tokens = r.nextInt(1, 30);
            for (int t = 0; t < tokens; t++) {
                sb.append(TOKENS[r.nextInt(TOKENS.length)]);
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
            if (r.nextInt(8) == 0 && bytes.length > 0) {
                bytes[r.nextInt(bytes.length)] = (byte) 0xFF; // not UTF-8
            }
            agree(bytes, i % 2 == 0 ? plain : comments, r);
        }
    }

    @Test
    void edgeInputsReadAlike() throws IOException {
        SplittableRandom r = new SplittableRandom(1);
        CsvSource.Settings plain = new CsvSource.Settings(',', '"', (char) 0, false, null, "", (char) 0);
        CsvSource.Settings tsv = new CsvSource.Settings('\t', '"', '#', false, null, "", (char) 0);
        String longValue = "v".repeat(200_000);
        List<String> inputs = List.of("", "\n", "\r\n\r\n", ",", "a,", "\"", "\"\"", "\"\"\"", "\"a\"\"", "a,\"",
                "\uFEFFid,v\r\n1,\"x\"\r\n2,\"quoted\r\nbreak\"\r\n", "1,\"a\"b\n2,c\n", "1,\"a\" \n",
                "id,v\n1,\"" + longValue + "\"\n2,\"" + longValue + "\"\"q\"\n3," + longValue + "\n",
                "a\rb\r\rc\r\n\nd", "\"open\n2,x\n3,y\n", "\"open\n2,x\n3,\"y\"\n", "#c\na,b\n#d\r\n\"#e\",f",
                "-9223372036854775808,9223372036854775807,-0.0,NaN,1e308,4.9E-324\n", "a\tb\t\"c\td\"\n#x\te\n");
        for (String in : inputs) {
            for (CsvSource.Settings s : List.of(plain, tsv)) {
                agree(in.getBytes(StandardCharsets.UTF_8), s, r);
            }
        }
    }

    @Test
    void loneCarriageReturnsInsideQuotesStayInTheValue() throws IOException {
        CsvSource.Settings plain = new CsvSource.Settings(',', '"', (char) 0, false, null, "", (char) 0);
        byte[] in = "1,\"x\ry\"\n2,\"z\r\"\r\n3,\"\r\"\n4\r5".getBytes(StandardCharsets.UTF_8);
        for (boolean reuse : new boolean[] {false, true}) {
            Reading r = read(utf8(in, plain, new SplittableRandom(3), reuse));
            assertEquals(List.of("line 1: [1] [q:x\ry]", "line 3: [2] [q:z\r]", "line 5: [3] [q:\r]", "line 7: [4]",
                    "line 8: [5]"), r.records());
            assertEquals(null, r.error());
        }
    }
}
