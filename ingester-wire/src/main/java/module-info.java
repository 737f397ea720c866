/**
 * GreptimeDB's wire messages and gRPC service stubs (the subset Sluice speaks), generated from the {@code .proto}
 * files in this module with the server's package, names and field numbers. Shared by the client
 * ({@code dev.sluice.protocol}) and the testkit ({@code dev.sluice.testkit}), so that the testkit needs none of
 * the client's code; exported only to those modules, and not API.
 */
// gRPC, protobuf and Guava publish automatic modules only; the qualified exports name modules built after this one.
@SuppressWarnings({"requires-automatic", "module"})
module dev.sluice.wire {
    requires com.google.protobuf;
    requires io.grpc;
    requires io.grpc.protobuf;
    requires io.grpc.stub;
    // The generated FutureStub returns Guava's ListenableFuture.
    requires com.google.common;

    exports dev.sluice.internal.wire to dev.sluice.protocol, dev.sluice.testkit;
    // protobuf-java reads generated messages reflectively (descriptors, toString, JSON printing).
    opens dev.sluice.internal.wire to com.google.protobuf;
}
