package dev.sluice.kafka.connect.internal;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Column types chosen by the user ({@code column.types}), winning over what the record's schema or value says.
 *
 * @param types column name to its type
 */
public record ColumnTypeOverrides(Map<String, ColumnType> types) {
    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal128\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");

    /**
     * A column type with its decimal precision and scale.
     *
     * @param dataType the type
     * @param decimalType precision and scale for Decimal128, else null
     */
    public record ColumnType(DataType dataType, DecimalType decimalType) {
    }

    /** Copies the map. */
    public ColumnTypeOverrides {
        types = Map.copyOf(types);
    }

    /**
     * Parses {@code column:Type,column:Type} text; commas inside {@code Decimal128(p,s)} do not split.
     *
     * @param text the text, possibly empty
     * @return the overrides
     * @throws IllegalArgumentException naming the entry when one is malformed or names an unknown type
     */
    public static ColumnTypeOverrides parse(String text) {
        List<String> entries = new java.util.ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            char ch = i < text.length() ? text.charAt(i) : ',';
            if (ch == '(') {
                depth++;
            } else if (ch == ')') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                String e = text.substring(start, i).trim();
                if (!e.isEmpty()) {
                    entries.add(e);
                }
                start = i + 1;
            }
        }
        return parse(entries);
    }

    /**
     * Parses {@code column:Type} entries.
     *
     * @param entries the entries
     * @return the overrides
     * @throws IllegalArgumentException naming the entry when one is malformed or names an unknown type
     */
    public static ColumnTypeOverrides parse(List<String> entries) {
        Map<String, ColumnType> m = new HashMap<>();
        for (String e : entries) {
            int colon = e.indexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw new IllegalArgumentException("'" + e + "' is not column:Type");
            }
            String column = e.substring(0, colon).trim();
            ColumnType type = parseType(e.substring(colon + 1).trim());
            if (m.put(column, type) != null) {
                throw new IllegalArgumentException("column '" + column + "' is given two types");
            }
        }
        return new ColumnTypeOverrides(m);
    }

    /**
     * Parses one type name (case-insensitive), {@code Decimal128(p,s)} included.
     *
     * @param text the name
     * @return the type
     * @throws IllegalArgumentException for an unknown name
     */
    public static ColumnType parseType(String text) {
        Matcher d = DECIMAL.matcher(text);
        if (d.matches()) {
            return new ColumnType(DataType.Decimal128,
                    new DecimalType(Integer.parseInt(d.group(1)), Integer.parseInt(d.group(2))));
        }
        for (DataType t : DataType.values()) {
            if (t.name().toLowerCase(Locale.ROOT).equals(text.toLowerCase(Locale.ROOT))) {
                return new ColumnType(t, t == DataType.Decimal128 ? DecimalType.DEFAULT : null);
            }
        }
        throw new IllegalArgumentException("unknown column type '" + text + "'");
    }

    /**
     * Returns the override of a column.
     *
     * @param column the column name
     * @return its type, or null when the user chose none
     */
    public ColumnType get(String column) {
        return types.get(column);
    }
}
