package dev.sluice.delivery;

import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sluice.StreamWriter;
import dev.sluice.data.Table;
import dev.sluice.data.TableSchema;
import dev.sluice.write.Context;
import dev.sluice.write.WriteOk;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** shutdownGracefully from another thread against a producer writing past its stream's replay budget during an outage. */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamShutdownRaceTest {

    @Test
    void shutdownGracefullyReturnsWithinItsTimeoutWhileAProducerWritesPastTheReplayBudgetDuringAnOutage() throws Exception {
        for (int round = 0; round < 6; round++) {
            Kit kit = new Kit(o -> o.maxInFlightBytes(4L << 20).requestTimeout(Duration.ofSeconds(30)));
            try {
                TableSchema schema = Kit.schema("s_shutdown_race");
                StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(Kit.quick(Integer.MAX_VALUE, Duration.ofSeconds(60))).build());
                s.write(Kit.table(schema, 0, 10));
                kit.server.stop();
                Thread producer = new Thread(() -> {
                    try {
                        for (int i = 0; i < 1000; i++) {
                            s.write(Kit.table(schema, 100L + (long) i * 10_000, 10_000));
                        }
                    } catch (RuntimeException expected) {
                        // refused once the client shuts down
                    }
                }, "stream-producer");
                producer.start();
                // blocked in write() during the outage, or already refused: either way the race is on
                Kit.await("the producer blocked in write() during the outage", Duration.ofSeconds(30),
                        () -> Kit.waitingIn(producer, "write") || !producer.isAlive());
                Thread.sleep(150L * round); // each round lands later in the reopen attempts
                Thread stopper = new Thread(() -> kit.db.shutdownGracefully(Duration.ofSeconds(2)), "stream-stopper");
                stopper.start();
                stopper.join(10_000);
                if (stopper.isAlive()) {
                    System.err.println("round " + round + " stuck\n" + StreamCancelRaceTest.stacks());
                }
                assertFalse(stopper.isAlive(), "round " + round + ": shutdownGracefully(2 s) still running after 10 s");
                producer.join(5000);
                assertFalse(producer.isAlive(), "round " + round + ": write() still blocked after shutdown");
            } finally {
                kit.server.close();
            }
        }
    }
}
