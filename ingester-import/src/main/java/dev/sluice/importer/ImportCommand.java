package dev.sluice.importer;

import dev.sluice.importer.internal.cli.ImportJob;
import dev.sluice.importer.internal.cli.ImportOptions;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code sluice import}: loads CSV, TSV, JSON Lines, Parquet and InfluxDB line protocol files into GreptimeDB through
 * Sluice's client, resumably. Run {@code java -jar sluice-import.jar --help} for the options.
 */
@Command(name = "sluice-import", mixinStandardHelpOptions = true, versionProvider = ImportCommand.Version.class,
        sortOptions = false, usageHelpWidth = 110,
        description = {"Load CSV, TSV, JSON Lines, Parquet and InfluxDB line protocol files into GreptimeDB.", ""},
        footer = {"", "Exit codes: 0 all rows written; 1 rows rejected (skipped, or the import stopped at one);"
                + " 2 usage error; 3 failed (unreadable input, server or write failure, --verify mismatch).",
                "",
                "Resume: the state file records, per input, the record up to which every row is acknowledged. Run the"
                + " same command again after a crash, kill -9, a lost server or Ctrl-C and it continues from there;"
                + " --restart ignores it. Rows between the last recorded acknowledgement and the crash are sent again:"
                + " on ordinary tables (the last write of a key wins) the result equals an uninterrupted import."
                + " While an import runs, another with the same state file is refused.",
                "",
                "Append-mode tables (--with append_mode=true, or --append-mode for an existing one) keep every row,"
                + " so a resent row is stored twice. There the state also records what was sent before each batch"
                + " goes out, and the client does not resend a batch whose answer was lost. A rerun after a crash"
                + " with batches sent but unanswered stops before sending anything and names their records"
                + " (--in-doubt fail, the default); --in-doubt check asks the server which of them arrived and sends"
                + " only the others where it can tell; choose --in-doubt resend (may duplicate them) or --in-doubt"
                + " skip (may lose them) once you have checked the table. Rows are never duplicated silently."})
public final class ImportCommand implements Callable<Integer> {
    @Mixin
    private ImportOptions options = new ImportOptions();

    private final PrintStream out;
    private final PrintStream err;

    /**
     * Creates the command writing to the given streams.
     *
     * @param out summary and dry-run output
     * @param err progress and errors
     */
    public ImportCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** The version {@code --version} prints: the build's, kept in a resource beside this class. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws java.io.IOException {
            try (java.io.InputStream in = ImportCommand.class.getResourceAsStream("version.txt")) {
                String v = in == null ? "unknown" : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .strip();
                return new String[] {"sluice import " + v};
            }
        }
    }

    @Override
    public Integer call() {
        return new ImportJob(options, out, err).run();
    }

    /**
     * Runs the command and returns its exit code, without exiting.
     *
     * @param out summary and dry-run output
     * @param err progress and errors
     * @param args the arguments
     * @return the exit code
     */
    public static int run(PrintStream out, PrintStream err, String... args) {
        CommandLine cl = new CommandLine(new ImportCommand(out, err));
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("error: " + ex.getMessage());
            err.println("try --help");
            return ImportJob.USAGE;
        });
        return cl.execute(args);
    }

    /**
     * The entry point.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        // Netty's buffer events (gRPC's shaded copy, and Arrow's) register with Flight Recorder when it is available,
        // a few hundred milliseconds of a fresh JVM for recordings nobody started; -D...jfr.enabled=true keeps them.
        System.setProperty("io.grpc.netty.shaded.io.netty.jfr.enabled",
                System.getProperty("io.grpc.netty.shaded.io.netty.jfr.enabled", "false"));
        System.setProperty("io.netty.jfr.enabled", System.getProperty("io.netty.jfr.enabled", "false"));
        System.exit(run(System.out, System.err, args));
    }
}
