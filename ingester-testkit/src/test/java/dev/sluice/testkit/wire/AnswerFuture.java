package dev.sluice.testkit.wire;

import dev.sluice.internal.wire.GreptimeResponse;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;

/** A gRPC response observer that completes a future with the answer, or with the call's error. */
public final class AnswerFuture {
    private AnswerFuture() {
    }

    /**
     * Observes one call's answer.
     *
     * @param answer completed with the response (null when the call ends without one) or the error
     * @return the observer to pass to an async stub
     */
    public static StreamObserver<GreptimeResponse> completing(CompletableFuture<GreptimeResponse> answer) {
        return new StreamObserver<>() {
            @Override
            public void onNext(GreptimeResponse value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.complete(null);
            }
        };
    }
}
