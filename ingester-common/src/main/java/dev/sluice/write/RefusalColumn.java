package dev.sluice.write;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the column a server's refusal names, for {@link Err#column()}: the one parser of GreptimeDB's messages
 * ("column f0 expect type Float64...", "Column c of table t...", "Column name c is reserved", "unknown columns:
 * [\"c\"]", "Invalid column option, column name: c").
 */
final class RefusalColumn {
    /** "column" or "columns", an optional "name", then the name, bare or quoted, or the first of a list. */
    private static final Pattern COLUMN = Pattern.compile(
            "(?i)\\bcolumns?\\b(?:\\s+name\\b)?[\\s:]*\\[?\\s*[`'\"]?([^\\s,:;()\\[\\]`'\"]+)");
    /** Words that follow "column" in messages without naming one ("column types must...", "column index 2"). */
    private static final Set<String> NOT_NAMES = Set.of("in", "index", "type", "types", "count", "data", "option",
            "options", "definition", "of", "is", "name", "names", "mismatch", "not", "with", "for", "the", "to",
            "and", "or", "order", "must", "expect", "values", "value", "constraint", "schema");

    private RefusalColumn() {
    }

    static Optional<String> in(String message) {
        if (message == null) {
            return Optional.empty();
        }
        Matcher m = COLUMN.matcher(message);
        while (m.find()) {
            String name = m.group(1);
            if (!NOT_NAMES.contains(name.toLowerCase(Locale.ROOT))) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }
}
