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

    /**
     * Returns what a failure says, from the failure itself rather than the wrappers of a future's answer
     * ({@link java.util.concurrent.CompletionException}, {@link java.util.concurrent.ExecutionException}).
     *
     * @param t the failure
     * @return its message, or its name when it has none
     */
    public static String message(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException
                || t instanceof java.util.concurrent.ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
