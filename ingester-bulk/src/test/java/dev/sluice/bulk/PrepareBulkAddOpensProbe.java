package dev.sluice.bulk;

import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;

/**
 * Run in a child JVM by {@link PrepareBulkWithoutAddOpensTest}: calls {@code prepareBulk()} twice on a client of an
 * endpoint nobody listens on and prints, per call, "ok", "refused: message" (IllegalStateException) or
 * "other: class: message".
 */
public final class PrepareBulkAddOpensProbe {
    private PrepareBulkAddOpensProbe() {
    }

    /**
     * Entry point.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        GreptimeDB db = GreptimeDB.create(GreptimeOptions.newBuilder("127.0.0.1:1", "public").build());
        try {
            for (int i = 0; i < 2; i++) {
                try {
                    db.prepareBulk();
                    System.out.println("ok");
                } catch (IllegalStateException e) {
                    System.out.println("refused: " + e.getMessage());
                } catch (Throwable e) {
                    System.out.println("other: " + e.getClass().getName() + ": " + e.getMessage());
                }
            }
        } finally {
            db.shutdownNow();
        }
        System.out.flush();
        System.exit(0);
    }
}
