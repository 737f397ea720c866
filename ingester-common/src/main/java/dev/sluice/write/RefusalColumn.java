package dev.sluice.write;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the column a server's refusal names, for {@link Err#column()}: the one parser of GreptimeDB's messages
 * ("column f0 expect type Float64...", "Column c of table t...", "Column name c is reserved", "unknown columns:
 * [\"c\"]", "Invalid column option, column name: c"). A name that reads as an English word ({@code value},
 * {@code count}, {@code type}...) is still read where what follows it only follows a name, and a quoted name is read
 * whole, blanks included.
 */
final class RefusalColumn {
    /** A quoted name after "column(s)" (an optional "name", a list's bracket): the name, blanks included. */
    private static final Pattern QUOTED = Pattern.compile(
            "(?i)\\bcolumns?\\b(?:\\s+name\\b)?[\\s:]*\\[?\\s*(?:`([^`]+)`|\"([^\"]+)\"|'([^']+)')");
    /**
     * A bare word followed by what only follows a column's name in GreptimeDB's messages ("column value expect
     * type ...", "Column count of table t ...", "column name is reserved", "column data not found"): the word is the
     * name, even one that reads as English.
     */
    private static final Pattern BEFORE_CONTEXT = Pattern.compile(
            "(?i)\\bcolumn\\s+(?:name\\s+)?([^\\s,:;()\\[\\]`'\"]+)\\s+(?:expect\\s+type|of\\s+table|is\\s+reserved"
                    + "|not\\s+found|has\\s+type)\\b");
    /** "column" or "columns", an optional "name", then the name, bare or quoted, or the first of a list. */
    private static final Pattern COLUMN = Pattern.compile(
            "(?i)\\bcolumns?\\b(?:\\s+name\\b)?[\\s:]*\\[?\\s*[`'\"]?([^\\s,:;()\\[\\]`'\"]+)");
    /**
     * Words that follow "column" without naming one ("column types must...", "column index 2", "Column count
     * mismatch"), when nothing after them says they are a name.
     */
    private static final Set<String> NOT_NAMES = Set.of("in", "index", "type", "types", "count", "data", "option",
            "options", "definition", "of", "is", "name", "names", "mismatch", "not", "with", "for", "the", "to",
            "and", "or", "order", "must", "expect", "values", "value", "constraint", "schema");

    /** A column named by its position: "column index 1". */
    private static final Pattern INDEX = Pattern.compile("(?i)\\bcolumn\\s+index\\s+(\\d{1,9})\\b");

    private RefusalColumn() {
    }

    /**
     * Reads the position of the column a message names only by its position.
     *
     * @param message the server's message, or null
     * @return the position, or empty when the message names none
     */
    static OptionalInt index(String message) {
        if (message == null) {
            return OptionalInt.empty();
        }
        Matcher m = INDEX.matcher(message);
        return m.find() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
    }

    static Optional<String> in(String message) {
        if (message == null) {
            return Optional.empty();
        }
        int at = Integer.MAX_VALUE;
        String found = null;
        Matcher q = QUOTED.matcher(message);
        if (q.find()) {
            at = q.start();
            found = q.group(1) != null ? q.group(1) : q.group(2) != null ? q.group(2) : q.group(3);
        }
        Matcher b = BEFORE_CONTEXT.matcher(message);
        if (b.find() && b.start() < at) {
            at = b.start();
            found = b.group(1);
        }
        Matcher m = COLUMN.matcher(message);
        while (m.find() && m.start() < at) {
            if (!NOT_NAMES.contains(m.group(1).toLowerCase(Locale.ROOT))) {
                return Optional.of(m.group(1));
            }
        }
        return Optional.ofNullable(found);
    }
}
