package dev.sluice.fault;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every path with the client's default settings survives its only server going down for ten seconds and coming back
 * on the same port: every row is stored, none twice.
 */
class DefaultDeliveryThroughAnOutageTest extends DefaultDeliveryKit {
    /**
     * Every path at once, each against its own only server, each server down for 10 s mid-run and back on the
     * same port: run side by side, the five outages cost one outage of wall time.
     */
    @Test
    void everyPathSurvivesItsOnlyServerDownForTenSeconds() throws Exception {
        Path[] paths = {Path.REGULAR, Path.STREAM, Path.BULK, Path.BATCHING_REGULAR, Path.BATCHING_BULK};
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(paths.length);
        try {
            List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
            for (Path p : paths) {
                runs.add(pool.submit(() -> serverDownTenSeconds(p)));
            }
            List<String> failures = new ArrayList<>();
            for (int i = 0; i < paths.length; i++) {
                try {
                    runs.get(i).get(3, java.util.concurrent.TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(paths[i] + ": " + e.getCause());
                }
            }
            assertTrue(failures.isEmpty(), "paths that lost writes to a 10 s outage: " + failures);
        } finally {
            pool.shutdownNow();
        }
    }
}
