package dev.sluice.testkit;

import java.util.concurrent.CountDownLatch;

/**
 * Runs the testkit as a standalone server: {@code java -jar ingester-testkit-<version>-all.jar --port 4001
 * [--host 0.0.0.0] [--http-port 4000] [--user U --password P]}. Serves until killed.
 */
public final class Main {
    private Main() {
    }

    /**
     * Entry point.
     *
     * @param args command-line options
     * @throws InterruptedException when interrupted while serving
     */
    public static void main(String[] args) throws InterruptedException {
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
                case "--port": b.port(Integer.parseInt(v)); break;
                case "--http-port": b.httpPort(Integer.parseInt(v)); break;
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
        GreptimeTestServer server = b.start();
        System.out.println("Sluice testkit (GreptimeDB protocol) listening on " + server.endpoint()
                + (server.httpEndpoint() != null ? ", HTTP on " + server.httpEndpoint() : "")
                + (user != null ? " with basic auth" : "") + "; Ctrl-C to stop");
        CountDownLatch forever = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            forever.countDown();
        }));
        forever.await();
    }
}
