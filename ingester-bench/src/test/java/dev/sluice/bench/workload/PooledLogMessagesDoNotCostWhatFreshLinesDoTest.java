package dev.sluice.bench.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.bench.workload.LogWorkload;
import dev.sluice.data.Table;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * LogWorkload's Javadoc: its pools "are larger than the client's cache of encoded text, so that they cost what fresh
 * strings do". Since stop 25 a Table keeps long ASCII text as the caller's String. With the pool, that String is
 * already held by the workload, so a filled table retains almost nothing per message; with fresh log lines (a new
 * String per row, as a service decoding log lines from bytes has), the table retains each ~2 KB String until it is
 * encoded, exactly as it retained a ~2 KB array before stop 25. The benchmark's logs RSS ("559-720 MiB, met")
 * therefore measures a case where the caller's pool holds the client's data for it.
 *
 * <p>This fills one 32,768-row table (the regular path's writers hold four of 65,536) from the workload, once with
 * the pooled messages and once with a fresh copy of each, and compares the heap each table retains.
 */
class PooledLogMessagesDoNotCostWhatFreshLinesDoTest {
    static final int ROWS = 32_768;

    static long used() {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    static long retainedPerRow(LogWorkload wl, boolean fresh) {
        long base = used();
        Table table = Table.from(wl.schema(), ROWS);
        wl.fill(row -> {
            if (fresh) {
                // a fresh log line: the same characters, a String of its own, decoded from bytes
                row[4] = new String(((String) row[4]).getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            }
            table.addRow(row);
        }, 0, ROWS);
        long with = used();
        Reference.reachabilityFence(table);
        return (with - base) / ROWS;
    }

    @Test
    void aTableOfPooledLogRowsRetainsAboutWhatATableOfFreshLogLinesDoes() {
        LogWorkload wl = new LogWorkload(42);
        retainedPerRow(wl, false); // warm-up
        long pooled = retainedPerRow(wl, false);
        long fresh = retainedPerRow(wl, true);
        System.out.println("tester25: retained heap per row, pooled messages " + pooled + " B, fresh messages "
                + fresh + " B");
        assertTrue(pooled * 3 >= fresh * 2, "pooled log rows retain " + pooled + " B/row, fresh log lines " + fresh
                + " B/row: the pool does not cost what fresh strings do");
        Reference.reachabilityFence(wl);
    }
}
