package dev.sluice.sql;

import dev.sluice.data.DataType;
import dev.sluice.data.DecimalType;
import dev.sluice.data.SemanticType;
import dev.sluice.data.VectorType;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One column of an existing table, as {@code DESC TABLE} answers it.
 *
 * @param name the column's name
 * @param typeName the type as the server names it ({@code Float64}, {@code TimestampMillisecond},
 *     {@code Decimal(10, 2)}, {@code Vector(3)}...)
 * @param type the matching Sluice type, or null when Sluice has none of that name
 * @param decimal precision and scale of a {@link DataType#Decimal128}, else null
 * @param vector the dimension of a {@link DataType#Vector}, else null
 * @param semantic tag, field or time index
 */
public record ServerColumn(String name, String typeName, DataType type, DecimalType decimal, VectorType vector,
                           SemanticType semantic) {
    private static final Pattern DECIMAL = Pattern.compile("(?i)decimal(?:128)?\\s*\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*\\)");
    private static final Pattern VECTOR = Pattern.compile("(?i)vector\\s*\\(\\s*(\\d+)\\s*\\)");

    /**
     * Reads one row of a {@code DESC TABLE} answer: the column's name, the server's type name and its semantic type
     * ({@code TAG}, {@code FIELD} or {@code TIMESTAMP}).
     *
     * @param name the column's name
     * @param typeName the server's type name (GreptimeDB's {@code ConcreteDataType} names)
     * @param semanticType the server's semantic type, or null for a field
     * @return the column; its {@link #type()} is null when Sluice has no type of that name
     */
    public static ServerColumn of(String name, String typeName, String semanticType) {
        String sem = semanticType == null ? "FIELD" : semanticType.strip().toUpperCase(Locale.ROOT);
        SemanticType semantic = switch (sem) {
            case "TAG" -> SemanticType.Tag;
            case "TIMESTAMP" -> SemanticType.Timestamp;
            default -> SemanticType.Field;
        };
        String t = typeName.strip();
        Matcher d = DECIMAL.matcher(t);
        if (d.matches()) {
            return new ServerColumn(name, t, DataType.Decimal128,
                    new DecimalType(Integer.parseInt(d.group(1)), Integer.parseInt(d.group(2))), null, semantic);
        }
        Matcher v = VECTOR.matcher(t);
        if (v.matches()) {
            return new ServerColumn(name, t, DataType.Vector, null, new VectorType(Integer.parseInt(v.group(1))),
                    semantic);
        }
        if (t.equalsIgnoreCase("Boolean")) {
            return new ServerColumn(name, t, DataType.Bool, null, null, semantic);
        }
        for (DataType dt : DataType.values()) {
            if (dt.name().equalsIgnoreCase(t)) {
                return new ServerColumn(name, t, dt, null, null, semantic);
            }
        }
        return new ServerColumn(name, t, null, null, null, semantic);
    }
}
