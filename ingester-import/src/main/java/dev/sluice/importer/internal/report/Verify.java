package dev.sluice.importer.internal.report;

import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.state.State;
import dev.sluice.importer.internal.target.ServerSql;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;

/** {@code --verify}: compares the tables' counts with the counts before the import plus the rows acknowledged. */
public final class Verify {
    private final State state;
    private final Stats stats;
    private final PrintStream err;

    /**
     * Creates the check.
     *
     * @param state the import's state (its counts before and rows acknowledged)
     * @param stats where the time of the check goes
     * @param err where a disagreement is told
     */
    public Verify(State state, Stats stats, PrintStream err) {
        this.state = state;
        this.stats = stats;
        this.err = err;
    }

    /**
     * {@code --verify} of one table: its count(*) against its count before the import plus the rows acknowledged.
     *
     * @param sql the HTTP SQL client
     * @param table the table
     * @param summary where the counts and the verdict go
     */
    public void oneTable(ServerSql sql, String table, Summary summary) {
        stats.verifyFrom = System.nanoTime();
        try {
            verifyCount(sql, table, summary);
        } finally {
            stats.verifyUntil = System.nanoTime();
        }
    }

    private void verifyCount(ServerSql sql, String table, Summary summary) {
        long expected = state.countBefore < 0 ? -1 : state.countBefore;
        for (State.Entry e : state.entries) {
            expected += e.acked - e.rejected;
        }
        try {
            long count = sql.count(table);
            summary.verifyCount = count;
            summary.verifyExpected = state.countBefore < 0 ? null : expected;
            summary.verifyOk = state.countBefore < 0 ? null : count == expected;
            if (summary.verifyOk != null && !summary.verifyOk) {
                err.println("verify: table '" + table + "' holds " + count + " rows, expected " + expected + " ("
                        + state.countBefore + " before the import + rows acknowledged). Fewer can mean rows of the input"
                        + " share a primary key and time (the table keeps the last); more, that others write to it too.");
            }
        } catch (IOException e) {
            throw new ImportFailure("--verify: " + e.getMessage(), e);
        }
    }

    /**
     * {@code --verify} of a line protocol import: each table's count(*) against its count before plus the rows
     * acknowledged.
     *
     * @param sql the HTTP SQL client
     * @param summary where the counts and the verdict go
     */
    public void perTable(ServerSql sql, Summary summary) {
        stats.verifyFrom = System.nanoTime();
        try {
            verifyCounts(sql, summary);
        } finally {
            stats.verifyUntil = System.nanoTime();
        }
    }

    private void verifyCounts(ServerSql sql, Summary summary) {
        Map<String, Long> expected = new java.util.TreeMap<>();
        synchronized (state) {
            for (State.Entry e : state.entries) {
                e.tableRows.forEach((t, n) -> expected.merge(t, n, Long::sum));
            }
            for (String t : expected.keySet()) {
                Long before = state.tableCountsBefore.get(t);
                expected.merge(t, before == null ? -1 : before, (a, b) -> b < 0 ? Long.MIN_VALUE : a + b);
            }
        }
        long count = 0;
        long want = 0;
        boolean ok = true;
        boolean known = true;
        for (Map.Entry<String, Long> t : expected.entrySet()) {
            long c;
            try {
                c = sql.count(t.getKey());
            } catch (IOException e) {
                throw new ImportFailure("--verify: table '" + t.getKey() + "': " + e.getMessage(), e);
            }
            count += c;
            if (t.getValue() < 0) {
                known = false;
                err.println("verify: table '" + t.getKey() + "' holds " + c + " rows; its count before the import is"
                        + " not known (the HTTP API did not answer then)");
                continue;
            }
            want += t.getValue();
            if (c != t.getValue()) {
                ok = false;
                err.println("verify: table '" + t.getKey() + "' holds " + c + " rows, expected " + t.getValue()
                        + " (its count before the import + rows acknowledged). Fewer can mean lines share a series and"
                        + " time (the table keeps the last); more, that others write to it too.");
            }
        }
        summary.verifyCount = count;
        summary.verifyExpected = known ? want : null;
        summary.verifyOk = known ? ok : null;
    }
}
