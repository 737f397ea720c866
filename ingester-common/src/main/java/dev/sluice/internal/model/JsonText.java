package dev.sluice.internal.model;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Writes JSON text from maps and lists, and checks that text is one well-formed JSON value. */
public final class JsonText {
    private final String s;
    private int pos;

    private JsonText(String s) {
        this.s = s;
    }

    /**
     * Serialises a tree of maps, lists, strings, numbers, booleans and nulls.
     *
     * @param value the root (a Map or a List)
     * @return compact JSON text
     * @throws Coercion.Rejection for a value that has no JSON form (a NaN, an unknown class, a non-string key)
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        append(sb, value, 0);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v, int depth) {
        if (depth > 512) {
            throw new Coercion.Rejection("the JSON value nests deeper than 512 levels");
        }
        if (v == null) {
            sb.append("null");
        } else if (v instanceof CharSequence || v instanceof Character) {
            quote(sb, v.toString());
        } else if (v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new Coercion.Rejection("JSON has no form for " + d);
            }
            sb.append(v);
        } else if (v instanceof Number) {
            sb.append(v instanceof java.math.BigDecimal ? ((java.math.BigDecimal) v).toPlainString() : v.toString());
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!(e.getKey() instanceof CharSequence)) {
                    throw new Coercion.Rejection("JSON object keys must be strings, got " + e.getKey());
                }
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, e.getKey().toString());
                sb.append(':');
                append(sb, e.getValue(), depth + 1);
            }
            sb.append('}');
        } else if (v instanceof List) {
            sb.append('[');
            for (Iterator<?> it = ((List<?>) v).iterator(); it.hasNext();) {
                append(sb, it.next(), depth + 1);
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            sb.append(']');
        } else {
            throw new Coercion.Rejection("a " + v.getClass().getName() + " has no JSON form; use maps, lists, "
                    + "strings, numbers, booleans and nulls");
        }
    }

    private static void quote(StringBuilder sb, String text) {
        sb.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    /**
     * Checks that text is exactly one JSON value (surrounding white space allowed).
     *
     * @param text the text
     * @return null when it is valid, else what is wrong and where
     */
    public static String check(String text) {
        JsonText p = new JsonText(text);
        try {
            p.ws();
            p.value(0);
            p.ws();
            if (p.pos != text.length()) {
                return "unexpected '" + text.charAt(p.pos) + "' at offset " + p.pos;
            }
            return null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    private IllegalStateException error(String what) {
        return new IllegalStateException(what + " at offset " + pos);
    }

    private void ws() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    private void value(int depth) {
        if (depth > 512) {
            throw error("nesting deeper than 512 levels");
        }
        if (pos >= s.length()) {
            throw error("unexpected end of text");
        }
        char c = s.charAt(pos);
        switch (c) {
            case '{': object(depth); break;
            case '[': array(depth); break;
            case '"': string(); break;
            case 't': literal("true"); break;
            case 'f': literal("false"); break;
            case 'n': literal("null"); break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                } else {
                    throw error("unexpected '" + c + "'");
                }
        }
    }

    private void object(int depth) {
        pos++;
        ws();
        if (peek() == '}') {
            pos++;
            return;
        }
        while (true) {
            ws();
            if (peek() != '"') {
                throw error("expected a string key");
            }
            string();
            ws();
            expect(':');
            ws();
            value(depth + 1);
            ws();
            char c = peek();
            pos++;
            if (c == '}') {
                return;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}'");
            }
        }
    }

    private void array(int depth) {
        pos++;
        ws();
        if (peek() == ']') {
            pos++;
            return;
        }
        while (true) {
            ws();
            value(depth + 1);
            ws();
            char c = peek();
            pos++;
            if (c == ']') {
                return;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']'");
            }
        }
    }

    private void string() {
        pos++;
        while (pos < s.length()) {
            char c = s.charAt(pos++);
            if (c == '"') {
                return;
            }
            if (c < 0x20) {
                pos--;
                throw error("unescaped control character in a string");
            }
            if (c == '\\') {
                char e = peek();
                pos++;
                if (e == 'u') {
                    for (int i = 0; i < 4; i++) {
                        if (Character.digit(peek(), 16) < 0) {
                            throw error("bad \\u escape");
                        }
                        pos++;
                    }
                } else if ("\"\\/bfnrt".indexOf(e) < 0) {
                    pos--;
                    throw error("bad escape");
                }
            }
        }
        throw error("unterminated string");
    }

    private void number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (!digits()) {
            throw error("bad number");
        }
        if (peek() == '.') {
            pos++;
            if (!digits()) {
                throw error("bad fraction");
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!digits()) {
                throw error("bad exponent");
            }
        }
        if (pos == start) {
            throw error("bad number");
        }
    }

    private boolean digits() {
        int start = pos;
        while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
            pos++;
        }
        return pos > start;
    }

    private void literal(String word) {
        if (!s.startsWith(word, pos)) {
            throw error("unexpected '" + s.charAt(pos) + "'");
        }
        pos += word.length();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return pos < s.length() ? s.charAt(pos) : '\0';
    }
}
