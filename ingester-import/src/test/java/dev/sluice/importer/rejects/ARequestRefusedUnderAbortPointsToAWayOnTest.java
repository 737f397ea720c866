package dev.sluice.importer.rejects;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.importer.Cli;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.GreptimeTestkitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code --on-error abort} a batch the server refuses for its data (a time its partitions cannot hold) stops
 * the import. What the error then says to do must lead somewhere: running the same command again meets the same
 * refusal, so the error points to {@code --on-error skip} (which writes the other rows and rejects the refused
 * one), not to the rerun alone, and speaks in the server's words, not in the client's Java objects.
 */
class ARequestRefusedUnderAbortPointsToAWayOnTest {
    @RegisterExtension
    static final GreptimeTestkitExtension testkit = new GreptimeTestkitExtension(GreptimeTestServer.builder().httpPort(0));

    @TempDir
    Path dir;

    @Test
    void theErrorOfARefusedCsvBatchNamesOnErrorSkip() throws Exception {
        Path csv = dir.resolve("oob.csv");
        Files.writeString(csv, "ts,device,v\n1700000000000000000,d1,1\n9223372036854775806,d2,2\n"
                + "1700000000000000001,d3,3\n");
        String[] args = Cli.at(testkit.server(), "--tags", "device", "--state", dir.resolve("oob.state").toString(),
                csv.toString());
        Cli.Run first = Cli.run(args);
        assertTrue(first.code() != 0, first.toString());
        Cli.Run again = Cli.run(args);

        assertTrue(first.err().contains("--on-error skip"), "the error says to run the same command again, which"
                + " fails the same way (" + again.code() + ": " + again.err().strip() + "); it must name the way on"
                + " (--on-error skip): " + first);
    }

    @Test
    void aRefusedLineProtocolRequestIsExplainedInTheUsersTerms() throws Exception {
        Path lp = dir.resolve("oob.lp");
        Files.writeString(lp, "lpb_mem value=1 1000\nlpb_cpu value=1 9223372036854775806\nlpb_disk value=1 1000\n");
        Cli.Run r = Cli.run(Cli.at(testkit.server(), "--state", dir.resolve("oob-lp.state").toString(),
                lp.toString()));
        assertTrue(r.code() != 0, r.toString());
        assertTrue(!r.err().contains("io.grpc") && !r.err().contains("Err{"), "the error shows the client's internal"
                + " representation (a Java exception's text) instead of the server's message: " + r);
        assertTrue(r.err().contains("--on-error skip"), "the error advises the rerun alone, which fails the same way: "
                + r);
    }
}
