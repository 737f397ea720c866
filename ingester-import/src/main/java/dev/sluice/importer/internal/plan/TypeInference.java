package dev.sluice.importer.internal.plan;

import dev.sluice.data.DataType;
import dev.sluice.importer.internal.source.Decimals;
import dev.sluice.importer.internal.source.RecordSource;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Set;

/**
 * Type inference: what a sample tells about one source column, and the type it gives the column. JSON strings stay
 * strings unless they are ISO times; integers beyond Int64 keep every digit.
 */
final class TypeInference {
    /** Names taken for an integer time index when none is given and no column holds ISO-8601 times. */
    private static final Set<String> TIME_NAMES = Set.of("ts", "time", "timestamp", "_time", "time_index", "datetime",
            "date_time", "event_time");
    long values;
    boolean allLong = true;
    boolean allNumber = true;
    boolean allBool = true;
    boolean allIso = true;
    boolean anyNested;
    boolean allNested = true;
    int maxFraction;
    long firstLong;
    boolean haveFirstLong;
    /** Every value an integer, of any size; with {@link #bigUnsigned} and {@link #bigDigits} for those beyond Int64. */
    boolean allInteger = true;
    /** Every integer beyond Int64 is positive and within UInt64. */
    boolean bigUnsigned = true;
    /** The most digits of an integer beyond Int64 (0: none seen). */
    int bigDigits;
    /** A negative number was seen. */
    boolean anyNegative;
    /** Every non-integer number is written as plain digits with a point (no exponent, no NaN or infinity). */
    boolean plainFractions = true;
    /** The most digits after the point, and before it, of any number seen. */
    int maxScale;
    int maxIntegerDigits;

    /** Notes an integer beyond Int64 (its digits, without sign). */
    private void bigInteger(java.math.BigInteger b) {
        bigDigits = Math.max(bigDigits, b.abs().toString().length());
        if (b.bitLength() > 64) {
            bigUnsigned = false;
        }
    }

    /** Notes a number's sign and, as a decimal, its digits before and after the point. */
    private void digits(BigDecimal d) {
        if (d.signum() < 0) {
            anyNegative = true;
        }
        BigDecimal x = d.stripTrailingZeros();
        int scale = Math.max(0, x.scale());
        maxScale = Math.max(maxScale, scale);
        maxIntegerDigits = Math.max(maxIntegerDigits, Math.max(0, x.precision() - x.scale()));
    }

    void add(Object v, java.time.ZoneId zone) {
        if (v == null) {
            return;
        }
        values++;
        if (v instanceof Long l) {
            digits(BigDecimal.valueOf(l));
            allBool = false;
            allIso = false;
            allNested = false;
            if (!haveFirstLong) {
                firstLong = l;
                haveFirstLong = true;
            }
        } else if (v instanceof Double || v instanceof BigDecimal) {
            if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
                plainFractions = false;
            } else {
                digits(v instanceof BigDecimal b ? b : BigDecimal.valueOf((Double) v));
            }
            if (v instanceof BigDecimal b && b.stripTrailingZeros().scale() <= 0) {
                bigInteger(b.toBigIntegerExact());
            } else {
                allInteger = false;
            }
            allLong = false;
            allBool = false;
            allIso = false;
            allNested = false;
        } else if (v instanceof Boolean) {
            allInteger = false;
            allLong = false;
            allNumber = false;
            allIso = false;
            allNested = false;
        } else if (v instanceof RecordSource.JsonText) {
            anyNested = true;
            allInteger = false;
            allLong = false;
            allNumber = false;
            allBool = false;
            allIso = false;
        } else {
            String s = v.toString().strip();
            allNested = false;
            if (!isLong(s)) {
                allLong = false;
                if (isIntegerText(s)) {
                    java.math.BigInteger b = new java.math.BigInteger(s.startsWith("+") ? s.substring(1) : s);
                    bigInteger(b);
                    digits(new BigDecimal(b));
                } else {
                    allInteger = false;
                }
                if (!isNumber(s)) {
                    allNumber = false;
                } else if (!isIntegerText(s)) {
                    if (isPlainDecimal(s)) {
                        digits(new BigDecimal(s));
                    } else {
                        plainFractions = false;
                    }
                }
            } else {
                long l = Long.parseLong(s);
                digits(BigDecimal.valueOf(l));
                if (!haveFirstLong) {
                    firstLong = l;
                    haveFirstLong = true;
                }
            }
            if (!s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
                allBool = false;
            }
            if (allIso) {
                if (TimeFormat.iso(s, zone) == null) {
                    allIso = false;
                } else {
                    maxFraction = Math.max(maxFraction, TimeFormat.fractionDigits(s));
                }
            }
        }
    }

    /** The inferred type; JSON strings stay strings unless they are ISO times. */
    TypeNames.Type type(boolean jsonSource, Object anyValue) {
        if (values == 0) {
            return new TypeNames.Type(DataType.String, null);
        }
        if (anyNested) {
            return new TypeNames.Type(allNested ? DataType.Json : DataType.Json, null);
        }
        if (allIso) {
            return new TypeNames.Type(isoUnit(), null);
        }
        boolean stringsSeen = jsonSource && anyValue instanceof String;
        if (!stringsSeen) {
            if (allBool) {
                return new TypeNames.Type(DataType.Bool, null);
            }
            if (allLong) {
                return new TypeNames.Type(DataType.Int64, null);
            }
            if (allInteger && allNumber) {
                // Integers beyond Int64 keep every digit: UInt64 when they all fit it, else a decimal of scale
                // 0, else text (Float64 would round them).
                if (bigUnsigned && !anyNegative) {
                    return new TypeNames.Type(DataType.UInt64, null);
                }
                if (bigDigits <= 38) {
                    return new TypeNames.Type(DataType.Decimal128, new dev.sluice.data.DecimalType(38, 0));
                }
                return new TypeNames.Type(DataType.String, null);
            }
            if (allNumber && bigDigits > 0 && plainFractions && maxIntegerDigits + maxScale <= 38) {
                // Fractions beside integers beyond Int64: a decimal holding both exactly.
                return new TypeNames.Type(DataType.Decimal128, new dev.sluice.data.DecimalType(38, maxScale));
            }
            if (allNumber && bigDigits == 0) {
                return new TypeNames.Type(DataType.Float64, null);
            }
        }
        return new TypeNames.Type(DataType.String, null);
    }

    DataType isoUnit() {
        return maxFraction <= 3 ? DataType.TimestampMillisecond : maxFraction <= 6 ? DataType.TimestampMicrosecond
                : DataType.TimestampNanosecond;
    }

    /** Tells whether a column name reads as a time: ts, time, timestamp..., or ending in _ts, _time, _timestamp. */
    static boolean timeLike(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return TIME_NAMES.contains(n) || n.endsWith("_ts") || n.endsWith("_time") || n.endsWith("_timestamp");
    }

    static boolean isLong(String s) {
        if (!isIntegerText(s)) {
            return false;
        }
        try {
            Long.parseLong(s); // a sign and leading zeros are fine; digits beyond Int64 are not
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Tells whether text is a number of plain digits with one point: {@code -12.50}, {@code .5}, {@code 3.}. */
    static boolean isPlainDecimal(String s) {
        int n = s.length();
        int i = n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
        boolean point = false;
        boolean digit = false;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c == '.' && !point) {
                point = true;
            } else if (c >= '0' && c <= '9') {
                digit = true;
            } else {
                return false;
            }
        }
        return digit;
    }

    /** Tells whether text is an integer of any size: an optional sign and digits. */
    static boolean isIntegerText(String s) {
        int n = s.length();
        int i = n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
        if (i == n) {
            return false;
        }
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        char c = s.charAt(0);
        if (!(c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'))) {
            return s.equals("NaN") || s.equals("Infinity");
        }
        try {
            Decimals.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
