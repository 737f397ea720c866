package dev.sluice.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.Table;
import org.junit.jupiter.api.Test;

class TypedRowsTest {
    private static void assertSameTables(Table expected, Table actual) {
        assertEquals(expected.rowCount(), actual.rowCount());
        for (int c = 0; c < expected.schema().columnCount(); c++) {
            ColumnVector e = expected.column(c);
            ColumnVector a = actual.column(c);
            DataType type = e.dataType();
            for (int r = 0; r < expected.rowCount(); r++) {
                assertEquals(e.isNull(r), a.isNull(r));
                if (type == DataType.String) {
                    assertArrayEquals(e.getBytes(r), a.getBytes(r), "column " + c + " row " + r);
                } else if (type == DataType.Float64) {
                    assertEquals(Double.doubleToRawLongBits(e.getDouble(r)), Double.doubleToRawLongBits(a.getDouble(r)),
                            "column " + c + " row " + r);
                } else {
                    assertEquals(e.getLong(r), a.getLong(r), "column " + c + " row " + r);
                }
            }
        }
    }

    @Test
    void typedMetricsRowsHoldTheSameValuesAsObjectRows() {
        Workload w = Workload.named("metrics", 42);
        assertSameTables(w.batch(999_000, 3_000), w.typedRows().batch(999_000, 3_000));
    }

    @Test
    void typedLogRowsHoldTheSameValuesAsObjectRows() {
        Workload w = Workload.named("logs", 42);
        assertSameTables(w.batch(12_345, 2_000), w.typedRows().batch(12_345, 2_000));
    }
}
