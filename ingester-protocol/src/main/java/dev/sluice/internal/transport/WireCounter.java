package dev.sluice.internal.transport;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import java.util.concurrent.atomic.LongAdder;

/** Counts bytes put on the wire by every call (after gRPC compression, before TLS and HTTP/2 framing). */
public final class WireCounter implements ClientInterceptor {
    private final LongAdder sent = new LongAdder();
    private final ClientStreamTracer.Factory factory = new ClientStreamTracer.Factory() {
        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
            return new ClientStreamTracer() {
                @Override
                public void outboundWireSize(long bytes) {
                    sent.add(bytes);
                }
            };
        }
    };

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
                                                               CallOptions options, Channel next) {
        return next.newCall(method, options.withStreamTracerFactory(factory));
    }

    /**
     * Returns the bytes sent so far.
     *
     * @return message bytes sent by every call of the client
     */
    public long bytesSent() {
        return sent.sum();
    }
}
