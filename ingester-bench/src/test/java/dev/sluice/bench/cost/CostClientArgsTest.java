package dev.sluice.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostClientArgsTest {
    private static final CostBenchmark.Plan PLAN = new CostBenchmark.Plan("logs", List.of("regular", "stream", "bulk"),
            List.of(65_536), 500_000, 2_000_000, 4, "none", 42, "public", null, null, List.of(), Duration.ofMinutes(1),
            "objects");

    private static String value(List<String> args, String option) {
        int i = args.indexOf(option);
        assertFalse(i < 0, option + " missing from " + args);
        return args.get(i + 1);
    }

    @Test
    void bulkRunsOneWriterWithTheRequestsInFlightLikeTheOfficialBulkBenchmark() {
        List<String> args = CostBenchmark.clientArgs(PLAN, "bulk", 65_536, 2_000_000, "127.0.0.1:4101");
        assertEquals("1", value(args, "--parallelism"));
        assertEquals("4", value(args, "--max-in-flight"));
        assertEquals("bulk", value(args, "--mode"));
        assertEquals("65536", value(args, "--batch"));
        assertEquals("2000000", value(args, "--rows"));
    }

    @Test
    void regularAndStreamRunOneWriterPerRequestInFlight() {
        for (String path : List.of("regular", "stream", CostBenchmark.WORKLOAD_ONLY)) {
            List<String> args = CostBenchmark.clientArgs(PLAN, path, 65_536, 500_000, "127.0.0.1:4101");
            assertEquals("4", value(args, "--parallelism"), path);
            assertEquals(path, value(args, "--mode"));
            assertEquals("127.0.0.1:4101", value(args, "--endpoint"));
        }
    }

    @Test
    void credentialsPassTheUserOnlyNeverThePassword() {
        CostBenchmark.Plan withUser = new CostBenchmark.Plan("metrics", List.of("regular"), List.of(1_000), 1, 4, 5,
                "none", 1, "public", "alice", "secret", List.of(), Duration.ofMinutes(1), "typed");
        List<String> args = CostBenchmark.clientArgs(withUser, "regular", 1_000, 4, "h:1");
        assertEquals("alice", value(args, "--user"));
        assertEquals("typed", value(args, "--row-api"));
        assertFalse(args.contains("secret"), "the password goes through the environment, not the command line");
    }
}
