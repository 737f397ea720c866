package dev.sluice.internal.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.data.DataType;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ArrayColumnAnyNullTest {
    @Test
    void anyNullAgreesWithIsNullOverEveryRangeAcrossBitmapWordEdges() {
        Random random = new Random(11);
        for (int trial = 0; trial < 40; trial++) {
            int rows = 1 + random.nextInt(200);
            ArrayColumn c = new ArrayColumn(DataType.Float64, 4);
            for (int r = 0; r < rows; r++) {
                c.ensureCapacity(r);
                if (random.nextInt(trial % 4 == 0 ? 2 : 90) == 0) {
                    c.setNull(r);
                } else {
                    c.setDouble(r, r);
                }
            }
            for (int from = 0; from <= rows; from++) {
                for (int to = from; to <= rows; to++) {
                    boolean expected = false;
                    for (int r = from; r < to; r++) {
                        expected |= c.isNull(r);
                    }
                    assertEquals(expected, c.anyNull(from, to), "rows " + from + ".." + to + " of " + rows);
                }
            }
        }
    }

    @Test
    void aRowWrittenAgainAfterBeingNullIsNoLongerNull() {
        ArrayColumn c = new ArrayColumn(DataType.Int64, 130);
        for (int r = 0; r < 130; r++) {
            c.setNull(r);
        }
        assertEquals(true, c.anyNull(64, 130));
        for (int r = 0; r < 130; r++) {
            c.setLong(r, r);
        }
        assertEquals(false, c.anyNull(0, 130));
    }
}
