package dev.sluice.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.BatchingWriter;
import dev.sluice.BufferCache;
import dev.sluice.GreptimeOptions;
import dev.sluice.StreamWriter;
import dev.sluice.TlsConfig;
import dev.sluice.bulk.BulkWrite;
import dev.sluice.write.Context;
import dev.sluice.write.RetryPolicy;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What a new user reads in README.md and docs/guide.md is what the API does: no unfilled placeholders, every option
 * in the guide's tables is a builder method with the printed default, every configuration object is built the way
 * the guide says, and the module table lists what each module-info exports.
 */
class GuideAgreesWithTheApiTest {
    private static final Path ROOT = Path.of("..");

    private static String read(String file) throws IOException {
        return Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8);
    }

    @Test
    void readmeAndGuideHaveNoUnfilledPlaceholders() throws IOException {
        List<String> found = new ArrayList<>();
        for (String file : List.of("README.md", "docs/guide.md", "compare/README.md")) {
            Matcher m = Pattern.compile("TBD_[A-Z_]+").matcher(read(file));
            while (m.find()) {
                found.add(file + ": " + m.group());
            }
        }
        assertEquals(List.of(), found, "placeholders a reader sees instead of figures");
    }

    @Test
    void docsCarryNoProjectHistory() throws IOException {
        Pattern history = Pattern.compile("(?i)\\bstop \\d+|\\bissue \\d+|\\btester\\b|\\breviewer\\b|this session");
        List<String> found = new ArrayList<>();
        for (String file : List.of("README.md", "docs/guide.md", "compare/README.md",
                "ingester-kafka-connect/README.md")) {
            read(file).lines().filter(l -> history.matcher(l).find()).forEach(l -> found.add(file + ": " + l));
        }
        assertEquals(List.of(), found);
    }

    /** Option names in the first column of the table under a guide heading. */
    private static List<String> optionsUnder(String heading) throws IOException {
        String guide = read("docs/guide.md");
        int at = guide.indexOf(heading);
        assertTrue(at >= 0, heading);
        List<String> names = new ArrayList<>();
        boolean inTable = false;
        for (String line : guide.substring(at).lines().skip(1).toList()) {
            if (line.startsWith("|")) {
                inTable = true;
                String first = line.split("\\|")[1].trim();
                if (!first.equals("option") && !first.startsWith("---")) {
                    names.add(first);
                }
            } else if (inTable) {
                break;
            }
        }
        return names;
    }

    private static Set<String> setters(Class<?> builder) {
        return Arrays.stream(builder.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && m.getReturnType() == builder)
                .map(Method::getName).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyOptionInTheGuideIsABuilderMethodAndEveryBuilderMethodIsInTheGuide() throws IOException {
        Map<String, Class<?>> tables = new LinkedHashMap<>();
        tables.put("### `GreptimeOptions`", GreptimeOptions.Builder.class);
        tables.put("### `BulkWrite.Config`", BulkWrite.Config.Builder.class);
        tables.put("### `BatchingWriter.Config`", BatchingWriter.Config.Builder.class);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Class<?>> e : tables.entrySet()) {
            Set<String> documented = new TreeSet<>(optionsUnder(e.getKey()));
            if (e.getValue() == GreptimeOptions.Builder.class) {
                documented.removeAll(Set.of("endpoints", "database")); // newBuilder's arguments
            }
            Set<String> api = setters(e.getValue());
            for (String d : documented) {
                if (!api.contains(d)) {
                    problems.add(e.getKey() + ": documented but no builder method: " + d);
                }
            }
            for (String a : api) {
                if (!documented.contains(a)) {
                    problems.add(e.getKey() + ": builder method missing from the guide: " + a);
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theGuidesDefaultsAreTheBuiltDefaults() throws IOException {
        GreptimeOptions o = GreptimeOptions.newBuilder("127.0.0.1:4001", "public").build();
        BulkWrite.Config b = BulkWrite.Config.newBuilder().build();
        BatchingWriter.Config w = BatchingWriter.Config.newBuilder().build();
        RetryPolicy r = RetryPolicy.newBuilder().build();
        assertEquals(Duration.ofSeconds(60), o.requestTimeout());
        assertEquals(64 << 20, o.maxMessageSize());
        assertEquals(64 << 20, o.maxInboundMessageSize());
        assertEquals(Duration.ofSeconds(5), o.healthCheckInterval());
        assertEquals(256L << 20, o.maxInFlightBytes());
        assertEquals(1_024, o.maxInFlightRequests());
        assertEquals(Duration.ofSeconds(10), o.maxBlock());
        assertEquals(Duration.ofMinutes(2), r.deliveryTimeout());
        assertEquals(Duration.ofMillis(100), r.initialBackoff());
        assertEquals(Duration.ofSeconds(5), r.maxBackoff());
        assertEquals(0, b.allocatorInitReservation());
        assertEquals(1L << 30, b.allocatorMaxAllocation());
        assertEquals(Duration.ofSeconds(60), b.requestTimeout());
        assertEquals(8, b.maxInFlightRequests());
        assertEquals(Duration.ofSeconds(60), b.maxBlock());
        assertTrue(b.createTable());
        assertEquals(10_000, w.maxBatchRows());
        assertEquals(8L << 20, w.maxBatchBytes());
        assertEquals(Duration.ofMillis(200), w.flushInterval());
        assertEquals(4, w.maxInFlightRequests());
        assertEquals(1_000_000, w.maxBufferedRows());
        assertEquals(Duration.ofSeconds(10), w.maxBlock());
        assertEquals(BatchingWriter.Path.Regular, w.path());
        // and the guide prints exactly those
        String guide = read("docs/guide.md");
        for (String row : List.of("| requestTimeout | 60 s |", "| maxMessageSize | 64 MiB |",
                "| healthCheckInterval | 5 s |", "| maxInFlightBytes | 256 MiB |", "| maxInFlightRequests | 1,024 |",
                "| maxBlock | 10 s |", "| allocatorMaxAllocation | 1 GiB |", "| maxInFlightRequests | 8 |",
                "| maxBlock | 60 s |", "| maxBatchRows | 10,000 |", "| maxBatchBytes | 8 MiB |",
                "| flushInterval | 200 ms |", "| maxInFlightRequests | 4 |", "| maxBufferedRows | 1,000,000 |")) {
            assertTrue(guide.contains(row), row);
        }
    }

    /**
     * The guide's renamed-options section says every configuration object is built by {@code newBuilder()}, setters
     * and {@code build()}, and that {@code toBuilder()} changes a copy; and no public constructor is left.
     */
    @Test
    void everyConfigurationObjectIsBuiltOneWay() {
        List<String> problems = new ArrayList<>();
        for (Class<?> c : List.of(GreptimeOptions.class, BulkWrite.Config.class, BatchingWriter.Config.class,
                StreamWriter.Config.class, RetryPolicy.class, Context.class, TlsConfig.class, BufferCache.class)) {
            boolean newBuilder = Arrays.stream(c.getMethods())
                    .anyMatch(m -> m.getName().equals("newBuilder") && Modifier.isStatic(m.getModifiers()));
            boolean toBuilder = Arrays.stream(c.getMethods())
                    .anyMatch(m -> m.getName().equals("toBuilder") && m.getParameterCount() == 0);
            if (!newBuilder) {
                problems.add(c.getName() + " has no newBuilder()");
            }
            if (!toBuilder) {
                problems.add(c.getName() + " has no toBuilder()");
            }
            if (c.getConstructors().length > 0) {
                problems.add(c.getName() + " has a public constructor");
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theGuideShowsNoConstructorForAConfigurationObject() throws IOException {
        List<String> found = read("docs/guide.md").lines()
                .filter(l -> !l.startsWith("|")) // the migration table shows the old constructors on purpose
                .filter(l -> l.matches(".*new (BufferCache|RetryPolicy|TlsConfig|Context|GreptimeOptions)\\(.*"))
                .toList();
        assertEquals(List.of(), found, "the guide's own rule: X.newBuilder()...build()");
    }

    /** Unqualified exports of a module-info. */
    private static Set<String> exports(String module) throws IOException {
        String info = read(module + "/src/main/java/module-info.java");
        Matcher m = Pattern.compile("(?m)^\\s*exports\\s+([\\w.]+)\\s*;").matcher(info);
        Set<String> out = new TreeSet<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void theGuidesModuleTableListsWhatEachModuleExports() throws IOException {
        String guide = read("docs/guide.md");
        Pattern row = Pattern.compile("(?m)^\\| (ingester-[a-z-]+) \\| `([\\w.]+)`[^|]*\\| ([^|]+) \\|$");
        Matcher m = row.matcher(guide.substring(0, guide.indexOf("## 1.")));
        Map<String, Set<String>> problems = new LinkedHashMap<>();
        int rows = 0;
        while (m.find()) {
            rows++;
            Set<String> documented = new TreeSet<>();
            Matcher p = Pattern.compile("`([\\w.]+)`").matcher(m.group(3));
            while (p.find()) {
                documented.add(p.group(1));
            }
            Set<String> actual = exports(m.group(1));
            if (!documented.equals(actual)) {
                problems.put(m.group(1) + " guide says " + documented + ", module-info exports", actual);
            }
        }
        assertEquals(5, rows, "the guide's module table: common, protocol, bulk, testkit, sql");
        assertEquals(Map.of(), problems);
    }

    /**
     * The client flushes a batching writer left open when the JVM exits, with a warning (its Javadoc says so and
     * {@code BatchingWriterLeftOpenAtExitTest} proves it); the README and the guide must not tell users those rows
     * are lost, and the guide's shutdown section says what happens.
     */
    @Test
    void theDocsDescribeWhatHappensToABatchingWriterLeftOpenAtExit() throws IOException {
        String readme = read("README.md").replaceAll("\\s+", " ");
        String guide = read("docs/guide.md");
        String shutdown = guide.substring(guide.indexOf("## 7."), guide.indexOf("## 8.")).replaceAll("\\s+", " ");
        assertTrue(!readme.contains("Rows still buffered in a batching writer when the JVM exits without that call are lost"),
                "README says the rows are lost, but the client's exit hook flushes them");
        assertTrue(shutdown.contains("exit hook") || shutdown.contains("JVM is exiting"),
                "the guide's shutdown section mentions the exit hook and its warning: " + shutdown);
    }
}
