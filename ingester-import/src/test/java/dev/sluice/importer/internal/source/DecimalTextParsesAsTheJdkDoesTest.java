package dev.sluice.importer.internal.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Numeric text becomes exactly the {@code double} the JDK makes of it, and what the JDK refuses is refused. */
class DecimalTextParsesAsTheJdkDoesTest {

    /** The text alone, and the same text as a CSV field inside a longer record (read from its UTF-8 bytes). */
    private static void agrees(String s) {
        byte[] record = ("x," + s + ",y").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        FieldText field = new FieldText(record, 2, record.length - 2);
        double expected;
        try {
            expected = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            assertThrows(NumberFormatException.class, () -> Decimals.parseDouble(s), "'" + s + "' is refused");
            assertThrows(NumberFormatException.class, field::toDouble, "'" + s + "' is refused as a field");
            return;
        }
        assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(Decimals.parseDouble(s)),
                "'" + s + "'");
        assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(field.toDouble()),
                "'" + s + "' as a field");
    }

    @Test
    void randomDoublesInEveryNotationParseToTheSameBits() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(r.nextLong()); // any bit pattern: subnormals, NaNs, huge
                case 1 -> r.nextDouble() * Math.pow(10, r.nextInt(-30, 30));
                case 2 -> Math.round(r.nextDouble() * 1e6) / 1e3; // short decimals, as metrics files hold
                default -> r.nextLong();
            };
            agrees(Double.toString(d));
            agrees(String.format(java.util.Locale.ROOT, "%.17g", d));
            agrees(String.format(java.util.Locale.ROOT, "%.3f", d));
            if (Double.isFinite(d)) {
                agrees(new java.math.BigDecimal(d).toPlainString()); // exact expansions, up to hundreds of digits
            }
        }
    }

    @Test
    void edgeCasesAndNonNumbersAgree() {
        List<String> cases = new ArrayList<>(List.of(
                "0", "-0", "+0", "0.0", "-0.0", ".5", "5.", "-.5", "1e308", "1e309", "-1e309", "1e-324", "4.9e-324",
                "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
                "1.7976931348623158e308", "9007199254740993", "0.1", "0.30000000000000004",
                "NaN", "-NaN", "+NaN", "Infinity", "-Infinity", "+Infinity", "infinity", "nan", "inf",
                "0x1p3", "0x1.8p1", "-0X1P-2", "0x", "1d", "1D", "1f", "1F", "2.5e3d", " 1.5", "1.5 ", "\t2\n",
                "1_000", "1,5", "1e", "e1", "1e+", "--1", "+-1", "", " ", ".", "-", "+", "1.2.3", "0x1.8", "١٢",
                "00000000000000000000000000001.5", "1" + "0".repeat(400), "0." + "0".repeat(400) + "1",
                "123456789012345678901234567890e-10", "1E5", "1e05", "1e+05", "1e-05", "12abc", "abc"));
        for (String c : cases) {
            agrees(c);
        }
    }
}
