package dev.sluice.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.data.Table;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * LogWorkload's Javadoc: its pools "are larger than the client's cache of encoded text, so that they cost what fresh
 * strings do". A Table keeps long ASCII text as the caller's String: were a row's message a String the workload's
 * pool holds, a filled table would retain almost nothing per message, where a service decoding log lines from bytes
 * has a table retain each ~2 KB String until it is encoded, and the benchmark's logs figures would measure a case
 * where the caller's pool holds the client's data for it.
 *
 * <p>This checks the cause rather than comparing two heap measurements: each row the workload fills carries a
 * message String of its own, and once the table is gone nothing of the workload keeps those Strings alive, so a
 * table of the workload's rows retains what a table of fresh log lines does.
 */
class PooledLogMessagesDoNotCostWhatFreshLinesDoTest {
    static final int ROWS = 4_096;

    @Test
    void aTableOfPooledLogRowsRetainsAboutWhatATableOfFreshLogLinesDoes() throws InterruptedException {
        LogWorkload wl = new LogWorkload(42);
        Set<String> messages = Collections.newSetFromMap(new IdentityHashMap<>());
        List<WeakReference<String>> refs = new ArrayList<>();
        Table table = Table.from(wl.schema(), ROWS);
        wl.fill(row -> {
            String message = (String) row[4];
            messages.add(message);
            refs.add(new WeakReference<>(message));
            table.addRow(row);
        }, 0, ROWS);
        assertEquals(ROWS, messages.size(), "every row's message is a String of its own, as a fresh log line is");
        assertEquals(ROWS, table.rowCount());
        messages.clear();
        Reference.reachabilityFence(table);
        // The table is now unreachable: every message must become collectable while the workload lives on.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (refs.stream().anyMatch(r -> r.get() != null)) {
            if (System.nanoTime() > deadline) {
                long alive = refs.stream().filter(r -> r.get() != null).count();
                fail(alive + " of " + ROWS + " messages are still reachable without the table: the workload keeps them");
            }
            System.gc();
            Thread.onSpinWait();
        }
        Reference.reachabilityFence(wl);
    }
}
