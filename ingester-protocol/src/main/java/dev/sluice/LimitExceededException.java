package dev.sluice;

import dev.sluice.write.WriteException;

/** A client-side limit was reached and the bounded wait for room ran out; nothing was dropped or sent. */
public final class LimitExceededException extends WriteException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which limit, and how long the caller waited
     */
    public LimitExceededException(String message) {
        super(message, null, dev.sluice.write.StatusCode.Grpc.RESOURCE_EXHAUSTED, true, java.util.List.of(), null);
    }
}
