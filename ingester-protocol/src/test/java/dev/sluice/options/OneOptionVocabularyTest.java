package dev.sluice.options;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.AuthInfo;
import dev.sluice.BatchingWriter;
import dev.sluice.BufferCache;
import dev.sluice.GreptimeDB;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.TlsConfig;
import dev.sluice.bulk.BulkStreamWriter;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.data.ColumnVector;
import dev.sluice.data.DataType;
import dev.sluice.data.SemanticType;
import dev.sluice.write.Context;
import dev.sluice.write.Err;
import dev.sluice.write.RetryPolicy;
import dev.sluice.write.StatusCode;
import dev.sluice.write.WhenFull;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One vocabulary on every configuration object: the same idea has the same name and type (a {@code Duration} for
 * every time, {@code maxInFlightRequests} an {@code int} wherever it is, {@code whenFull} a {@code WhenFull}), the
 * names the guide's migration table lists as replaced are gone, and the public API names no wire, transport or
 * internal type.
 */
class OneOptionVocabularyTest {
    private static final List<Class<?>> CONFIGS = List.of(GreptimeOptions.class, GreptimeOptions.Builder.class,
            BulkWrite.Config.class, BulkWrite.Config.Builder.class, BatchingWriter.Config.class,
            BatchingWriter.Config.Builder.class, StreamWriter.Config.class, StreamWriter.Config.Builder.class,
            RetryPolicy.class, RetryPolicy.Builder.class, Context.class, Context.Builder.class, TlsConfig.class,
            TlsConfig.Builder.class, BufferCache.class, BufferCache.Builder.class);

    private static final Pattern TIME = Pattern.compile("(?i).*(timeout|interval|wait|block|backoff|idle|delay|deadline).*");

    private static List<Method> publicMethods(Class<?> c) {
        return Arrays.stream(c.getDeclaredMethods()).filter(m -> Modifier.isPublic(m.getModifiers()))
                .filter(m -> !m.isSynthetic()).toList();
    }

    @Test
    void everyTimeOptionIsADuration() {
        List<String> problems = new ArrayList<>();
        for (Class<?> c : CONFIGS) {
            for (Method m : publicMethods(c)) {
                if (!TIME.matcher(m.getName()).matches() || m.getName().equals("backoff") && m.getParameterCount() == 1
                        && m.getParameterTypes()[0] == int.class) {
                    continue; // RetryPolicy.backoff(attempt) computes a wait from an attempt number
                }
                for (Class<?> p : m.getParameterTypes()) {
                    if (p != Duration.class) {
                        problems.add(c.getName() + "." + m.getName() + " takes " + p.getSimpleName());
                    }
                }
                if (m.getParameterCount() == 0 && m.getReturnType() != Duration.class) {
                    problems.add(c.getName() + "." + m.getName() + "() returns " + m.getReturnType().getSimpleName());
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void oneNameAndTypeForInFlightLimitsAndForWhatHappensWhenFull() {
        List<String> problems = new ArrayList<>();
        for (Class<?> c : CONFIGS) {
            for (Method m : publicMethods(c)) {
                String n = m.getName();
                if (n.toLowerCase().contains("inflight") && !Set.of("maxInFlightRequests", "maxInFlightBytes").contains(n)) {
                    problems.add(c.getName() + "." + n + ": another name for an in-flight limit");
                }
                Class<?> t = m.getParameterCount() == 1 ? m.getParameterTypes()[0]
                        : m.getParameterCount() == 0 ? m.getReturnType() : null;
                if (n.equals("maxInFlightRequests") && t != int.class) {
                    problems.add(c.getName() + "." + n + " is " + t);
                }
                if (n.equals("whenFull") && t != WhenFull.class) {
                    problems.add(c.getName() + "." + n + " is " + t);
                }
                if (n.startsWith("with") && n.length() > 4 && Character.isUpperCase(n.charAt(4))) {
                    problems.add(c.getName() + "." + n + ": withX is the replaced style");
                }
                if (Set.of("defaults", "newDefault").contains(n)) {
                    problems.add(c.getName() + "." + n + ": replaced by newBuilder()");
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    private static boolean has(Class<?> c, String name, Class<?>... params) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && (params.length == 0 || Arrays.equals(m.getParameterTypes(), params))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void theNamesTheMigrationTableReplacesAreGone() {
        Map<Class<?>, List<String>> gone = Map.ofEntries(
                Map.entry(GreptimeOptions.Builder.class, List.of("defaultTimeout", "limitPolicy")),
                Map.entry(GreptimeOptions.class, List.of("defaultTimeout", "limitPolicy", "limitWait")),
                Map.entry(BulkWrite.Config.Builder.class, List.of("maxRequestsInFlight", "timeoutPerMessage")),
                Map.entry(BulkWrite.Config.class, List.of("maxRequestsInFlight", "timeoutPerMessage")),
                Map.entry(BatchingWriter.Config.class, List.of("defaults", "withMaxInFlightBatches", "withBuffer",
                        "withContext", "maxInFlightBatches", "bufferTimeout", "context")),
                Map.entry(RetryPolicy.class, List.of("defaults", "withMaxAttempts", "withBackoff",
                        "withDeliveryTimeout")),
                Map.entry(Context.class, List.of("newDefault", "withHint", "withCompression", "withRetryPolicy",
                        "hintsHeader")),
                Map.entry(TlsConfig.class, List.of("systemTrust", "trusting", "withClientCertificate",
                        "withServerNameOverride")),
                Map.entry(BufferCache.class, List.of("defaults")),
                Map.entry(ColumnVector.class, List.of("getDecimalHigh", "getDecimalLow")),
                Map.entry(DataType.class, List.of("wireNumber", "fromWireNumber")),
                Map.entry(SemanticType.class, List.of("wireNumber")),
                Map.entry(AuthInfo.class, List.of("basicHeader")),
                Map.entry(BulkStreamWriter.class, List.of("checkBulkWritable")));
        List<String> found = new ArrayList<>();
        gone.forEach((c, names) -> names.stream().filter(n -> has(c, n)).forEach(n -> found.add(c.getName() + "." + n)));
        if (has(GreptimeOptions.class, "newBuilder", String[].class, String.class)) {
            found.add("GreptimeOptions.newBuilder(String[], String)");
        }
        for (Method m : GreptimeDB.class.getMethods()) {
            if (m.getName().equals("streamWriter") && m.getParameterCount() > 0 && m.getParameterTypes()[0] == double.class) {
                found.add("GreptimeDB.streamWriter(double, ...)");
            }
        }
        for (Class<?> c : List.of(BatchingWriter.Config.class, RetryPolicy.class, BufferCache.class, TlsConfig.class,
                Context.class)) {
            if (c.getConstructors().length > 0) {
                found.add(c.getName() + " public constructor");
            }
        }
        if (Arrays.stream(Err.class.getMethods()).anyMatch(m -> m.getName().equals("grpcCode")
                && m.getReturnType() != StatusCode.Grpc.class)) {
            found.add("Err.grpcCode() does not return StatusCode.Grpc");
        }
        assertEquals(List.of(), found, "replaced names still in the API");
    }

    /** The public classes of the exported packages, found from their sources. */
    private static List<Class<?>> apiClasses() throws IOException, ClassNotFoundException {
        Map<String, String> packages = Map.of(
                "../ingester-common/src/main/java/dev/sluice/data", "dev.sluice.data",
                "../ingester-common/src/main/java/dev/sluice/write", "dev.sluice.write",
                "../ingester-common/src/main/java/dev/sluice/mapping", "dev.sluice.mapping",
                "../ingester-protocol/src/main/java/dev/sluice", "dev.sluice",
                "../ingester-protocol/src/main/java/dev/sluice/bulk", "dev.sluice.bulk",
                "../ingester-protocol/src/main/java/dev/sluice/metrics", "dev.sluice.metrics");
        List<Class<?>> classes = new ArrayList<>();
        for (Map.Entry<String, String> e : packages.entrySet()) {
            try (Stream<Path> files = Files.list(Path.of(e.getKey()))) {
                for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    String simple = f.getFileName().toString().replace(".java", "");
                    if (simple.equals("package-info")) {
                        continue;
                    }
                    addPublic(Class.forName(e.getValue() + "." + simple), classes);
                }
            }
        }
        return classes;
    }

    private static void addPublic(Class<?> c, List<Class<?>> into) {
        if (Modifier.isPublic(c.getModifiers())) {
            into.add(c);
            for (Class<?> inner : c.getDeclaredClasses()) {
                addPublic(inner, into);
            }
        }
    }

    private static final Pattern FOREIGN = Pattern.compile(
            "\\b(io\\.grpc|com\\.google\\.protobuf|io\\.greptime|org\\.apache\\.arrow|io\\.netty|dev\\.sluice\\.internal|dev\\.sluice\\.wire)\\.");

    private static void check(String where, Type t, Set<String> into) {
        if (FOREIGN.matcher(t.getTypeName()).find()) {
            into.add(where + " names " + t.getTypeName());
        }
    }

    @Test
    void thePublicApiNamesNoWireTransportOrInternalType() throws Exception {
        Set<String> found = new TreeSet<>();
        for (Class<?> c : apiClasses()) {
            if (c.getGenericSuperclass() != null) {
                check(c.getName() + " extends", c.getGenericSuperclass(), found);
            }
            for (Type i : c.getGenericInterfaces()) {
                check(c.getName() + " implements", i, found);
            }
            List<Executable> members = new ArrayList<>();
            for (Method m : c.getDeclaredMethods()) {
                if ((Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers())) && !m.isSynthetic()) {
                    members.add(m);
                    check(c.getName() + "." + m.getName() + " returns", m.getGenericReturnType(), found);
                }
            }
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (Modifier.isPublic(k.getModifiers()) || Modifier.isProtected(k.getModifiers())) {
                    members.add(k);
                }
            }
            for (Executable x : members) {
                for (Type p : x.getGenericParameterTypes()) {
                    check(c.getName() + "." + x.getName() + " takes", p, found);
                }
                for (Type p : x.getGenericExceptionTypes()) {
                    check(c.getName() + "." + x.getName() + " throws", p, found);
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers()) || Modifier.isProtected(f.getModifiers())) {
                    check(c.getName() + "." + f.getName(), f.getGenericType(), found);
                }
            }
        }
        assertEquals(List.of(), List.copyOf(found));
    }
}
