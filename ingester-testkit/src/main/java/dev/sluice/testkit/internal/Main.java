package dev.sluice.testkit.internal;

import dev.sluice.testkit.GreptimeTestServer;

import java.util.concurrent.CountDownLatch;

/**
 * Runs the testkit as a standalone server: {@code java -jar ingester-testkit-<version>-all.jar --port 4001
 * [--host 0.0.0.0] [--http-port 4000] [--user U --password P]}. Serves until killed; prints the ports it bound
 * ({@code grpc-port=N}, {@code http-port=N}) and exits with status 1, naming the reason, when it cannot listen.
 */
public final class Main {
    private Main() {
    }

    /**
     * The standalone jar logs through slf4j-simple (to stderr, INFO and above); Arrow's start-up notes are INFO lines
     * a user of the server has no use for, so Arrow logs warnings only unless {@code -Dorg.slf4j.simpleLogger...}
     * says otherwise.
     */
    private static void quietLibraries() {
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.arrow") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.arrow", "warn");
        }
    }

    /** Reads a port number; anything else is a usage error (exit 2), like a missing value or unknown option. */
    private static int port(String option, String value) {
        try {
            int p = Integer.parseInt(value);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        System.err.println(option + " needs a port number from 0 to 65535, given: " + value + " (try --help)");
        System.exit(2);
        return -1;
    }

    /**
     * Entry point.
     *
     * @param args command-line options
     * @throws InterruptedException when interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
        quietLibraries();
        GreptimeTestServer.Builder b = GreptimeTestServer.builder().port(4001);
        String user = null;
        String password = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                System.out.println("usage: java -jar ingester-testkit-all.jar [--host H] [--port P] [--http-port P]"
                        + " [--user U --password P] [--no-retain-rows]");
                return;
            }
            if (a.equals("--no-retain-rows")) {
                b.retainRows(false);
                continue;
            }
            if (i + 1 >= args.length) {
                System.err.println("missing value for " + a);
                System.exit(2);
            }
            String v = args[++i];
            switch (a) {
                case "--port": b.port(port(a, v)); break;
                case "--http-port": b.httpPort(port(a, v)); break;
                case "--host": b.host(v); break;
                case "--user": user = v; break;
                case "--password": password = v; break;
                default:
                    System.err.println("unknown option " + a + " (try --help)");
                    System.exit(2);
            }
        }
        if ((user == null) != (password == null)) {
            System.err.println("--user and --password go together");
            System.exit(2);
        }
        if (user != null) {
            b.user(user, password);
        }
        GreptimeTestServer server;
        try {
            server = b.start();
        } catch (RuntimeException e) {
            System.err.println("Sluice testkit could not start: " + e.getMessage()
                    + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""));
            System.exit(1);
            return;
        }
        System.out.println("Sluice testkit (GreptimeDB protocol) listening on " + server.endpoint()
                + (server.httpEndpoint() != null ? ", HTTP on " + server.httpEndpoint() : "")
                + (user != null ? " with basic auth" : "") + "; Ctrl-C to stop");
        System.out.println("grpc-port=" + server.port());
        if (server.httpEndpoint() != null) {
            String http = server.httpEndpoint();
            System.out.println("http-port=" + http.substring(http.lastIndexOf(':') + 1));
        }
        System.out.flush();
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            forever.countDown();
        }));
        forever.await();
    }
}
