package dev.sluice.importer.internal.source;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * RFC 4180 CSV read straight from its UTF-8 bytes: each record's fields are ranges of the input's buffer, so numbers
 * are parsed and text is stored without decoding the file into characters first. Its reading is FastCSV's strict
 * parser's, which reads every other CSV input: a quote opens a quoted value only at a field's start (elsewhere it is
 * part of the value), a doubled quote inside quotes is one quote, a line break is CR LF, LF or a lone CR (inside
 * quotes it is part of the value, as written), empty lines and comment lines are skipped (each still counts as a
 * line), a UTF-8 byte order mark is skipped, and anything but a delimiter or a line break after a closing quote is an
 * error naming the line. The delimiter, quote and comment characters must be ASCII.
 */
final class Utf8CsvReader implements CsvSource.Rows {
    /** A record longer than this is refused (a quote never closed would otherwise take the whole input in). */
    static final int MAX_RECORD = 64 << 20;
    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private final InputStream in;
    private final byte delimiter;
    private final byte quote;
    /** The comment character, or 256 for none (no byte's value). */
    private final int comment;
    private final String inputName;
    private byte[] buf;
    private int pos;
    private int lim;
    private boolean eof;
    /** The line the next record starts on. */
    private long line = 1;
    private boolean reuse;
    private boolean unclosed;
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private boolean[] quoted = new boolean[16];
    /** Whether each field holds doubled quotes (made single once its record is whole). */
    private boolean[] doubled = new boolean[16];
    private int count;
    /** The line breaks inside quoted values of the record being read. */
    private int innerLines;

    /**
     * Reads records from the input.
     *
     * @param in the input, after its first bytes
     * @param head the input's first bytes, read to look for a byte order mark (a UTF-8 one is skipped)
     * @param headLength how many there are
     * @param s the settings (ASCII control characters: {@link #takes})
     * @param inputName the input's name, for messages
     */
    Utf8CsvReader(InputStream in, byte[] head, int headLength, CsvSource.Settings s, String inputName) {
        this(in, head, headLength, s, inputName, 1 << 16);
    }

    /** As above, with a buffer of {@code bufferSize} bytes to start with (it grows for longer records). */
    Utf8CsvReader(InputStream in, byte[] head, int headLength, CsvSource.Settings s, String inputName,
            int bufferSize) {
        this.in = in;
        this.delimiter = (byte) s.delimiter();
        this.quote = (byte) s.quote();
        this.comment = s.comment() != 0 ? s.comment() : 256;
        this.inputName = inputName;
        this.buf = new byte[Math.max(bufferSize, headLength)];
        int skip = headLength >= 3 && (head[0] & 0xff) == 0xEF && (head[1] & 0xff) == 0xBB && (head[2] & 0xff) == 0xBF
                ? 3 : 0;
        System.arraycopy(head, skip, buf, 0, headLength - skip);
        this.lim = headLength - skip;
    }

    /** Whether settings can be read by this reader: ASCII control characters. */
    static boolean takes(CsvSource.Settings s) {
        return s.delimiter() < 0x80 && s.quote() < 0x80 && s.comment() < 0x80;
    }

    @Override
    public CsvSource.Row next() throws IOException {
        while (true) {
            int end = scan(pos);
            if (end == -1) {
                fill(); // then scanned again, with more bytes or at the end of the input
                continue;
            }
            if (end == -2) {
                return null; // the input ended
            }
            if (count == 0) { // an empty or comment line
                pos = end;
                line++;
                continue;
            }
            return record(end);
        }
    }

    /** The record just scanned, its doubled quotes made single; the next scan starts at {@code end}. */
    private CsvSource.Row record(int end) {
        for (int f = 0; f < count; f++) {
            if (doubled[f]) {
                ends[f] = single(buf, starts[f], ends[f], quote);
            }
        }
        long at = line;
        line += 1 + innerLines;
        int from = pos;
        pos = end;
        if (reuse) {
            return new CsvSource.Row(buf, starts, ends, count, null, quoted, at);
        }
        // Kept beyond the next record (a sample keeps its records): bytes and bounds of its own.
        int last = ends[count - 1];
        byte[] own = java.util.Arrays.copyOfRange(buf, from, Math.max(last, from));
        int[] s = new int[count];
        int[] e = new int[count];
        for (int f = 0; f < count; f++) {
            s[f] = starts[f] - from;
            e[f] = ends[f] - from;
        }
        return new CsvSource.Row(own, s, e, count, null, java.util.Arrays.copyOf(quoted, count), at);
    }

    /**
     * Removes the first quote of each pair (as a value's doubled quotes read), in place.
     *
     * @return the value's new end
     */
    private static int single(byte[] b, int from, int to, byte quote) {
        int w = from;
        boolean skipped = false;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == quote) {
                skipped = !skipped;
                if (skipped) {
                    continue;
                }
            }
            b[w++] = c;
        }
        return w;
    }

    private void field(int f, int start, int end, boolean q, boolean d) {
        if (f == starts.length) {
            int n = f * 2;
            starts = java.util.Arrays.copyOf(starts, n);
            ends = java.util.Arrays.copyOf(ends, n);
            quoted = java.util.Arrays.copyOf(quoted, n);
            doubled = java.util.Arrays.copyOf(doubled, n);
        }
        starts[f] = start;
        ends[f] = end;
        quoted[f] = q;
        doubled[f] = d;
    }

    /**
     * Finds the record that starts at {@code p}, filling {@link #starts}, {@link #ends} and {@link #count} (0 for an
     * empty or comment line).
     *
     * @return where the next record starts; -1 when the buffer ends first (fill it, then scan again); -2 at the end
     *     of the input
     */
    private int scan(int p) throws IOException {
        byte[] b = buf;
        int lim = this.lim;
        count = 0;
        innerLines = 0;
        unclosed = false;
        if (p == lim) {
            return eof ? -2 : -1;
        }
        byte first = b[p];
        if (first == CR || first == LF) {
            return lineBreak(b, p, lim);
        }
        if (first == comment) {
            while (p < lim && b[p] != CR && b[p] != LF) {
                p++;
            }
            return p == lim ? (eof ? p : -1) : lineBreak(b, p, lim);
        }
        int f = 0;
        while (true) {
            if (p == lim) {
                if (!eof) {
                    return -1;
                }
                field(f++, p, p, false, false); // after a delimiter at the end of the input: an empty value
                count = f;
                return p;
            }
            if (b[p] == quote) {
                int start = ++p;
                boolean d = false;
                while (true) {
                    while (p < lim && b[p] != quote) {
                        byte c = b[p];
                        if (c == CR || c == LF && b[p - 1] != CR) {
                            innerLines++;
                        }
                        p++;
                    }
                    if (p == lim) {
                        if (!eof) {
                            return -1;
                        }
                        // Open at the end of the input: the value runs to it, less a last quote, as FastCSV reads it.
                        int to = b[p - 1] == quote && p - 1 >= start ? p - 1 : p;
                        field(f++, start, to, true, true);
                        count = f;
                        unclosed = lastNonNewline(b, p) != quote;
                        return p;
                    }
                    if (p + 1 == lim && !eof) {
                        return -1;
                    }
                    if (p + 1 < lim && b[p + 1] == quote) {
                        d = true;
                        p += 2;
                        continue;
                    }
                    break;
                }
                field(f++, start, p, true, d);
                p++; // the closing quote
                if (p < lim && b[p] != delimiter && b[p] != CR && b[p] != LF) {
                    char c = charAt(b, p, lim);
                    throw new IOException("'" + inputName + "' line " + (line + innerLines) + " cannot be parsed as CSV:"
                            + " a quoted value's closing quote is followed by '" + c + "' (0x" + Integer.toHexString(c)
                            + "), not by a delimiter or a line break: quote the whole value and double each quote"
                            + " inside it");
                }
            } else {
                int start = p;
                while (p < lim) {
                    byte c = b[p];
                    if (c == delimiter || c == LF || c == CR) {
                        break;
                    }
                    p++;
                }
                if (p == lim && !eof) {
                    return -1;
                }
                field(f++, start, p, false, false);
            }
            if (p == lim) { // the end of the input ends the record
                count = f;
                return p;
            }
            if (b[p] == delimiter) {
                p++;
                continue;
            }
            count = f;
            int next = lineBreak(b, p, lim);
            if (next == -1) {
                count = 0;
            }
            return next;
        }
    }

    /** @return where the line break at {@code p} ends (CR LF is one), or -1 when the buffer ends after a CR */
    private int lineBreak(byte[] b, int p, int lim) {
        if (b[p] == LF) {
            return p + 1;
        }
        if (p + 1 == lim) {
            return eof ? p + 1 : -1;
        }
        return b[p + 1] == LF ? p + 2 : p + 1;
    }

    private static int lastNonNewline(byte[] b, int p) {
        while (p > 0 && (b[p - 1] == CR || b[p - 1] == LF)) {
            p--;
        }
        return p > 0 ? b[p - 1] : -1;
    }

    /** The character at {@code p}, decoded from its UTF-8 bytes. */
    private static char charAt(byte[] b, int p, int lim) {
        return new String(b, p, Math.min(4, lim - p), StandardCharsets.UTF_8).charAt(0);
    }

    /**
     * Moves the record being read to the buffer's start (growing the buffer when it fills it) and reads more, or
     * notes the end of the input.
     */
    private void fill() throws IOException {
        int keep = lim - pos;
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, keep);
            pos = 0;
            lim = keep;
        }
        if (lim == buf.length) {
            if (buf.length >= MAX_RECORD) {
                throw new IOException("'" + inputName + "' cannot be parsed as CSV: the record that starts on line "
                        + line + " is longer than " + (MAX_RECORD >> 20) + " MiB (is a quote left open?)");
            }
            buf = java.util.Arrays.copyOf(buf, buf.length * 2);
        }
        // Filled up, so that a record is scanned again only after the buffer has moved or grown, however few bytes
        // each read gives.
        while (lim < buf.length) {
            int n = in.read(buf, lim, buf.length - lim);
            if (n < 0) {
                eof = true;
                return;
            }
            lim += n;
        }
    }

    @Override
    public boolean unclosedQuote() {
        return unclosed;
    }

    @Override
    public void readAtOnce() {
        reuse = true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
