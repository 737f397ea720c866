package dev.sluice;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that may run in a test JVM shared with other such classes (surefire's {@code shared-jvm} execution
 * in the poms of ingester-bulk and ingester-it, which take this annotation from this module's test jar): it measures
 * nothing process-wide (heap, direct memory, threads, garbage collection, standard error) and holds nothing after it
 * ends. Every other class of those modules runs in a JVM of its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(SharesJvm.TAG)
public @interface SharesJvm {
    /** The JUnit tag the pom selects these classes by. */
    String TAG = "shares-jvm";
}
