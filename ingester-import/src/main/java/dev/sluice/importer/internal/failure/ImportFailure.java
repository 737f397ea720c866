package dev.sluice.importer.internal.failure;

/** The import could not go on: an input that cannot be read, a server or write failure (exit code 3). */
public final class ImportFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed and what to do next
     * @param cause the cause, or null
     */
    public ImportFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
