package dev.sluice.importer;

import dev.sluice.testkit.GreptimeTestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the command in-process against a testkit server and keeps what it printed (for the tests of every package). */
public final class Cli {
    /**
     * What one run gave.
     *
     * @param code the exit code
     * @param out what it printed on standard output
     * @param err what it printed on standard error
     */
    public record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private Cli() {
    }

    /**
     * Runs the command in-process.
     *
     * @param args its arguments
     * @return the exit code and what it printed
     */
    public static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = ImportCommand.run(o, e, args);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * The arguments that point the command at a server, then the given ones. Its retry deadline and call timeout
     * are minutes long, so that a busy machine never trips them: a test of a deadline gives its own arguments.
     *
     * @param server the testkit
     * @param args the other arguments
     * @return all of them
     */
    public static String[] at(GreptimeTestServer server, String... args) {
        List<String> a = new ArrayList<>(List.of("--endpoint", server.endpoint(), "--http-endpoint",
                server.httpEndpoint(), "--retry-deadline", "600", "--timeout", "300"));
        a.addAll(Arrays.asList(args));
        return a.toArray(new String[0]);
    }

    /**
     * The rows of a table the testkit stores, by their {@code id} column.
     *
     * @param server the testkit
     * @param table the table
     * @return the rows, in id order
     */
    public static java.util.SortedMap<Long, java.util.Map<String, Object>> byId(GreptimeTestServer server, String table) {
        java.util.SortedMap<Long, java.util.Map<String, Object>> rows = new java.util.TreeMap<>();
        server.rows(table).forEach(m -> rows.put((Long) m.get("id"), m));
        return rows;
    }
}
