package dev.sluice.importer.internal.plan;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.sluice.data.DataType;
import dev.sluice.data.InvalidDataException;
import dev.sluice.data.RowAppender;
import dev.sluice.importer.internal.source.Decimals;
import dev.sluice.importer.internal.source.FieldText;
import dev.sluice.importer.internal.source.RecordSource;
import dev.sluice.importer.internal.source.Utf8Text;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/** Value binding: converts a source value to its table column's type and sets it into a row. */
public final class ValueBinding {
    private final List<Plan.Col> cols;
    /** Values come from JSON: a string is a JSON string, which a Json column stores quoted. */
    private final boolean jsonSource;
    private final ZoneId zone;

    ValueBinding(List<Plan.Col> cols, boolean jsonSource, ZoneId zone) {
        this.cols = cols;
        this.jsonSource = jsonSource;
        this.zone = zone;
    }

    /** An epoch number in the column's unit; a time the column's time format refuses is a bad value of the column. */
    private static long units(Plan.Col c, Object epoch, DataType t) throws BadValue {
        try {
            return c.timeFormat().toUnits(epoch, t.unitsPerSecond());
        } catch (IllegalArgumentException e) {
            throw new BadValue(c.name(), e.getMessage());
        }
    }

    /** A finite double that a Float32 column would turn into an infinity is refused. */
    private static double inRange(Plan.Col c, DataType t, double d, Object source) throws BadValue {
        if (t == DataType.Float32 && !Double.isInfinite(d) && Math.abs(d) > Float.MAX_VALUE) {
            throw new BadValue(c.name(), "'" + source + "' is beyond Float32's range");
        }
        return d;
    }

    /**
     * Whether a float holds an integer exactly.
     *
     * @param d the float
     * @param integer the integer
     * @return true when {@code d} is the integer's exact value
     */
    static boolean holdsExactly(double d, BigInteger integer) {
        return !Double.isInfinite(d) && !Double.isNaN(d) && new BigDecimal(d).toBigInteger().equals(integer)
                && d == Math.rint(d);
    }

    /** An integer into a float column: its exact value, or a bad value naming column and integer. */
    private static double exactFloat(Plan.Col c, DataType t, BigInteger integer) throws BadValue {
        double d = t == DataType.Float32 ? integer.floatValue() : integer.doubleValue();
        if (!holdsExactly(d, integer)) {
            throw new BadValue(c.name(), "the integer " + integer + " has no exact " + t + " value (the nearest is "
                    + (Double.isInfinite(d) ? d : new BigDecimal(d).toPlainString()) + "): write it with a decimal point"
                    + " if the rounding is wanted, or give the column another type with --types");
        }
        return d;
    }

    /** Whether a float read from text may have rounded an integer: beyond the float's consecutive integers. */
    private static boolean mayRoundAnInteger(DataType t, double d) {
        return Math.abs(d) >= (t == DataType.Float32 ? 0x1p24 : 0x1p53);
    }

    /**
     * Sets one value into a row.
     *
     * @param a the row appender
     * @param index the column index (schema order)
     * @param v the source value (never null)
     * @throws BadValue when the value does not fit
     */
    public void set(RowAppender a, int index, Object v) throws BadValue {
        Plan.Col c = cols.get(index);
        DataType t = c.type().type();
        try {
            if (v instanceof FieldText f) {
                setField(a, index, c, t, f);
            } else if (v instanceof Utf8Text u) {
                if (t == DataType.String) {
                    try {
                        a.setUtf8(index, u.bytes(), u.offset(), u.byteLength());
                    } catch (InvalidDataException e) {
                        String r = e.reason();
                        int from = r.indexOf("(byte ");
                        String at = from < 0 ? "" : " " + r.substring(from, r.indexOf(')', from) + 1);
                        throw new BadValue(c.name(), "the text is not well-formed UTF-8" + at + ", as Parquet strings"
                                + " must be: fix the file, or --skip the column");
                    }
                } else {
                    setText(a, index, c, t, u.toString());
                }
            } else if (v instanceof String s) {
                if (jsonSource && t == DataType.Json) {
                    a.setString(index, '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"');
                } else {
                    setText(a, index, c, t, s);
                }
            } else if (v instanceof Long l) {
                if (t.isTimestamp()) {
                    a.setLong(index, c.timeFormat() != null && c.timeFormat().kind() == TimeFormat.Kind.EPOCH
                            ? units(c, l, t) : l);
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, Long.toString(l));
                } else if (t == DataType.Decimal128) {
                    a.setDecimal(index, BigDecimal.valueOf(l));
                } else if (t == DataType.Bool) {
                    throw new BadValue(c.name(), l + " is not a boolean");
                } else if (t == DataType.Float64 || t == DataType.Float32) {
                    a.setDouble(index, mayRoundAnInteger(t, l) ? exactFloat(c, t, BigInteger.valueOf(l)) : l);
                } else if (l < 0 && (t == DataType.UInt8 || t == DataType.UInt16 || t == DataType.UInt32
                        || t == DataType.UInt64)) {
                    throw new BadValue(c.name(), l + " is negative; " + t + " takes no negative numbers");
                } else {
                    a.setLong(index, l);
                }
            } else if (v instanceof Double d) {
                if (t == DataType.Float64 || t == DataType.Float32) {
                    if (jsonSource && Double.isInfinite(d)) {
                        // JSON has no infinity: the number overflowed Float64.
                        throw new BadValue(c.name(), "a number beyond " + c.type() + "'s range");
                    }
                    a.setDouble(index, inRange(c, t, d, d));
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, Double.toString(d));
                } else if (t == DataType.Decimal128) {
                    a.setDecimal(index, BigDecimal.valueOf(d));
                } else if (t.isTimestamp() && c.timeFormat() != null && c.timeFormat().kind() == TimeFormat.Kind.EPOCH) {
                    a.setLong(index, units(c, d, t));
                } else if (d == Math.rint(d) && !t.isTimestamp() && t != DataType.Bool) {
                    a.setLong(index, d.longValue());
                } else {
                    throw new BadValue(c.name(), d + " does not fit " + c.type());
                }
            } else if (v instanceof BigDecimal bd) {
                if (t == DataType.Decimal128) {
                    a.setDecimal(index, bd);
                } else if (t == DataType.UInt64) {
                    a.setValue(index, bd.toBigIntegerExact());
                } else {
                    setText(a, index, c, t, bd.toPlainString());
                }
            } else if (v instanceof Boolean bo) {
                if (t == DataType.Bool) {
                    a.setBoolean(index, bo);
                } else if (t == DataType.String || t == DataType.Json) {
                    a.setString(index, bo.toString());
                } else {
                    throw new BadValue(c.name(), bo + " does not fit " + c.type());
                }
            } else if (v instanceof RecordSource.JsonText j) {
                if (t == DataType.Json || t == DataType.String) {
                    a.setString(index, j.text());
                } else {
                    throw new BadValue(c.name(), "a nested JSON value does not fit " + c.type());
                }
            } else {
                a.setValue(index, v);
            }
        } catch (IllegalArgumentException | ArithmeticException | DateTimeParseException e) {
            // The client's own message names a batch's row: the caller names the input's line instead.
            throw new BadValue(c.name(), e instanceof InvalidDataException ide ? ide.reason() : e.getMessage());
        }
    }

    /**
     * Sets a CSV field: integers, decimals and epoch times are read from its bytes when they are written plainly, and
     * text goes to a String column as its bytes; everything else, and anything unusual (signs, spaces, exponents...),
     * as text by {@link #setText}.
     */
    private void setField(RowAppender a, int index, Plan.Col c, DataType t, FieldText f) throws BadValue {
        switch (t) {
            case Int8: case Int16: case Int32: case Int64: case UInt8: case UInt16: case UInt32: {
                long l = f.plainLong();
                if (l != Long.MIN_VALUE) {
                    a.setLong(index, l);
                    return;
                }
                break;
            }
            case Float32: case Float64: {
                double d;
                try {
                    d = f.toDouble();
                } catch (NumberFormatException e) {
                    break; // the text path names the value
                }
                if (!Double.isInfinite(d) && (t == DataType.Float64 || Math.abs(d) <= Float.MAX_VALUE)
                        && !mayRoundAnInteger(t, d)) {
                    a.setDouble(index, d);
                    return;
                }
                break;
            }
            case TimestampSecond: case TimestampMillisecond: case TimestampMicrosecond: case TimestampNanosecond: {
                TimeFormat tf = c.timeFormat();
                if (tf != null && tf.kind() == TimeFormat.Kind.EPOCH) {
                    long l = f.plainLong();
                    if (l != Long.MIN_VALUE) {
                        a.setLong(index, units(c, l, t));
                        return;
                    }
                }
                break;
            }
            case String:
                f.setText(a, index);
                return;
            default:
                break;
        }
        setText(a, index, c, t, f.toString());
    }

    private void setText(RowAppender a, int index, Plan.Col c, DataType t, String s) throws BadValue {
        switch (t) {
            case String:
            case Json:
                a.setString(index, s);
                return;
            case Int8: case Int16: case Int32: case Int64: case UInt8: case UInt16: case UInt32: {
                String x = s.strip();
                long l;
                try {
                    l = Long.parseLong(x);
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not an integer (" + c.type() + ")");
                }
                a.setLong(index, l);
                return;
            }
            case UInt64:
                try {
                    a.setValue(index, new BigInteger(s.strip()));
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not an integer (UInt64)");
                }
                return;
            case Float32: case Float64: {
                double d;
                try {
                    d = Decimals.parseDouble(s);
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a number (" + c.type() + ")");
                }
                // An infinity only when the text says so: 1e400 overflows to one.
                if (Double.isInfinite(d) && !s.toLowerCase(Locale.ROOT).contains("inf")) {
                    throw new BadValue(c.name(), "'" + s + "' is beyond " + c.type() + "'s range");
                }
                String integer = s.strip();
                if (mayRoundAnInteger(t, d) && TypeInference.isIntegerText(integer)) {
                    d = exactFloat(c, t, new BigInteger(integer.startsWith("+") ? integer.substring(1) : integer));
                }
                a.setDouble(index, inRange(c, t, d, s));
                return;
            }
            case Bool: {
                String x = s.strip().toLowerCase(Locale.ROOT);
                switch (x) {
                    case "true": case "t": case "1": case "yes": case "y": a.setBoolean(index, true); return;
                    case "false": case "f": case "0": case "no": case "n": a.setBoolean(index, false); return;
                    default: throw new BadValue(c.name(), "'" + s + "' is not a boolean (true/false, 1/0, yes/no)");
                }
            }
            case Decimal128:
                try {
                    a.setDecimal(index, new BigDecimal(s.strip()));
                } catch (NumberFormatException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a decimal number");
                }
                return;
            case Date:
                try {
                    a.setLong(index, LocalDate.parse(s.strip()).toEpochDay());
                } catch (DateTimeParseException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a date (yyyy-MM-dd)");
                }
                return;
            case TimeSecond: case TimeMillisecond: case TimeMicrosecond: case TimeNanosecond:
                try {
                    a.setValue(index, LocalTime.parse(s.strip()));
                } catch (DateTimeParseException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not a time of day (HH:mm:ss[.fff])");
                }
                return;
            case Binary:
                try {
                    a.setBytes(index, Base64.getDecoder().decode(s.strip()));
                } catch (IllegalArgumentException e) {
                    throw new BadValue(c.name(), "'" + s + "' is not base64 (Binary columns take base64 text)");
                }
                return;
            case TimestampSecond: case TimestampMillisecond: case TimestampMicrosecond: case TimestampNanosecond: {
                TimeFormat f = c.timeFormat() != null ? c.timeFormat() : TimeFormat.parse("iso", zone);
                try {
                    a.setLong(index, f.toUnits(s, t.unitsPerSecond()));
                } catch (IllegalArgumentException e) {
                    throw new BadValue(c.name(), e.getMessage());
                }
                return;
            }
            default:
                throw new BadValue(c.name(), "type " + c.type() + " cannot be read from text");
        }
    }
}
