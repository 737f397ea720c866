package dev.sluice.testkit;

import dev.sluice.internal.wire.AffectedRows;
import dev.sluice.internal.wire.GreptimeDatabaseGrpc;
import dev.sluice.internal.wire.GreptimeRequest;
import dev.sluice.internal.wire.GreptimeResponse;
import dev.sluice.internal.wire.HealthCheckGrpc;
import dev.sluice.internal.wire.HealthCheckRequest;
import dev.sluice.internal.wire.HealthCheckResponse;
import dev.sluice.internal.wire.ResponseHeader;
import dev.sluice.testkit.internal.ServerError;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** {@code greptime.v1.GreptimeDatabase} and {@code greptime.v1.HealthCheck} over a {@link RequestProcessor}. */
final class DatabaseService extends GreptimeDatabaseGrpc.GreptimeDatabaseImplBase {
    static final Context.Key<Metadata> METADATA = Context.key("sluice-testkit-metadata");

    private final RequestProcessor processor;
    private final Faults faults;
    private final RequestLog log;

    private final int maxMessageBytes;

    DatabaseService(RequestProcessor processor, Faults faults, RequestLog log, int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
        this.processor = processor;
        this.faults = faults;
        this.log = log;
    }

    /** Makes each call's request headers visible to the service methods. */
    static final class MetadataInterceptor implements ServerInterceptor {
        @Override
        public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                     ServerCallHandler<ReqT, RespT> next) {
            return Contexts.interceptCall(Context.current().withValue(METADATA, headers), call, headers, next);
        }
    }

    static Metadata metadataOrEmpty() {
        return metadata();
    }

    private static Metadata metadata() {
        Metadata md = METADATA.get();
        return md == null ? new Metadata() : md;
    }

    private void pause() {
        Duration d = faults.latency();
        if (!d.isZero()) {
            try {
                Thread.sleep(d.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static GreptimeResponse response(int affected) {
        return GreptimeResponse.newBuilder().setHeader(ResponseHeader.getDefaultInstance())
                .setAffectedRows(AffectedRows.newBuilder().setValue(affected)).build();
    }

    /**
     * The server's transport (tonic) refuses a message over its limit while decoding, before any handler: OUT_OF_RANGE
     * with tonic's wording and no GreptimeDB trailers (the limit is 512 MiB unless configured).
     */
    static io.grpc.StatusRuntimeException tooLarge(int size, int limit) {
        return io.grpc.Status.OUT_OF_RANGE.withDescription("Error, decoded message length too large: found " + size
                + " bytes, the limit is: " + limit + " bytes").asRuntimeException();
    }

    @Override
    public void handle(GreptimeRequest request, StreamObserver<GreptimeResponse> observer) {
        int size = request.getSerializedSize();
        if (size > maxMessageBytes) {
            observer.onError(tooLarge(size, maxMessageBytes));
            return;
        }
        RequestProcessor.Outcome o = processor.process("Handle", request, metadata());
        if (o.hold()) {
            return;
        }
        if (o.heldAt() != null) {
            faults.held(() -> answer(o.store() != null ? o.store().get() : o, observer));
            return;
        }
        pause();
        answer(o, observer);
    }

    private static void answer(RequestProcessor.Outcome o, StreamObserver<GreptimeResponse> observer) {
        if (o.error() != null) {
            observer.onError(o.error().toStatus());
        } else {
            observer.onNext(response(o.affectedRows()));
            observer.onCompleted();
        }
    }

    @Override
    public StreamObserver<GreptimeRequest> handleRequests(StreamObserver<GreptimeResponse> observer) {
        Metadata md = metadata();
        return new StreamObserver<>() {
            private long total;
            private boolean done;
            /** Whether the hold gate stopped one of this stream's messages: the stream's answer is then held. */
            private boolean held;
            /** A message held before storing, whose store comes first on release. */
            private java.util.function.Supplier<RequestProcessor.Outcome> heldStore;
            /** The messages that came after the one held before storing: processed on release, in order. */
            private final List<GreptimeRequest> behind = new java.util.ArrayList<>();
            private ServerError heldError;

            @Override
            public void onNext(GreptimeRequest request) {
                if (done) {
                    return;
                }
                int size = request.getSerializedSize();
                if (size > maxMessageBytes) {
                    done = true;
                    observer.onError(tooLarge(size, maxMessageBytes));
                    return;
                }
                if (heldStore != null) {
                    behind.add(request);
                    return;
                }
                RequestProcessor.Outcome o = processor.process("HandleRequests", request, md);
                if (o.hold()) {
                    done = true;
                    return;
                }
                if (o.heldAt() != null) {
                    held = true;
                    heldStore = o.store();
                }
                if (o.error() != null) {
                    done = true;
                    if (held) {
                        heldError = o.error();
                        faults.held(this::answerHeld);
                        return;
                    }
                    pause();
                    observer.onError(o.error().toStatus());
                    return;
                }
                total += o.affectedRows();
            }

            /** Runs on release: stores what waited, then answers as the stream would have. */
            private void answerHeld() {
                ServerError error = heldError;
                if (heldStore != null) {
                    error = add(heldStore.get());
                    for (int i = 0; i < behind.size() && error == null; i++) {
                        error = add(processor.process("HandleRequests", behind.get(i), md, false));
                    }
                }
                if (error != null) {
                    observer.onError(error.toStatus());
                } else {
                    observer.onNext(response((int) Math.min(total, 0xFFFF_FFFFL)));
                    observer.onCompleted();
                }
            }

            private ServerError add(RequestProcessor.Outcome o) {
                total += o.affectedRows();
                return o.error();
            }

            @Override
            public void onError(Throwable t) {
                if (!done && held) {
                    // The client gave up on a held stream: what was held is still stored on release.
                    faults.held(this::answerHeld);
                }
                done = true;
            }

            @Override
            public void onCompleted() {
                if (done) {
                    return;
                }
                done = true;
                if (held) {
                    faults.held(this::answerHeld);
                    return;
                }
                pause();
                observer.onNext(response((int) Math.min(total, 0xFFFF_FFFFL)));
                observer.onCompleted();
            }
        };
    }

    /** The health service: no auth, never faulted. */
    static final class Health extends HealthCheckGrpc.HealthCheckImplBase {
        private final RequestLog log;

        Health(RequestLog log) {
            this.log = log;
        }

        @Override
        public void healthCheck(HealthCheckRequest request, StreamObserver<HealthCheckResponse> observer) {
            log.add(new RecordedRequest("HealthCheck", "health", "", null, "", Map.of(),
                    RequestProcessor.ascii(metadata()), List.of(), 0, dev.sluice.write.StatusCode.Success));
            observer.onNext(HealthCheckResponse.getDefaultInstance());
            observer.onCompleted();
        }
    }
}
