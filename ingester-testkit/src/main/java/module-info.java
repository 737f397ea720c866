/**
 * An in-process GreptimeDB stand-in for tests: {@link dev.sluice.testkit.GreptimeTestServer} answers the gRPC
 * write services, Flight DoPut and a slice of the HTTP SQL API, records requests and injects faults;
 * {@link dev.sluice.testkit.GreptimeTestkitExtension} starts one per JUnit Jupiter test class (JUnit is optional:
 * only the extension needs it).
 *
 * <p>Only {@code dev.sluice.testkit} is exported. The testkit reads the client's public model types and the wire
 * messages generated from GreptimeDB's {@code .proto} files, never the client's implementation.
 */
// gRPC, protobuf, Gson and H2 publish automatic modules only. (javac's "not indirectly exported" warnings
// about the extension's JUnit types are expected: JUnit is optional on purpose, see below.)
@SuppressWarnings("requires-automatic")
module dev.sluice.testkit {
    // GreptimeTestServer.schema returns a TableSchema, Faults take a StatusCode.
    requires transitive dev.sluice.common;
    // The generated wire messages and stubs, shared with the client (never the client itself).
    requires dev.sluice.wire;
    // Optional, not transitive: a user of the extension requires org.junit.jupiter.api anyway.
    requires static org.junit.jupiter.api;
    requires org.apache.arrow.memory.core;
    requires org.apache.arrow.vector;
    requires org.apache.arrow.format;
    requires org.apache.arrow.compression;
    requires org.apache.arrow.flight.core;
    requires io.grpc;
    requires io.grpc.stub;
    requires io.grpc.netty.shaded;
    requires com.google.protobuf;
    requires com.google.gson;
    requires com.github.luben.zstd_jni;
    // The HTTP SQL endpoint: the JDK's HTTP server, and H2 (found by DriverManager) running the SELECTs.
    requires jdk.httpserver;
    requires java.sql;
    requires com.h2database;

    exports dev.sluice.testkit;
}
