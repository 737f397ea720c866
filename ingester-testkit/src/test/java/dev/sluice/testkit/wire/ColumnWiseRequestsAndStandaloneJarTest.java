package dev.sluice.testkit.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.sluice.internal.wire.Column;
import dev.sluice.internal.wire.ColumnDataType;
import dev.sluice.internal.wire.DeleteRequest;
import dev.sluice.internal.wire.DeleteRequests;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.InsertRequest;
import dev.sluice.internal.wire.InsertRequests;
import dev.sluice.internal.wire.RequestHeader;
import dev.sluice.internal.wire.SemanticType;
import dev.sluice.testkit.GreptimeTestServer;
import dev.sluice.testkit.Main;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The testkit from outside, continued: column-wise requests, the standalone jar's exit status and the claim
 * that no testkit main class uses the client's implementation.
 */
@Timeout(300)
class ColumnWiseRequestsAndStandaloneJarTest {
    static final Metadata.Key<String> CODE = Metadata.Key.of("x-greptime-err-code", Metadata.ASCII_STRING_MARSHALLER);

    static Column col(String name, ColumnDataType t, SemanticType s, Column.Values v, byte... mask) {
        return Column.newBuilder().setColumnName(name).setDatatype(t).setSemanticType(s).setValues(v)
                .setNullMask(ByteString.copyFrom(mask)).build();
    }

    static GreptimeRequest columnInsert(String table, int rows, Column... cols) {
        return GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                .setInserts(InsertRequests.newBuilder().addInserts(InsertRequest.newBuilder().setTableName(table)
                        .setRowCount(rows).addAllColumns(List.of(cols)))).build();
    }

    /** Nine rows; rows 0 and 8 are NULL in {@code v}: the mask is LSB-first over two bytes (bitvec Lsb0). */
    @Test
    void columnWiseNullMaskIsLsbFirstAcrossBytesAndDeletesCountRowsSent() {
        try (GreptimeTestServer server = GreptimeTestServer.start()) {
            ManagedChannel ch = NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
            try {
                var stub = GreptimeDatabaseGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
                Column.Values.Builder hosts = Column.Values.newBuilder();
                Column.Values.Builder tss = Column.Values.newBuilder();
                Column.Values.Builder vs = Column.Values.newBuilder();
                for (int i = 0; i < 9; i++) {
                    hosts.addStringValues("h" + i);
                    tss.addTimestampMillisecondValues(i);
                    if (i != 0 && i != 8) {
                        vs.addI8Values(i * 100); // 700 and 800 wrap as `as i8`
                    }
                }
                assertEquals(9, stub.handle(columnInsert("cw", 9,
                        col("host", ColumnDataType.STRING, SemanticType.TAG, hosts.build()),
                        col("v", ColumnDataType.INT8, SemanticType.FIELD, vs.build(), (byte) 0b0000_0001, (byte) 0b0000_0001),
                        col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP, tss.build())))
                        .getAffectedRows().getValue());
                List<Map<String, Object>> rows = server.rows("cw");
                assertEquals(9, rows.size());
                assertNull(rows.get(0).get("v"));
                assertEquals(100L, rows.get(1).get("v"));
                assertEquals((long) (byte) 700, rows.get(7).get("v"));
                assertNull(rows.get(8).get("v"));

                GreptimeRequest del = GreptimeRequest.newBuilder().setHeader(RequestHeader.newBuilder().setDbname("public"))
                        .setDeletes(DeleteRequests.newBuilder().addDeletes(DeleteRequest.newBuilder().setTableName("cw")
                                .setRowCount(2)
                                .addKeyColumns(col("host", ColumnDataType.STRING, SemanticType.TAG,
                                        Column.Values.newBuilder().addStringValues("h1").addStringValues("nobody").build()))
                                .addKeyColumns(col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP,
                                        Column.Values.newBuilder().addTimestampMillisecondValues(1)
                                                .addTimestampMillisecondValues(1).build()))))
                        .build();
                assertEquals(2, stub.handle(del).getAffectedRows().getValue(), "1 present + 1 absent");
                assertEquals(8, server.rowCount("cw"));

                // values + nulls != row_count: refused as invalid, nothing stored
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.handle(columnInsert("cw", 3,
                        col("host", ColumnDataType.STRING, SemanticType.TAG,
                                Column.Values.newBuilder().addStringValues("x").addStringValues("y").addStringValues("z").build()),
                        col("ts", ColumnDataType.TIMESTAMP_MILLISECOND, SemanticType.TIMESTAMP,
                                Column.Values.newBuilder().addTimestampMillisecondValues(50).build()))));
                assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus().toString());
                assertEquals("1004", e.getTrailers().get(CODE));
                assertEquals(8, server.rowCount("cw"));
            } finally {
                ch.shutdownNow();
            }
        }
    }

    // ---- standalone jar ----

    static Process launch(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    @Test
    void standaloneExitsNonZeroWhenTheHttpPortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Process p = launch("--host", "127.0.0.1", "--port", "0", "--http-port", Integer.toString(taken.getLocalPort()));
            try {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "kept running with its HTTP port taken");
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(1, p.exitValue(), out);
                assertTrue(out.contains(Integer.toString(taken.getLocalPort())), out);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void standaloneExitsNonZeroOnAPortTakenOnTheWildcardAddress() throws Exception {
        // The real server binds 0.0.0.0 by default for public use; a taken port there must also end the process.
        try (ServerSocket taken = new ServerSocket(0, 50)) {
            Process p = launch("--host", "0.0.0.0", "--port", Integer.toString(taken.getLocalPort()), "--http-port", "0");
            try {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "kept running with its gRPC port taken");
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(1, p.exitValue(), out);
            } finally {
                p.destroyForcibly();
            }
        }
    }

    /** Main's own convention: usage errors (missing value, unknown option) exit 2 with a message, not a stack trace. */
    @Test
    void aNonNumericPortIsAUsageErrorExitingTwo() throws Exception {
        Process p = launch("--port", "notanumber");
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, p.exitValue(), out);
            assertTrue(!out.contains("\tat "), "a stack trace instead of a usage message: " + out);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aFailedStartReleasesTheHttpPortItAlreadyBound() throws Exception {
        int http;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            http = probe.getLocalPort();
        }
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            assertThrows(RuntimeException.class, () -> GreptimeTestServer.builder().host("127.0.0.1")
                    .port(taken.getLocalPort()).httpPort(http).start());
        }
        try (ServerSocket again = new ServerSocket(http, 50, InetAddress.getLoopbackAddress())) {
            assertEquals(http, again.getLocalPort());
        }
    }

    // ---- independence of the oracle ----

    private static final Pattern DOTTED = Pattern.compile("dev[./]sluice[./](internal|bulk)[./][A-Za-z0-9_./$]*");

    /**
     * Stronger than a constant-pool class scan: any string or name in any testkit main class (reflective
     * {@code Class.forName("dev.sluice.internal...")} included) that names the client's internals or its bulk module.
     * Only the generated wire package is allowed, and in it only protoc/grpc output (not hand-written helpers).
     */
    @Test
    void noTestkitMainClassNamesTheClientsInternalsEvenReflectively() throws Exception {
        Path classes = Path.of(GreptimeTestServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> offences = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                scanned++;
                String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                Matcher m = DOTTED.matcher(text);
                while (m.find()) {
                    String ref = m.group().replace('.', '/');
                    if (ref.startsWith("dev/sluice/internal/wire/")) {
                        String name = ref.substring("dev/sluice/internal/wire/".length());
                        String top = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
                        if (top.endsWith(";")) {
                            top = top.substring(0, top.length() - 1);
                        }
                        if (generated("dev.sluice.internal.wire." + top)) {
                            continue;
                        }
                    }
                    offences.add(classes.relativize(f) + " -> " + m.group());
                }
            }
        }
        assertTrue(scanned > 10, "scanned " + scanned);
        assertEquals(List.of(), offences);
    }

    private static boolean generated(String name) {
        if (name.endsWith("Grpc")) {
            return true;
        }
        try {
            Class<?> c = Class.forName(name, false, ColumnWiseRequestsAndStandaloneJarTest.class.getClassLoader());
            return com.google.protobuf.MessageOrBuilder.class.isAssignableFrom(c)
                    || com.google.protobuf.ProtocolMessageEnum.class.isAssignableFrom(c)
                    || hasFileDescriptor(c);
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static boolean hasFileDescriptor(Class<?> c) {
        try {
            return c.getMethod("getDescriptor").getReturnType() == com.google.protobuf.Descriptors.FileDescriptor.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** The public {@code dev.sluice.data} and {@code dev.sluice.write} types the testkit uses must carry no coercion: list what it touches there. */
    @Test
    void theTestkitTouchesOnlyPlainModelTypesOfThePublicPackage() throws Exception {
        Path classes = Path.of(GreptimeTestServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Pattern pub = Pattern.compile("dev/sluice/(?:data/|write/)?([A-Z][A-Za-z0-9_$]*)");
        java.util.Set<String> used = new java.util.TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                Matcher m = pub.matcher(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
                while (m.find()) {
                    used.add(m.group(1).replaceAll("\\$.*", ""));
                }
            }
        }
        // Model types only: enums and records with no conversion of values (DataType, DecimalType, SemanticType, VectorType,
        // StatusCode, TableSchema). Anything else (a Point/Row builder, a coercing helper) would share client logic.
        assertEquals(java.util.Set.of("DataType", "DecimalType", "SemanticType", "StatusCode", "TableSchema", "VectorType"), used);
    }
}
