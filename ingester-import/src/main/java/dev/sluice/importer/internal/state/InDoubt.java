package dev.sluice.importer.internal.state;

import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.source.Inputs;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells which in-doubt batches of an append-mode import arrived ({@code --in-doubt check}). Each batch is recorded
 * in the state file before it leaves with its rows and their time range per table; a rerun counts each table's rows
 * in each batch's range over HTTP SQL. A batch arrived when the table holds exactly its rows there, and did not when
 * it holds none there. That holds only where nothing else is in the range: batches whose ranges overlap on a table
 * (in doubt, or acknowledged: the state keeps the acknowledged batches' time ranges), and any other count (a part of a request stored, rows of other writers in the range), cannot be decided.
 */
public final class InDoubt {
    /** Counts a table's rows in a part's time range. */
    public interface Counter {
        /**
         * Counts rows.
         *
         * @param part the table and time range
         * @return the rows the table holds in the range
         * @throws IOException when the server cannot be asked
         */
        long count(State.Part part) throws IOException;
    }

    /**
     * What the check found.
     *
     * @param arrived the batches stored, as {@code 'input' records a..b}
     * @param missing the batches not stored
     * @param undecided the batches that cannot be decided, with the reason
     */
    public record Verdict(List<String> arrived, List<String> missing, List<String> undecided) {
    }

    private InDoubt() {
    }

    /**
     * The parts of a batch: per table its rows and time index range.
     *
     * @param tables the batch's tables
     * @return one part per table with rows
     */
    public static List<State.Part> parts(List<Table> tables) {
        List<State.Part> out = new ArrayList<>();
        for (Table t : tables) {
            if (t.rowCount() == 0) {
                continue;
            }
            TableSchema s = t.schema();
            int ts = s.timestampIndex();
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (int r = 0; r < t.rowCount(); r++) {
                long v = t.column(ts).getLong(r);
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
            out.add(new State.Part(t.tableName(), s.column(ts).name(), s.column(ts).dataType().unitsPerSecond(),
                    t.rowCount(), min, max));
        }
        return out;
    }

    /**
     * Checks every in-doubt batch of the state. When each one is decided, records the stored ones as ranges a rerun
     * skips and forgets the in-doubt batches (the missing ones are read and sent again); otherwise changes nothing.
     *
     * @param state the state
     * @param counter asks the server
     * @return what was found
     * @throws IOException when the server cannot be asked
     */
    public static Verdict check(State state, Counter counter) throws IOException {
        List<String> arrived = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<String> undecided = new ArrayList<>();
        List<State.Part> all = new ArrayList<>();
        for (State.Entry e : state.entries) {
            if (!e.done && e.sent > e.acked) {
                if (covered(e) < e.sent) {
                    undecided.add(name(e, e.acked + 1, e.sent) + ": the state file does not record its batches");
                }
                e.inDoubt.forEach(b -> all.addAll(b.parts()));
            }
        }
        List<State.Batch> stored = new ArrayList<>();
        for (State.Entry e : state.entries) {
            if (e.done || e.sent <= e.acked) {
                continue;
            }
            for (State.Batch b : e.inDoubt) {
                String name = name(e, b.from(), b.to());
                String overlap = overlap(b, all, state);
                if (overlap != null) {
                    undecided.add(name + ": " + overlap);
                    continue;
                }
                int none = 0;
                int whole = 0;
                List<String> counts = new ArrayList<>();
                for (State.Part p : b.parts()) {
                    long n = counter.count(p);
                    none += n == 0 ? 1 : 0;
                    whole += n == p.rows() ? 1 : 0;
                    counts.add("'" + p.table() + "' holds " + n + " rows in its time range, the batch had " + p.rows());
                }
                if (whole == b.parts().size()) {
                    arrived.add(name);
                    stored.add(b);
                } else if (none == b.parts().size()) {
                    missing.add(name);
                } else {
                    undecided.add(name + ": " + String.join("; ", counts));
                }
            }
        }
        if (undecided.isEmpty()) {
            for (State.Entry e : state.entries) {
                if (e.done || e.sent <= e.acked) {
                    continue;
                }
                for (State.Batch b : e.inDoubt) {
                    if (stored.contains(b)) {
                        e.stored.add(new long[] {b.from(), b.to()});
                        state.stored(b.parts());
                        e.rejected += b.rejected();
                    }
                }
                e.inDoubt.clear();
                e.sent = e.acked;
            }
        }
        return new Verdict(arrived, missing, undecided);
    }

    /** The last record the recorded batches cover without a gap from {@code acked}. */
    private static long covered(State.Entry e) {
        long end = e.acked;
        for (State.Batch b : e.inDoubt) {
            if (b.from() > end + 1) {
                break;
            }
            end = Math.max(end, b.to());
        }
        return end;
    }

    /**
     * Why a batch's range is shared with another in-doubt batch's, or with batches of the import the server stored,
     * on a table, or null.
     */
    private static String overlap(State.Batch b, List<State.Part> all, State state) {
        for (State.Part p : b.parts()) {
            for (State.Part q : all) {
                if (q != p && q.table().equals(p.table()) && q.min() <= p.max() && p.min() <= q.max()) {
                    return "its time range on '" + p.table() + "' overlaps another in-doubt batch's";
                }
            }
            for (long[] r : state.ackedTimes.getOrDefault(p.table(), List.of())) {
                if (r[0] <= p.max() && p.min() <= r[1]) {
                    return "its time range on '" + p.table() + "' also holds rows of batches this import stored";
                }
            }
        }
        return null;
    }

    private static String name(State.Entry e, long from, long to) {
        return "'" + e.name() + "' records " + from + ".." + to;
    }

    /**
     * Settles the batches a previous run sent to an append-mode table and never had answered, per {@code --in-doubt}:
     * {@code fail} stops naming them; {@code check} asks the server which arrived (the rerun sends only the others)
     * and stops when it cannot tell; {@code skip} goes on after them; {@code resend} sends them again.
     *
     * @param inputs the inputs
     * @param state the resume state, changed as the policy says
     * @param appendMode whether the table keeps every row (only then is a batch in doubt)
     * @param policy {@code fail}, {@code check}, {@code resend} or {@code skip}
     * @param counter counts a table's rows in a time range on the server ({@code check})
     * @param server where the counts are asked, for messages
     * @param err where notes and errors go
     * @throws ImportFailure when the import must stop, naming the batches and the choices
     */
    public static void resolve(List<Inputs.Input> inputs, State state, boolean appendMode, String policy,
            Counter counter, String server, PrintStream err) {
        if (!appendMode) {
            return;
        }
        if (policy.equals("check") && !undecidedOnServer(state, counter, server, err)) {
            return;
        }
        List<String> doubts = new ArrayList<>();
        for (Inputs.Input in : inputs) {
            State.Entry e = state.entry(in.name());
            if (!e.done && e.sent > e.acked) {
                doubts.add("'" + in.name() + "' records " + (e.acked + 1) + ".." + e.sent);
            }
        }
        if (doubts.isEmpty()) {
            return;
        }
        switch (policy) {
            case "fail":
            case "check":
                throw new ImportFailure("the previous run stopped with batches sent to append-mode table '" + state.table
                        + "' but never answered: " + String.join(", ", doubts) + ". They may or may not be stored, and"
                        + " the table keeps duplicates. " + (policy.equals("check") ? ""
                        : "Rerun with --in-doubt check to ask the server which of them arrived and send only the others;"
                        + " or check the table, then ") + "rerun with --in-doubt resend (send them again) or --in-doubt"
                        + " skip (continue after them). Nothing was sent.", null);
            case "skip":
                for (State.Entry e : state.entries) {
                    if (!e.done && e.sent > e.acked) {
                        e.acked = e.sent;
                    }
                }
                err.println("note: continuing after the in-doubt records (" + String.join(", ", doubts) + ")");
                break;
            default:
                err.println("note: sending the in-doubt records again (" + String.join(", ", doubts) + ")");
                break;
        }
    }

    /**
     * {@code --in-doubt check}: asks the server which in-doubt batches arrived; when each is decided, the rerun sends
     * only the missing ones.
     *
     * @return true when some batch could not be decided (the in-doubt batches stay as they are: the import stops
     *     and names them)
     */
    private static boolean undecidedOnServer(State state, Counter counter, String server, PrintStream err) {
        InDoubt.Verdict v;
        try {
            v = check(state, counter);
        } catch (IOException | RuntimeException e) {
            err.println("error: --in-doubt check: the server could not count the in-doubt batches' rows over HTTP SQL"
                    + " at " + server + ": " + e.getMessage());
            return true;
        }
        if (!v.undecided().isEmpty()) {
            err.println("error: --in-doubt check cannot tell whether these batches arrived: "
                    + String.join("; ", v.undecided()));
            return true;
        }
        if (!v.arrived().isEmpty() || !v.missing().isEmpty()) {
            err.println("note: --in-doubt check: stored, not sent again: " + (v.arrived().isEmpty() ? "none"
                    : String.join(", ", v.arrived())) + "; not stored, sent again: " + (v.missing().isEmpty() ? "none"
                    : String.join(", ", v.missing())));
        }
        return false;
    }
}
