package dev.sluice.importer.internal.run;

import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.state.State;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;

/** The batches of one input in send order, for the acknowledged watermark. */
final class Tracker {
    final State.Entry entry;
    private final State state;
    private final boolean appendMode;
    private final Stats stats;
    private final ArrayDeque<long[]> pending = new ArrayDeque<>(); // {end, rejected, last, acked}
    private final Map<long[], Map<String, Long>> tableRows = new java.util.IdentityHashMap<>();
    /** The last record of the last batch added. */
    private long lastEnd;

    Tracker(State.Entry entry, State state, boolean appendMode, Stats stats) {
        this.entry = entry;
        this.state = state;
        this.appendMode = appendMode;
        this.stats = stats;
        this.lastEnd = entry.acked;
    }

    long[] add(long end, long rejected, boolean last) {
        return add(end, rejected, last, null, List.of());
    }

    /**
     * Adds a batch about to leave.
     *
     * @param end its last record
     * @param rejected its records rejected
     * @param last whether it ends the input
     * @param rowsPerTable line protocol: its rows per table, else null
     * @param parts append mode: its rows and time range per table, recorded as in doubt until acknowledged
     * @return its tracker entry
     */
    long[] add(long end, long rejected, boolean last, Map<String, Long> rowsPerTable, List<State.Part> parts) {
        long[] p = {end, rejected, last ? 1 : 0, 0};
        synchronized (state) {
            pending.add(p);
            if (rowsPerTable != null) {
                tableRows.put(p, rowsPerTable);
            }
            if (appendMode) {
                if (!parts.isEmpty()) {
                    entry.inDoubt.add(new State.Batch(lastEnd + 1, end, rejected, parts));
                }
                entry.sent = end;
                state.save();
            }
            lastEnd = end;
        }
        return p;
    }

    void acked(long[] p) {
        synchronized (state) {
            p[3] = 1;
            while (!pending.isEmpty() && pending.peek()[3] == 1) {
                long[] h = pending.poll();
                Map<String, Long> perTable = tableRows.remove(h);
                if (perTable != null) {
                    perTable.forEach((t, n) -> entry.tableRows.merge(t, n, Long::sum));
                }
                if (appendMode) {
                    for (State.Batch b : entry.inDoubt) {
                        if (b.to() <= h[0]) {
                            state.stored(b.parts());
                        }
                    }
                }
                entry.acked = h[0];
                entry.rejected += h[1];
                entry.settled();
                if (h[2] == 1) {
                    entry.done = true;
                    stats.inputsDone.incrementAndGet();
                }
            }
            if (appendMode) {
                state.save();
            } else {
                state.saveSoon();
            }
        }
    }
}
