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

/** cancel() from another thread against a producer blocked in write() while the only server is down. */
// A guard against a hang, not a schedule: under load this work takes minutes.
@Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StreamCancelRaceTest {

    static String stacks() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, st) -> {
            if (t.getName().startsWith("stream-") || t.getName().startsWith("sluice-")) {
                b.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : st) {
                    b.append("    at ").append(e).append('\n');
                }
            }
        });
        return b.toString();
    }

    @Test
    void cancelNeverDeadlocksWithAWriteBlockedOnAFullBufferWhileTheServerIsDown() throws Exception {
        try (Kit kit = new Kit(o -> o.maxInFlightBytes(4L << 20).requestTimeout(Duration.ofSeconds(30)))) {
            TableSchema schema = Kit.schema("s_cancel_race");
            for (int round = 0; round < 8; round++) {
                kit.server.resume();
                StreamWriter<Table, WriteOk> s = kit.db.streamWriter(StreamWriter.Config.newBuilder().build(), Context.newBuilder().retryPolicy(Kit.quick(Integer.MAX_VALUE, Duration.ofSeconds(60))).build());
                s.write(Kit.table(schema, 0, 10));
                kit.server.stop();
                Thread producer = new Thread(() -> {
                    try {
                        for (int i = 0; i < 1000; i++) {
                            s.write(Kit.table(schema, 100L + (long) i * 10_000, 10_000));
                        }
                    } catch (RuntimeException expected) {
                        // the cancelled stream refuses writes
                    }
                }, "stream-producer");
                producer.start();
                // blocked in write() during the outage, or already refused: either way the race is on
                Kit.await("the producer blocked in write() during the outage", Duration.ofSeconds(30),
                        () -> Kit.waitingIn(producer, "write") || !producer.isAlive());
                Thread.sleep(150L * round); // each round lands later in the reopen attempts
                Thread canceller = new Thread(s::cancel, "stream-canceller");
                canceller.start();
                canceller.join(5000);
                producer.join(5000);
                if (canceller.isAlive() || producer.isAlive()) {
                    String stacks = stacks();
                    System.err.println("round " + round + " stuck: canceller alive " + canceller.isAlive()
                            + ", producer alive " + producer.isAlive() + "\n" + stacks);
                }
                assertFalse(canceller.isAlive(), "round " + round + ": cancel() did not return within 5 s");
                assertFalse(producer.isAlive(), "round " + round + ": write() still blocked 5 s after cancel()");
                Kit.settle("round " + round + " completed()", s.completed(), Duration.ofSeconds(5));
            }
            kit.server.resume();
            kit.assertNothingHeld();
        }
    }
}
