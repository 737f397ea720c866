package dev.sluice.bulk;

import dev.sluice.bulk.internal.ArrowSupport;

/** Run in a child JVM by {@link AddOpensTest}: prints "ok" or the message Sluice gives when Arrow cannot start. */
public final class AddOpensProbe {
    private AddOpensProbe() {
    }

    /**
     * Entry point.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        try {
            ArrowSupport.check();
            ArrowSupport.newRoot(Long.MAX_VALUE, 0).buffer(64).close();
            System.out.println("ok");
        } catch (IllegalStateException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
