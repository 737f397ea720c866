package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A token stream over one SQL statement, for the testkit's parser of GreptimeDB's DDL: identifiers (unquoted ones
 * lower-cased, {@code "quoted"} and {@code `quoted`} kept), {@code 'strings'}, numbers and single-character
 * symbols.
 */
final class SqlTokens {
    /** One token; {@code quoted} for quoted identifiers and strings. */
    record Token(String text, boolean word, boolean string) {
    }

    private final List<Token> tokens = new ArrayList<>();
    private int at;

    SqlTokens(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char ch = sql.charAt(i);
            if (Character.isWhitespace(ch)) {
                i++;
            } else if (ch == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (ch == '\'' || ch == '"' || ch == '`') {
                StringBuilder b = new StringBuilder();
                int j = i + 1;
                while (true) {
                    if (j >= n) {
                        throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: unterminated " + ch + " in: " + sql);
                    }
                    char c = sql.charAt(j);
                    if (c == ch) {
                        if (j + 1 < n && sql.charAt(j + 1) == ch) {
                            b.append(ch);
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    b.append(c);
                    j++;
                }
                tokens.add(new Token(b.toString(), ch != '\'', ch == '\''));
                i = j + 1;
            } else if (Character.isLetterOrDigit(ch) || ch == '_') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                    j++;
                }
                tokens.add(new Token(sql.substring(i, j).toLowerCase(Locale.ROOT), true, false));
                i = j;
            } else {
                tokens.add(new Token(String.valueOf(ch), false, false));
                i++;
            }
        }
        while (!tokens.isEmpty() && tokens.get(tokens.size() - 1).text().equals(";") && !tokens.get(tokens.size() - 1).string()) {
            tokens.remove(tokens.size() - 1);
        }
    }

    boolean done() {
        return at >= tokens.size();
    }

    Token peek() {
        return done() ? null : tokens.get(at);
    }

    Token next() {
        if (done()) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: unexpected end of statement");
        }
        return tokens.get(at++);
    }

    /** Consumes the keyword (or symbol) when it is next. */
    boolean accept(String keyword) {
        Token t = peek();
        if (t != null && !t.string() && t.text().equals(keyword)) {
            at++;
            return true;
        }
        return false;
    }

    /** Consumes a sequence of keywords when all are next. */
    boolean accept(String... keywords) {
        int save = at;
        for (String k : keywords) {
            if (!accept(k)) {
                at = save;
                return false;
            }
        }
        return true;
    }

    void expect(String keyword) {
        if (!accept(keyword)) {
            Token t = peek();
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: expected " + keyword + ", found "
                    + (t == null ? "end of statement" : t.text()));
        }
    }

    String identifier() {
        Token t = next();
        if (!t.word()) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: expected an identifier, found " + t.text());
        }
        return t.text();
    }

    /** Reads {@code name} or {@code db.name}: returns {db or null, name}. */
    String[] qualifiedName() {
        String first = identifier();
        if (accept(".")) {
            return new String[] {first, identifier()};
        }
        return new String[] {null, first};
    }

    /** Skips tokens up to (not including) a ',' or ')' at this nesting depth. */
    void skipToListEnd() {
        int depth = 0;
        while (!done()) {
            Token t = peek();
            if (!t.string() && !t.word()) {
                if (t.text().equals("(")) {
                    depth++;
                } else if (t.text().equals(")")) {
                    if (depth == 0) {
                        return;
                    }
                    depth--;
                } else if (t.text().equals(",") && depth == 0) {
                    return;
                }
            }
            at++;
        }
    }
}
