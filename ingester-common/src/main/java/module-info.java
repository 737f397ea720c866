/**
 * What every Sluice write path shares: the table model ({@link dev.sluice.data}), per-call settings and write
 * outcomes ({@link dev.sluice.write}) and the record-mapping annotations ({@link dev.sluice.mapping}).
 *
 * <p>Only those three packages are exported to everyone. The {@code internal} packages (value coercion, wire
 * messages generated from GreptimeDB's {@code .proto} files, error mapping, memory accounting, compression) are
 * exported only to the Sluice modules that are built on them, and are not API.
 */
// gRPC, protobuf and Guava publish automatic modules only; the qualified exports name sibling
// modules that are not built yet when this one compiles.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic", "module"})
module dev.sluice.common {
    // Err.grpcCode() is an io.grpc.Status.Code: a reader of this module needs gRPC's API package.
    requires transitive io.grpc;
    requires com.google.protobuf;
    requires io.grpc.protobuf;
    requires io.grpc.stub;
    // The generated FutureStub returns Guava's ListenableFuture.
    requires com.google.common;
    requires com.github.luben.zstd_jni;

    exports dev.sluice.data;
    exports dev.sluice.write;
    exports dev.sluice.mapping;

    exports dev.sluice.internal.wire to dev.sluice.protocol, dev.sluice.bulk, dev.sluice.testkit;
    exports dev.sluice.internal.compression to dev.sluice.protocol;
    exports dev.sluice.internal.error to dev.sluice.protocol, dev.sluice.bulk;
    exports dev.sluice.internal.send to dev.sluice.protocol, dev.sluice.bulk;
    exports dev.sluice.internal.mapping to dev.sluice.protocol;
    exports dev.sluice.internal.memory to dev.sluice.protocol, dev.sluice.bulk;
    exports dev.sluice.internal.model to dev.sluice.protocol, dev.sluice.bulk;
    // protobuf-java reads generated messages reflectively (descriptors, toString, JSON printing).
    opens dev.sluice.internal.wire to com.google.protobuf;
}
