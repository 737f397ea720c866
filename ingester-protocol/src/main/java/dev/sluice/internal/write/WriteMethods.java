package dev.sluice.internal.write;

import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeResponse;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import java.io.InputStream;

/** The GreptimeDatabase methods with a request marshaller that streams {@link RequestEncoder} output. */
public final class WriteMethods {
    private WriteMethods() {
    }

    private static final MethodDescriptor.Marshaller<RequestEncoder> REQUEST = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(RequestEncoder value) {
            return new EncodedRequestStream(value);
        }

        @Override
        public RequestEncoder parse(InputStream stream) {
            throw new UnsupportedOperationException("the client never parses requests");
        }
    };

    /** {@code greptime.v1.GreptimeDatabase/Handle}, unary. */
    public static final MethodDescriptor<RequestEncoder, GreptimeResponse> HANDLE =
            MethodDescriptor.<RequestEncoder, GreptimeResponse>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(GreptimeDatabaseGrpc.getHandleMethod().getFullMethodName())
                    .setRequestMarshaller(REQUEST)
                    .setResponseMarshaller(ProtoUtils.marshaller(GreptimeResponse.getDefaultInstance()))
                    .build();

    /** {@code greptime.v1.GreptimeDatabase/HandleRequests}, client streaming. */
    public static final MethodDescriptor<RequestEncoder, GreptimeResponse> HANDLE_REQUESTS =
            MethodDescriptor.<RequestEncoder, GreptimeResponse>newBuilder()
                    .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
                    .setFullMethodName(GreptimeDatabaseGrpc.getHandleRequestsMethod().getFullMethodName())
                    .setRequestMarshaller(REQUEST)
                    .setResponseMarshaller(ProtoUtils.marshaller(GreptimeResponse.getDefaultInstance()))
                    .build();
}
