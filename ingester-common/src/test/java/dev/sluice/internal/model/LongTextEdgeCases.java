package dev.sluice.internal.model;

import java.util.ArrayList;
import java.util.List;

/** Text values around the long-text threshold and the ASCII check's limits, shared by this module's text tests. */
final class LongTextEdgeCases {
    private LongTextEdgeCases() {
    }

    static String ascii(int chars, int seed) {
        StringBuilder b = new StringBuilder(chars);
        for (int i = 0; b.length() < chars; i++) {
            b.append((char) (' ' + (i * 31 + seed) % 95));
        }
        return b.toString();
    }

    /** ASCII of several lengths, then the same with a non-ASCII character (or a broken pair) at either end or in the middle. */
    static List<String> values() {
        List<String> out = new ArrayList<>();
        int[] lengths = {0, 1, ArrayColumn.LONG_TEXT - 1, ArrayColumn.LONG_TEXT, ArrayColumn.LONG_TEXT + 1, 2_000,
            AsciiText.MAX_CHARS, AsciiText.MAX_CHARS + 1, 100_000};
        String[] odd = {"\u0080", "\u00FF", "é", "\u0141", "✓", "\uD83D\uDE00", "\uD800", "\uDC00", "\u007F"};
        int seed = 0;
        for (int n : lengths) {
            String a = ascii(n, seed++);
            out.add(a);
            for (String o : odd) {
                if (n > o.length() * 2) {
                    out.add(o + a.substring(o.length()));
                    out.add(a.substring(o.length()) + o);
                    out.add(a.substring(0, n / 2) + o + a.substring(n / 2 + o.length()));
                }
            }
        }
        return out;
    }
}
