package dev.sluice.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** A table reset and refilled from the caller's pools stops re-encoding the pooled text values. */
class ReusedTableTextTest {
    @Test
    void aResetTableFedFromAThousandHostNamesEncodesEachNameOnceItHasSeenThemAll() {
        TableSchema schema = TableSchema.newBuilder("cpu").addTag("host", DataType.String)
                .addField("v", DataType.Float64).addTimestamp("ts", DataType.TimestampMillisecond).build();
        String[] hosts = new String[1_000];
        for (int i = 0; i < hosts.length; i++) {
            hosts[i] = "host-" + i;
        }
        Table t = Table.from(schema, 1_000);
        byte[][] last = new byte[hosts.length][];
        for (int fill = 0; fill < 8; fill++) {
            t.reset();
            RowAppender a = t.appender();
            for (int i = 0; i < hosts.length; i++) {
                a.setString(0, hosts[i]).setDouble(1, i).setLong(2, 1_700_000_000_000L + i).endRow();
            }
            t.complete();
            for (int i = 0; i < hosts.length; i++) {
                assertEquals(hosts[i], t.column(0).getString(i));
                byte[] now = t.column(0).getBytes(i);
                if (fill == 7) {
                    assertSame(last[i], now, "host " + i + " was encoded again on the eighth fill");
                }
                last[i] = now;
            }
        }
    }
}
