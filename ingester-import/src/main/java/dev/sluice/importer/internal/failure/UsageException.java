package dev.sluice.importer.internal.failure;

/** A wrong option or input on the command line (exit code 2); the message says what to change. */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong and what to do
     */
    public UsageException(String message) {
        super(message);
    }
}
