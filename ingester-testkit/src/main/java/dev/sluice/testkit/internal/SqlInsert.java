package dev.sluice.testkit.internal;

import dev.sluice.write.StatusCode;
import dev.sluice.data.TableSchema;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.ColumnSchema;
import dev.sluice.internal.wire.Decimal128;
import dev.sluice.internal.wire.Row;
import dev.sluice.internal.wire.Rows;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.internal.wire.Value;
import com.google.protobuf.ByteString;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * SQL {@code INSERT INTO t [(c, ...)] VALUES (...), ...} over HTTP: the literals are cast to the existing table's
 * column types and written through the same storage path as a gRPC row insert (a SQL insert never creates a table
 * or a column on the server: an unknown table is 4001). Timestamps take an integer in the column's unit or a
 * {@code 'YYYY-MM-DD HH:MM:SS[.f]'} text read in UTC (the server's default time zone).
 */
final class SqlInsert {
    private SqlInsert() {
    }

    /**
     * Runs an INSERT whose {@code INSERT INTO} words are already read.
     *
     * @param storage the storage
     * @param db the request's database
     * @param t the tokens, at the table name
     * @return rows written
     */
    static int run(Storage storage, String db, SqlTokens t) {
        String[] name = t.qualifiedName();
        String schema = name[0] == null ? db : name[0];
        String table = name[1];
        if (!storage.tables(schema).contains(table)) {
            throw new ServerError(StatusCode.TableNotFound, "Table not found: greptime." + schema + "." + table);
        }
        List<TableSchema.Column> tableColumns = storage.columns(schema, table);
        List<TableSchema.Column> targets = new ArrayList<>();
        if (t.accept("(")) {
            do {
                String c = t.identifier();
                TableSchema.Column found = tableColumns.stream().filter(x -> x.name().equals(c)).findFirst()
                        .orElseThrow(() -> new ServerError(StatusCode.TableColumnNotFound, "Column " + c
                                + " not found in table " + table));
                targets.add(found);
            } while (t.accept(","));
            t.expect(")");
        } else {
            targets.addAll(tableColumns);
        }
        t.expect("values");
        Rows.Builder rows = Rows.newBuilder();
        for (TableSchema.Column c : targets) {
            ColumnSchema.Builder cs = ColumnSchema.newBuilder().setColumnName(c.name())
                    .setDatatypeValue(ServerTypes.wireNumber(c.dataType()))
                    .setSemanticType(c.semanticType() == dev.sluice.data.SemanticType.Tag ? SemanticType.TAG
                            : c.semanticType() == dev.sluice.data.SemanticType.Timestamp ? SemanticType.TIMESTAMP
                            : SemanticType.FIELD);
            if (c.decimalType() != null) {
                cs.setDatatypeExtension(dev.sluice.internal.wire.ColumnDataTypeExtension.newBuilder().setDecimalType(
                        dev.sluice.internal.wire.DecimalTypeExtension.newBuilder().setPrecision(c.decimalType().precision())
                                .setScale(c.decimalType().scale())));
            }
            rows.addSchema(cs);
        }
        int r = 0;
        do {
            t.expect("(");
            Row.Builder row = Row.newBuilder();
            int i = 0;
            do {
                if (i >= targets.size()) {
                    throw new ServerError(StatusCode.InvalidArguments, "Row " + r + " of the INSERT into " + table
                            + " has more values than the " + targets.size() + " columns named");
                }
                row.addValues(value(table, targets.get(i), r, literal(t)));
                i++;
            } while (t.accept(","));
            t.expect(")");
            if (i != targets.size()) {
                throw new ServerError(StatusCode.InvalidArguments, "Row " + r + " of the INSERT into " + table
                        + " has " + i + " values for " + targets.size() + " columns");
            }
            rows.addRows(row);
            r++;
        } while (t.accept(","));
        if (!t.done()) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: unexpected " + t.next().text());
        }
        return storage.insert(schema, table, rows.build(), Map.of("auto_create_table", "false"));
    }

    /** Float type names a CAST can name (src/sql/src/statements.rs maps them to Float32 and Float64). */
    private static final java.util.Set<String> FLOAT_TYPES = java.util.Set.of("float", "float32", "real", "double",
            "float64");

    /**
     * A literal: a quoted string, NULL, TRUE/FALSE, a signed number (returned as text, null for NULL), or
     * {@code CAST(literal AS type)}. A cast of text to a float type is read as Arrow's cast reads it, which takes
     * {@code NaN} and {@code inf}/{@code infinity} (signed, any case) besides numbers; other casts leave the literal
     * to the column's own conversion.
     */
    private static Object literal(SqlTokens t) {
        if (t.peekIs("cast")) {
            t.next();
            t.expect("(");
            Object inner = literal(t);
            if (!t.accept("as")) {
                throw t.expected("AS");
            }
            String type = t.identifier();
            if (t.accept("(")) {
                while (!t.accept(")")) {
                    t.next();
                }
            }
            t.accept("unsigned");
            t.expect(")");
            if (FLOAT_TYPES.contains(type) && inner instanceof SqlTokens.Token text) {
                return floatText(text);
            }
            return inner;
        }
        SqlTokens.Token first = t.next();
        if (first.string()) {
            return first;
        }
        if (first.word() && first.text().equals("null")) {
            return null;
        }
        if (first.word() && (first.text().equals("true") || first.text().equals("false"))) {
            return Boolean.valueOf(first.text());
        }
        StringBuilder number = new StringBuilder();
        SqlTokens.Token digits = first;
        if (first.text().equals("-") || first.text().equals("+")) {
            number.append(first.text());
            digits = t.next();
        }
        number.append(digits.text());
        if (t.accept(".")) {
            number.append('.');
            SqlTokens.Token frac = t.peek();
            if (frac != null && frac.word() && !frac.string() && Character.isDigit(frac.text().charAt(0))) {
                number.append(t.next().text());
            }
        }
        try {
            BigDecimal n = new BigDecimal(number.toString());
            // A BigDecimal has no negative zero: -0.0 is kept as a double for a float column to store with its sign.
            return n.signum() == 0 && number.charAt(0) == '-' ? (Object) (-0.0) : n;
        } catch (NumberFormatException e) {
            throw new ServerError(StatusCode.InvalidSyntax, "Invalid SQL syntax: unexpected " + number);
        }
    }

    /** A text cast to a float: a number, NaN or a signed infinity. */
    private static Object floatText(SqlTokens.Token text) {
        String v = text.text().trim().toLowerCase(java.util.Locale.ROOT);
        boolean negative = v.startsWith("-");
        String unsigned = v.startsWith("-") || v.startsWith("+") ? v.substring(1) : v;
        if (unsigned.equals("nan")) {
            return Double.NaN;
        }
        if (unsigned.equals("inf") || unsigned.equals("infinity")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        return text;
    }

    private static ServerError cannot(String table, TableSchema.Column c, int row, Object literal) {
        return new ServerError(StatusCode.InvalidArguments, "Cannot insert " + (literal instanceof SqlTokens.Token tok
                ? "'" + tok.text() + "'" : literal) + " into column " + c.name() + " ("
                + ServerTypes.serverTypeName(c) + ") of table " + table + ", row " + row);
    }

    private static Value value(String table, TableSchema.Column c, int row, Object literal) {
        if (literal == null) {
            return Value.getDefaultInstance();
        }
        String text = literal instanceof SqlTokens.Token tok ? tok.text() : null;
        BigDecimal number = literal instanceof BigDecimal n ? n
                : literal instanceof Double d && Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
        Value.Builder b = Value.newBuilder();
        try {
            switch (c.dataType()) {
                case Bool:
                    if (literal instanceof Boolean bool) {
                        return b.setBoolValue(bool).build();
                    }
                    throw cannot(table, c, row, literal);
                case Int8: return b.setI8Value(integer(number, text).byteValueExact()).build();
                case Int16: return b.setI16Value(integer(number, text).shortValueExact()).build();
                case Int32: return b.setI32Value(integer(number, text).intValueExact()).build();
                case Int64: return b.setI64Value(integer(number, text).longValueExact()).build();
                case UInt8: return b.setU8Value(unsigned(integer(number, text), 8).intValue()).build();
                case UInt16: return b.setU16Value(unsigned(integer(number, text), 16).intValue()).build();
                case UInt32: return b.setU32Value(unsigned(integer(number, text), 32).intValue()).build();
                case UInt64: return b.setU64Value(unsigned(integer(number, text), 64).longValue()).build();
                case Float32:
                    return b.setF32Value(literal instanceof Double d ? d.floatValue() : decimal(number, text).floatValue())
                            .build();
                case Float64:
                    return b.setF64Value(literal instanceof Double d ? d : decimal(number, text).doubleValue()).build();
                case String: case Json:
                    return b.setStringValue(text != null ? text : number != null ? number.toPlainString()
                            : literal.toString()).build();
                case Binary:
                    if (text == null) {
                        throw cannot(table, c, row, literal);
                    }
                    return b.setBinaryValue(ByteString.copyFrom(text.getBytes(StandardCharsets.UTF_8))).build();
                case Date:
                    return b.setDateValue(text != null ? (int) LocalDate.parse(text).toEpochDay()
                            : integer(number, null).intValueExact()).build();
                case TimestampSecond: return b.setTimestampSecondValue(timestamp(number, text, 1L)).build();
                case TimestampMillisecond: return b.setTimestampMillisecondValue(timestamp(number, text, 1_000L)).build();
                case TimestampMicrosecond:
                    return b.setTimestampMicrosecondValue(timestamp(number, text, 1_000_000L)).build();
                case TimestampNanosecond:
                    return b.setTimestampNanosecondValue(timestamp(number, text, 1_000_000_000L)).build();
                case TimeSecond: return b.setTimeSecondValue(integer(number, text).longValueExact()).build();
                case TimeMillisecond: return b.setTimeMillisecondValue(integer(number, text).longValueExact()).build();
                case TimeMicrosecond: return b.setTimeMicrosecondValue(integer(number, text).longValueExact()).build();
                case TimeNanosecond: return b.setTimeNanosecondValue(integer(number, text).longValueExact()).build();
                case Decimal128: {
                    BigInteger unscaled = decimal(number, text).setScale(c.decimalType().scale(), RoundingMode.HALF_UP)
                            .unscaledValue();
                    return b.setDecimal128Value(Decimal128.newBuilder().setHi(unscaled.shiftRight(64).longValue())
                            .setLo(unscaled.longValue())).build();
                }
                default:
                    throw cannot(table, c, row, literal);
            }
        } catch (ArithmeticException | NumberFormatException | DateTimeParseException e) {
            throw cannot(table, c, row, literal);
        }
    }

    private static BigDecimal decimal(BigDecimal number, String text) {
        return number != null ? number : new BigDecimal(text == null ? "x" : text.trim());
    }

    private static BigInteger integer(BigDecimal number, String text) {
        return decimal(number, text).toBigIntegerExact();
    }

    private static BigInteger unsigned(BigInteger v, int bits) {
        if (v.signum() < 0 || v.bitLength() > bits) {
            throw new ArithmeticException("out of range");
        }
        return v;
    }

    /** An integer in the column's unit, or a UTC date-time text converted to it. */
    private static long timestamp(BigDecimal number, String text, long perSecond) {
        if (text == null) {
            return integer(number, null).longValueExact();
        }
        String iso = text.trim().replace(' ', 'T');
        Instant at = iso.endsWith("Z") || iso.matches(".*[+-]\\d\\d:\\d\\d$") ? Instant.parse(iso)
                : (iso.contains("T") ? LocalDateTime.parse(iso) : LocalDate.parse(iso).atStartOfDay())
                        .toInstant(ZoneOffset.UTC);
        BigInteger nanos = BigInteger.valueOf(at.getEpochSecond()).multiply(BigInteger.valueOf(1_000_000_000L))
                .add(BigInteger.valueOf(at.getNano()));
        return nanos.multiply(BigInteger.valueOf(perSecond)).divide(BigInteger.valueOf(1_000_000_000L)).longValueExact();
    }
}
