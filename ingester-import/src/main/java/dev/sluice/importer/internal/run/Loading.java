package dev.sluice.importer.internal.run;

import dev.sluice.data.TableSchema;
import dev.sluice.importer.internal.failure.ImportFailure;
import dev.sluice.importer.internal.report.Progress;
import dev.sluice.importer.internal.report.Stats;
import dev.sluice.importer.internal.report.Summary;
import dev.sluice.importer.internal.source.Inputs;
import dev.sluice.importer.internal.state.State;
import dev.sluice.importer.internal.target.Client;
import dev.sluice.importer.internal.target.Connecting;
import dev.sluice.importer.internal.target.RefusedRows;
import dev.sluice.write.Context;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * The load of every format once its setup is done: connects, creates the table the setup planned, runs the one
 * {@link LoadRun} under a shutdown hook that saves the state, and gives the exit code.
 */
public final class Loading {
    /** Exit code: everything written. */
    public static final int OK = 0;
    /** Exit code: rows rejected (skipped, or the import stopped at one). */
    public static final int REJECTED = 1;
    /** Exit code: failed. */
    public static final int FAILED = 3;

    /**
     * What the load takes from the options.
     *
     * @param verify whether {@code --verify} counts the stored rows at the end
     * @param quiet whether progress and notes stay off standard error
     * @param progressInterval seconds between progress lines
     */
    public record Options(boolean verify, boolean quiet, int progressInterval) {
    }

    private final Options o;
    private final Connecting connecting;
    private final Stats stats;
    private final PrintStream err;

    /**
     * Readies the load.
     *
     * @param options what it takes from the options
     * @param connecting gives the client
     * @param stats the counters progress and summary show
     * @param err where progress, notes and errors go
     */
    public Loading(Options options, Connecting connecting, Stats stats, PrintStream err) {
        this.o = options;
        this.connecting = connecting;
        this.stats = stats;
        this.err = err;
    }

    /**
     * Runs the load of every format once the setup is done: connects, creates the table the setup planned, reads the
     * inputs on the workers, waits for the answers and reports.
     *
     * @param setup what the setup decided
     * @param summary the summary, filled as the run goes
     * @param load what differs by format around the run
     * @return the exit code: {@link #OK}, {@link #REJECTED} or {@link #FAILED}
     * @throws ImportFailure when the run fails (the state records what was acknowledged)
     */
    public int load(RunSetup setup, Summary summary, Load load) {
        List<Inputs.Input> inputs = setup.inputs();
        State state = setup.state();
        boolean appendMode = setup.appendMode();
        summary.started = true;
        summary.collapsible = !appendMode;
        summary.lineProtocol = setup.rows() instanceof RunSetup.Measurements;
        summary.table = load.table();
        summary.path = setup.bulk() ? "bulk" : "regular";
        summary.stateFile = state.file().toString();
        if (inputs.stream().allMatch(in -> state.entry(in.name()).done)) {
            // Nothing left to send: do not even connect.
            err.println("note: every input is recorded as imported in " + state.file() + "; nothing to send (--restart"
                    + " imports everything again)");
            stats.inputs = inputs.size();
            stats.inputsDone.set(inputs.size());
            if (o.verify()) {
                load.verify(summary);
                if (summary.verifyOk != null && !summary.verifyOk) {
                    return FAILED;
                }
            }
            return OK;
        }
        Context ctx = Client.context(load.tableOptions(), appendMode);
        Client client = connecting.connect();
        if (load.toCreate() != null) {
            client.createTable(load.toCreate(), ctx);
        }
        try (LoadRun r = new LoadRun(setup, client, ctx, stats, err)) {
            return transfer(setup, summary, load, r);
        }
    }

    /**
     * Reads the inputs on the run's workers, under a shutdown hook that saves the state, waits for the answers and
     * reports.
     *
     * @return the exit code
     */
    private int transfer(RunSetup setup, Summary summary, Load load, LoadRun r) {
        List<Inputs.Input> inputs = setup.inputs();
        State state = setup.state();
        stats.inputs = inputs.size();
        for (Inputs.Input in : inputs) {
            stats.totalBytes += Math.max(0, in.size());
            if (state.entry(in.name()).done) {
                stats.inputsDone.incrementAndGet();
                stats.rawBytes.addAndGet(Math.max(0, in.size()));
            }
        }
        Thread hook = new Thread(() -> {
            r.stop();
            state.save();
        }, "sluice-import-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Progress progress = o.quiet() ? null : Progress.start(stats, err, o.progressInterval());
        try {
            connecting.awaitPrepared();
            stats.readingFrom = System.nanoTime();
            r.read();
            stats.answeredAt = System.nanoTime();
        } finally {
            if (progress != null) {
                progress.stop();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        state.save();
        Throwable f = r.failure();
        if (f != null) {
            throw new ImportFailure(ImportFailure.message(f) + "\nRows acknowledged so far are recorded in "
                    + state.file() + (!RefusedRows.refusesTheData(f) ? ": run the same command again to continue from"
                    + " there." : ". The server refuses rows of the batch for their data, so the same command would"
                    + " meet the same refusal: run it again with --on-error skip (and --rejects FILE) to write the"
                    + " other rows and set the refused ones aside, or fix them in the input."), f);
        }
        if (o.verify()) {
            load.verify(summary);
        }
        String stoppedAt = r.stoppedAt();
        if (stoppedAt != null) {
            summary.error = stoppedAt;
            err.println("error: " + stoppedAt);
            return REJECTED;
        }
        if (summary.verifyOk != null && !summary.verifyOk) {
            return FAILED;
        }
        return stats.rejected.get() > 0 ? REJECTED : OK;
    }

    /**
     * What differs by format around the one load run: the table the summary names, the options of the tables the
     * import creates, the table to create first (or null), and how {@code --verify} counts.
     *
     * @param table the table the summary names
     * @param tableOptions the options of the tables the import creates
     * @param toCreate the table to create before the run, or null
     * @param verify how {@code --verify} counts, filling the summary
     */
    public record Load(String table, Map<String, String> tableOptions, TableSchema toCreate,
            java.util.function.Consumer<Summary> verify) {
        /**
         * Counts the stored rows for {@code --verify}, filling the summary.
         *
         * @param summary the summary
         */
        public void verify(Summary summary) {
            verify.accept(summary);
        }
    }
}
