package dev.sluice.spark;

/** Reads a failure as a user sees it: every message of its chain of causes. */
public final class Failures {
    private Failures() {
    }

    /**
     * Joins the messages of a failure and its causes.
     *
     * @param t the failure
     * @return the messages, outermost first, each followed by {@code " | "}
     */
    public static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            b.append(c.getMessage()).append(" | ");
        }
        return b.toString();
    }
}
