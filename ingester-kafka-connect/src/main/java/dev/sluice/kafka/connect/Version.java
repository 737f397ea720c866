package dev.sluice.kafka.connect;

/** The connector's version, as Connect reports it. */
final class Version {
    /** Read from the jar manifest; "dev" when run from classes. */
    static final String VERSION;

    static {
        String v = Version.class.getPackage().getImplementationVersion();
        VERSION = v == null ? "dev" : v;
    }

    private Version() {
    }
}
