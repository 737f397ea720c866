package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A token stream over one SQL statement, for the testkit's parser of GreptimeDB's DDL: identifiers (unquoted ones
 * lower-cased, {@code "quoted"} and {@code `quoted`} kept), {@code 'strings'}, numbers and single-character
 * symbols; {@code -- line} and {@code /* block *}{@code /} comments are skipped.
 */
final class SqlTokens {
    /**
     * One token: {@code word} for identifiers and keywords (quoted or not), {@code string} for {@code 'strings'},
     * {@code quoted} for {@code "quoted"} and {@code `quoted`} identifiers, which are never keywords.
     */
    record Token(String text, boolean word, boolean string, boolean quoted) {
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
            } else if (ch == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: unterminated /* comment in: " + sql);
                }
                i = end + 2;
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
                tokens.add(new Token(b.toString(), ch != '\'', ch == '\'', ch != '\''));
                i = j + 1;
            } else if (Character.isLetterOrDigit(ch) || ch == '_') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                    j++;
                }
                tokens.add(new Token(sql.substring(i, j).toLowerCase(Locale.ROOT), true, false, false));
                i = j;
            } else {
                tokens.add(new Token(String.valueOf(ch), false, false, false));
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
        if (t != null && !t.string() && !t.quoted() && t.text().equals(keyword)) {
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

    /** Tells whether the next token is this keyword or symbol (not consumed). */
    boolean peekIs(String keyword) {
        Token t = peek();
        return t != null && !t.string() && !t.quoted() && t.text().equals(keyword);
    }

    /** Throws the parser's "Expected: X, found: Y" syntax error (InvalidSyntax, 2000). */
    ServerError expected(String what) {
        Token t = peek();
        return new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: sql parser error: Expected: " + what
                + ", found: " + (t == null ? "EOF" : t.text()));
    }

    /** Skips a parenthesised group whose '(' is next, nested groups included. */
    void skipParenthesised() {
        expect("(");
        int depth = 1;
        while (depth > 0) {
            Token t = next();
            if (!t.string() && !t.word()) {
                if (t.text().equals("(")) {
                    depth++;
                } else if (t.text().equals(")")) {
                    depth--;
                }
            }
        }
    }

    /**
     * Skips one scalar expression, as a column's {@code DEFAULT} takes: literals, signed numbers, names, function
     * calls ({@code now()}), parenthesised groups, joined by arithmetic or {@code ||} operators, with
     * {@code ::type} casts. Stops before a ',' or ')' of the enclosing list and before the next column option.
     */
    void skipExpression() {
        skipOperand();
        while (true) {
            if (peekIs(":")) {
                expect(":");
                expect(":");
                identifier();
                if (peekIs("(")) {
                    skipParenthesised();
                }
            } else if (peekIs("+") || peekIs("-") || peekIs("*") || peekIs("/") || peekIs("%")) {
                next();
                skipOperand();
            } else if (peekIs("|")) {
                next();
                expect("|");
                skipOperand();
            } else {
                return;
            }
        }
    }

    private void skipOperand() {
        if (accept("-") || accept("+")) {
            skipOperand();
            return;
        }
        if (peekIs("(")) {
            skipParenthesised();
            return;
        }
        Token t = peek();
        if (t == null || (!t.word() && !t.string())) {
            throw expected("an expression");
        }
        next();
        if (t.word() && !t.quoted() && t.text().equals("interval") && peek() != null && peek().string()) {
            next(); // INTERVAL '1 day'
        } else if (t.word() && Character.isDigit(t.text().charAt(0)) && peekIs(".")) {
            next(); // 1.5 arrives as 1 . 5
            if (peek() != null && peek().word()) {
                next();
            }
        } else if (t.word() && peekIs("(")) {
            skipParenthesised(); // a function call
        }
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
