/**
 * Bulk writes to GreptimeDB over Arrow Flight DoPut: {@link dev.sluice.bulk.BulkStreamWriter} and its batches.
 * Opened through {@code GreptimeDB.bulkStreamWriter} of {@code dev.sluice.protocol}.
 *
 * <p>Only {@code dev.sluice.bulk} is exported to everyone; {@code dev.sluice.bulk.internal} is exported only to
 * {@code dev.sluice.protocol}, which drives the transport. On the module path Arrow needs
 * {@code --add-opens java.base/java.nio=org.apache.arrow.memory.core}, as on the class path.
 */
// gRPC, protobuf and arrow-memory-netty publish automatic modules only; the qualified export
// names dev.sluice.protocol, which is built after this module.
@SuppressWarnings({"requires-automatic", "module"})
module dev.sluice.bulk {
    requires transitive dev.sluice.common;
    requires org.apache.arrow.memory.core;
    requires org.apache.arrow.vector;
    requires org.apache.arrow.format;
    requires org.apache.arrow.compression;
    requires org.apache.arrow.flight.core;
    requires arrow.memory.netty;
    requires io.grpc;
    requires io.grpc.protobuf;
    requires com.google.protobuf;
    requires com.google.gson;
    requires org.slf4j;

    exports dev.sluice.bulk;
    exports dev.sluice.bulk.internal to dev.sluice.protocol;
}
