package dev.sluice.internal.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.GreptimeOptions;
import dev.sluice.LimitExceededException;
import dev.sluice.write.WhenFull;
import org.junit.jupiter.api.Test;

/**
 * Room taken in the client's byte budget for a message not made yet (its size bound) shrinks to the message's
 * size once it is made, and the rest is free for other messages at once; giving the room back returns exactly
 * what is still held.
 */
class RoomReservedForAMessageShrinksToItsSizeTest {
    /** The budget's unit: the smallest budget a client takes is 1 MiB. */
    private static final long K = 2_000;

    private static InFlightLimiter budget(long bytes) {
        return new InFlightLimiter(GreptimeOptions.newBuilder("127.0.0.1:1", "public").maxInFlightBytes(bytes)
                .whenFull(WhenFull.FailFast).build());
    }

    @Test
    void theRoomBeyondTheMessageIsFreeOnceItShrinks() {
        InFlightLimiter limiter = budget(K * 1_000);
        InFlightLimiter.Permit bound = limiter.acquire(K * 900, false);
        assertThrows(LimitExceededException.class, () -> limiter.acquire(K * 300, false), "900 of 1,000 units taken");
        bound.shrinkTo(K * 600);
        assertEquals(K * 600, limiter.bytesInUse());
        InFlightLimiter.Permit other = limiter.acquire(K * 300, false);
        assertEquals(K * 900, limiter.bytesInUse());
        bound.shrinkTo(K * 800); // growing is not shrinking: nothing changes
        assertEquals(K * 900, limiter.bytesInUse());
        bound.release();
        other.release();
        assertEquals(0, limiter.bytesInUse());
    }

    @Test
    void shrinkingRoomAlreadyGivenBackGivesNothingBackTwice() {
        InFlightLimiter limiter = budget(K * 1_000);
        InFlightLimiter.Permit permit = limiter.acquire(K * 500, false);
        permit.release();
        permit.shrinkTo(K * 100);
        permit.release();
        assertEquals(0, limiter.bytesInUse());
        InFlightLimiter.Permit all = limiter.acquire(K * 1_000, false);
        assertEquals(K * 1_000, limiter.bytesInUse(), "the whole budget is there, no more");
        all.release();
    }
}
