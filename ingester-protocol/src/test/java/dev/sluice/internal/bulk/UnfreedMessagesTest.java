package dev.sluice.internal.bulk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A bulk writer's memory is closed exactly once, when no message unloaded from it holds memory any more: at close
 * when none is out, else by the last message the transport lets go of.
 */
class UnfreedMessagesTest {
    final AtomicInteger closed = new AtomicInteger();
    final UnfreedMessages messages = new UnfreedMessages(closed::incrementAndGet);

    @Test
    void withNoMessageOutClosingClosesTheMemoryAtOnce() {
        messages.unloaded();
        messages.run();
        assertEquals(0, messages.closeWhenFreed(0));
        assertEquals(1, closed.get());
    }

    @Test
    void theLastOfSeveralMessagesStillOutAfterClosingGaveUpWaitingClosesTheMemory() {
        messages.unloaded();
        messages.unloaded();
        messages.unloaded();
        assertEquals(3, messages.closeWhenFreed(0), "all three still read by the transport");
        assertEquals(0, closed.get());
        messages.run();
        assertEquals(0, closed.get(), "two still out");
        messages.run();
        assertEquals(0, closed.get(), "one still out");
        messages.run();
        assertEquals(1, closed.get(), "closed by the last one freed");
    }

    @Test
    void messagesFreedWhileClosingWaitsLetItCloseTheMemoryItself() throws InterruptedException {
        messages.unloaded();
        Thread transport = new Thread(messages);
        transport.start(); // lets go while close waits, as a netty event loop would
        assertEquals(0, messages.closeWhenFreed(java.util.concurrent.TimeUnit.SECONDS.toNanos(60)));
        transport.join();
        assertEquals(1, closed.get());
    }
}
