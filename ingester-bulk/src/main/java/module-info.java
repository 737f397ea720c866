/**
 * Bulk writes to GreptimeDB over Arrow Flight DoPut, plugged into the client of {@code dev.sluice.protocol}: put
 * this module on the module path and {@code GreptimeDB.bulkStreamWriter} finds it as a service. Its API
 * ({@code dev.sluice.bulk.BulkStreamWriter} and its batches) is exported by {@code dev.sluice.protocol}; this
 * module exports nothing. On the module path Arrow needs
 * {@code --add-opens java.base/java.nio=org.apache.arrow.memory.core}, as on the class path.
 */
// gRPC, protobuf and arrow-memory-netty publish automatic modules only.
@SuppressWarnings("requires-automatic")
module dev.sluice.bulk {
    requires dev.sluice.protocol;
    requires org.apache.arrow.memory.core;
    requires org.apache.arrow.vector;
    requires org.apache.arrow.format;
    requires org.apache.arrow.compression;
    requires org.lz4.java;
    requires org.apache.arrow.flight.core;
    requires arrow.memory.netty;
    requires io.grpc;
    requires io.grpc.protobuf;
    requires com.google.protobuf;
    requires com.google.gson;
    requires org.slf4j;

    provides dev.sluice.internal.bulk.spi.BulkCodec with dev.sluice.bulk.internal.ArrowBulkCodec;
}
